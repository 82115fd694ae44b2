/** Which redirect URIs a client may register and use (OAuth 2.1 §2.3.1, §8.4.2). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isRegisteredRedirect, redirectUriProblem } from '../../src/oauth/redirect-uris.js';

describe('OAuth redirect URIs', () => {
  test('https anywhere and http to the loopback are accepted; the rest is refused with the reason', () => {
    for (const ok of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://127.0.0.1:33418/',
      'http://localhost/cb',
      'http://[::1]:8080/cb',
    ]) {
      assert.equal(redirectUriProblem(ok), undefined, ok);
    }
    for (const bad of [
      'http://example.com/cb',
      'http://127.0.0.2.nip.io/cb',
      'cursor://x/cb',
      'https://a.example/cb#f',
      'https://u:p@a.example/cb',
      'relative/cb',
    ]) {
      assert.ok(redirectUriProblem(bad), bad);
    }
  });

  test('a loopback URI matches on any port; others only exactly', () => {
    const registered = ['http://127.0.0.1/callback', 'https://app.example/cb'];
    assert.ok(isRegisteredRedirect(registered, 'http://127.0.0.1:50123/callback'));
    assert.ok(!isRegisteredRedirect(registered, 'http://127.0.0.1:50123/other'));
    assert.ok(!isRegisteredRedirect(registered, 'http://localhost:50123/callback'));
    assert.ok(isRegisteredRedirect(registered, 'https://app.example/cb'));
    assert.ok(!isRegisteredRedirect(registered, 'https://app.example:8443/cb'));
    assert.ok(!isRegisteredRedirect(registered, 'https://app.example/cb?x=1'));
  });
});
