/** The signer against the reference `standardwebhooks` library: what one signs, the other verifies. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newSecret, signatureHeader } from './signing.js';

test('a signature verifies with the reference library, and one signature per secret is space-separated', () => {
  const [a, b] = [newSecret(), newSecret()];
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'task.created', timestamp: new Date().toISOString(), data: { id: 1 } });
  const header = signatureHeader([a.bytes, b.bytes], 'msg_1', timestamp, body);
  assert.equal(header.split(' ').length, 2);
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
  for (const secret of [a, b]) assert.deepEqual(new Webhook(secret.shown).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newSecret().shown).verify(body, headers));
  assert.throws(() => new Webhook(a.shown).verify(`${body} `, headers), 'a changed body does not verify');
});
