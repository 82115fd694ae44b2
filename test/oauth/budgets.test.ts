/** The OAuth endpoints are public routes: counted against the address's request budget (http/rate-limit.ts). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, startTestServer, type TestServer } from '../harness.js';
import { REDIRECT_URI, tokenRequest } from './support.js';

describe('OAuth endpoints and the rate limit', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '3' });
  });
  after(() => server.close());

  test('registration past the budget is 429 with Retry-After, in the house shape', async () => {
    const register = () =>
      server.client().post('/oauth/register', { client_name: 'Spammer', redirect_uris: [REDIRECT_URI] });
    for (let i = 0; i < 3; i++) assert.equal((await register()).status, 201);
    const refused = await register();
    expectError(refused, 429);
    assert.ok(refused.headers.get('retry-after'));
    const rows = await server.store.db.selectFrom('oauth_clients').select('id').execute();
    assert.equal(rows.length, 3);
    // The token endpoint shares the address's budget.
    expectError(await tokenRequest(server, { grant_type: 'authorization_code' }), 429);
  });
});
