/** The log redaction censors keys, cookies, CSRF tokens and passwords wherever code might log them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { LOG_REDACTION } from './log-redaction.js';

test('headers and bodies logged by mistake have their keys, cookies, tokens and passwords censored', async () => {
  const lines: string[] = [];
  const app = Fastify({
    logger: { level: 'trace', redact: LOG_REDACTION, stream: { write: (line: string) => void lines.push(line) } },
  });
  const headers = { 'x-api-key': 'SECRET-1', cookie: 'tasklane_session=SECRET-2', 'x-csrf-token': 'SECRET-3' };
  app.log.info({ headers }, 'headers');
  app.log.info({ req: { headers } }, 'request');
  app.log.info({ request: { headers, body: { email: 'a@b.c', password: 'SECRET-4' } } }, 'nested');
  app.log.info({ body: { currentPassword: 'SECRET-5', newPassword: 'SECRET-6' } }, 'body');
  app.log.info({ key: 'SECRET-7', password: 'SECRET-8' }, 'fields');
  await app.close();

  const output = lines.join('');
  assert.equal(lines.length, 5);
  assert.doesNotMatch(output, /SECRET/, output);
  assert.match(output, /"email":"a@b.c"/, 'redaction must not hide what is not secret');
  assert.match(output, /"x-api-key":"\[redacted\]"/);
});
