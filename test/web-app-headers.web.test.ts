/**
 * What browsers are told by the web app (web/dist, served at /): a strict Content-Security-Policy,
 * no framing, sniffing or referrer leaks, unused features off, on the page and on every file.
 * A *.web.test file: it needs the built web app, so `npm test` runs it once the web build is done.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { WEB_ROOT } from '../src/http/web.js';
import { expectStatus, startTestServer, type TestServer } from './harness.js';

/** Reads one header directive from a CSP string. */
function directive(csp: string, name: string): string | undefined {
  return csp
    .split(';')
    .map((part) => part.trim())
    .find((part) => part === name || part.startsWith(`${name} `));
}

describe('the web app’s security headers', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server?.close());

  test('the web app page (the invitation page /join too) carries a strict CSP and refuses framing, sniffing, referrer leaks and unused features', async () => {
    for (const path of ['/', '/lists/3', '/settings', '/join']) {
      const res = await server.client().get(path, { accept: 'text/html' });
      expectStatus(res, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.equal(directive(csp, 'default-src'), "default-src 'self'", csp);
      assert.equal(directive(csp, 'script-src'), "script-src 'self'", `no inline or remote script: ${csp}`);
      assert.equal(directive(csp, 'object-src'), "object-src 'none'", csp);
      assert.equal(directive(csp, 'base-uri'), "base-uri 'none'", csp);
      assert.equal(directive(csp, 'frame-ancestors'), "frame-ancestors 'none'", csp);
      assert.equal(directive(csp, 'frame-src'), "frame-src 'none'", csp);
      assert.equal(directive(csp, 'form-action'), "form-action 'self'", csp);
      assert.doesNotMatch(csp, /unsafe-eval|\*/, csp);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'same-origin');
      assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin');
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin');
      const permissions = res.headers.get('permissions-policy') ?? '';
      for (const feature of ['camera', 'microphone', 'geolocation', 'payment', 'usb']) {
        assert.ok(permissions.includes(`${feature}=()`), `${feature} not switched off: ${permissions}`);
      }
    }
  });

  test('the web app files, opened directly, carry the same policies and are same-origin only', async () => {
    const asset = readdirSync(`${WEB_ROOT}/assets`).find((name) => name.endsWith('.js'));
    assert.ok(asset, 'the web app is built (web/dist/assets)');
    const page = await server.client().get('/', { accept: 'text/html' });
    for (const path of [`/assets/${asset}`, '/index.html', '/favicon.svg']) {
      const res = await server.client().get(path);
      expectStatus(res, 200);
      for (const header of [
        'content-security-policy',
        'x-content-type-options',
        'x-frame-options',
        'cross-origin-resource-policy',
        'referrer-policy',
      ]) {
        assert.equal(res.headers.get(header), page.headers.get(header), `${path}: ${header}`);
      }
    }
  });
});
