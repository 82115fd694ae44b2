/**
 * API keys (docs/api.md, "API keys"; SECURITY.md), end to end over HTTP on the store under test:
 *
 * - a mistyped, truncated or made-up key is refused by its checksum, before any SQL statement
 *   (counted by a Kysely plugin on a second app over the same database, and only the statements
 *   its requests make: its background jobs, such as the webhook worker's poll, are no request's);
 *   old-format keys still work
 * - only the sha256 of a key is stored
 * - last_used_at: set by the first request, then written at most once per TOUCH_INTERVAL_MS
 * - expiry: CLI (--expires-in-days, --expires-at) and web app (expiresInDays, expiresAt) create
 *   expiring keys; listings show expiresAt; an expired key is a 401 naming the date, and its event
 *   stream ends like a revoked key's
 * - revocation with the CLI refuses the key on the very next request
 *
 * The key format itself is tested in src/keys/key-format.test.ts; revocation across processes in
 * keys-multiprocess.pg.test.ts; secrets in logs in no-secrets-in-logs.test.ts.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  expiredKeyMessage,
  MALFORMED_KEY_MESSAGE,
  TOUCH_INTERVAL_MS,
  UNKNOWN_KEY_MESSAGE,
} from '../src/keys/key-auth.js';
import { generateApiKey } from '../src/keys/key-format.js';
import { findKey, insertKey } from '../src/keys/keys.repository.js';
import { hashPassword } from '../src/team/passwords.js';
import { setPasswordHash } from '../src/team/users.repository.js';
import { createTestTeam, type Actor } from './factories.js';
import {
  Client,
  expectError,
  expectStatus,
  startTestServer,
  tempDatabase,
  type TempDatabase,
  type TestServer,
} from './harness.js';
import { admin, adminFails, killAll } from './processes.js';
import { openStream } from './sse/stream.js';
import { startCountedApp, type CountedApp, type Statement } from './statement-log.js';

const TIMEOUT = { timeout: 30_000 };
const DAY_MS = 86_400_000;
const PASSWORD = 'a long enough password';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** A key in the format used before checksums: `tl_<8>_<32>`, base64url. */
const legacyKey = () => `tl_${randomBytes(6).toString('base64url')}_${randomBytes(24).toString('base64url')}`;

/** Keys one typo away from `key`: a changed character at each position, and swapped neighbours. */
function typosOf(key: string): string[] {
  const typos: string[] = [];
  for (let i = 0; i < key.length; i++) {
    const changed = key[i] === 'x' ? 'y' : 'x';
    typos.push(key.slice(0, i) + changed + key.slice(i + 1));
    if (i + 1 < key.length && key[i] !== key[i + 1]) {
      typos.push(key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2));
    }
  }
  return typos;
}

async function lastUsedAt(server: TestServer, keyId: string): Promise<string | null> {
  return (await findKey(server.store.db, keyId))!.last_used_at;
}

/** Signs `actor` in with a password (set here); the headers make session requests and changes. */
async function signIn(server: TestServer, actor: Actor): Promise<Record<string, string>> {
  await setPasswordHash(server.store.db, actor.userId, await hashPassword(PASSWORD));
  const response = await fetch(`${server.url}/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: actor.email, password: PASSWORD }),
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('tasklane_session='));
  assert.ok(cookie, 'no session cookie');
  return { cookie: cookie.split(';')[0]!, 'x-csrf-token': JSON.parse(text).csrfToken };
}

/** Asserts an ISO timestamp lies within [from, to] (ms). */
function assertBetween(iso: string, from: number, to: number): void {
  const at = Date.parse(iso);
  assert.ok(
    at >= from && at <= to,
    `${iso} is not between ${new Date(from).toISOString()} and ${new Date(to).toISOString()}`,
  );
}

// ---------------------------------------------------------------------------------------------

describe('API keys', () => {
  let database: TempDatabase;
  let server: TestServer;
  let counted: CountedApp;

  before(async () => {
    database = await tempDatabase();
    server = await startTestServer({ DATABASE_URL: database.url });
    counted = await startCountedApp(database.url);
  });
  after(async () => {
    killAll();
    await counted?.close();
    await server?.close();
    await database?.remove();
  });

  test('a key is tlk_ + 49 base62 characters, and the database holds only its sha256', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const { key, keyId } = team.owner;
    assert.match(key, /^tlk_[0-9A-Za-z]{49}$/);
    const row = await findKey(server.store.db, keyId);
    assert.ok(row);
    assert.equal(row.secret_hash, createHash('sha256').update(key).digest('hex'));
    const secretPart = key.slice('tlk_'.length + 8);
    for (const [column, value] of Object.entries(row)) {
      assert.ok(!String(value).includes(secretPart), `api_keys.${column} holds the secret: ${String(value)}`);
    }
    expectStatus(await team.owner.api.get('/v1/me'), 200);
  });

  test('a mistyped, truncated or made-up key is a 401 sent before any SQL statement', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const key = team.owner.key;
    const refused = [...typosOf(key), key.slice(0, -1), `${key}0`, 'tl_nope_nope', 'tlk_', `tlk_${'0'.repeat(49)}`];
    for (const typo of refused) {
      const { result, statements } = await counted.log.requestsDuring(() => counted.client(typo).get('/v1/me'));
      expectError(result, 401, MALFORMED_KEY_MESSAGE);
      assert.deepEqual(statements, [], `a malformed key (${typo}) cost SQL statements`);
    }

    // The same counter sees the lookup of a well-formed key, known or not.
    const unknown = await counted.log.requestsDuring(() => counted.client(generateApiKey().key).get('/v1/me'));
    expectError(unknown.result, 401, UNKNOWN_KEY_MESSAGE);
    assert.ok(
      unknown.statements.some((s) => s.tables.includes('api_keys')),
      'a well-formed key was not looked up',
    );
    const valid = await counted.log.requestsDuring(() => counted.client(key).get('/v1/me'));
    expectStatus(valid.result, 200);
    assert.ok(valid.statements.some((s) => s.tables.includes('api_keys')));
  });

  test('keys in the old tl_<8>_<32> format keep working, looked up by their hash', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const key = legacyKey();
    await server.store.db
      .insertInto('api_keys')
      .values({
        id: randomUUID(),
        team_id: team.id,
        user_id: team.owner.userId,
        name: 'made before checksums',
        prefix: key.slice(0, 11),
        secret_hash: createHash('sha256').update(key).digest('hex'),
        created_at: new Date().toISOString(),
        last_used_at: null,
        revoked_at: null,
        expires_at: null,
      })
      .execute();
    assert.equal(expectStatus(await server.client(key).get('/v1/me'), 200).user.id, team.owner.userId);
    const unknown = await counted.log.requestsDuring(() => counted.client(legacyKey()).get('/v1/me'));
    expectError(unknown.result, 401, UNKNOWN_KEY_MESSAGE);
    assert.ok(unknown.statements.length > 0);
  });

  test('last_used_at is set by the first request and written at most once per TOUCH_INTERVAL_MS', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const { key, keyId } = team.owner;
    const api = counted.client(key);
    const writes = (statements: Statement[]) =>
      statements.filter((s) => s.kind === 'UpdateQueryNode' && s.tables.includes('api_keys')).length;
    assert.equal(await lastUsedAt(server, keyId), null);

    const before = Date.now();
    const first = await counted.log.requestsDuring(() => api.get('/v1/me'));
    expectStatus(first.result, 200);
    assert.equal(writes(first.statements), 1, 'the first use must record last_used_at');
    const recorded = await lastUsedAt(server, keyId);
    assert.ok(recorded);
    assertBetween(recorded, before, Date.now());

    await sleep(5);
    for (let i = 0; i < 3; i++) {
      const again = await counted.log.requestsDuring(() => api.get('/v1/lists'));
      expectStatus(again.result, 200);
      assert.equal(writes(again.statements), 0, 'a request within the interval wrote last_used_at again');
    }
    assert.equal(await lastUsedAt(server, keyId), recorded);

    // Once the interval has passed (moved back here rather than waited for), the next use writes again.
    const old = new Date(Date.now() - TOUCH_INTERVAL_MS - 1_000).toISOString();
    await server.store.db.updateTable('api_keys').set({ last_used_at: old }).where('id', '=', keyId).execute();
    const later = await counted.log.requestsDuring(() => api.get('/v1/me'));
    expectStatus(later.result, 200);
    assert.equal(writes(later.statements), 1);
    assert.ok(Date.parse((await lastUsedAt(server, keyId))!) > Date.parse(recorded));
  });

  test(
    'admin key create --expires-in-days / --expires-at prints expiresAt; bad values are refused',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const ids = ['--org', team.id, '--user', team.owner.userId];

      // (Without an option expiresAt is null: test/no-secrets-in-logs.test.ts creates such a key.)
      const before = Date.now();
      const inDays = await admin(database.url, 'key', 'create', ...ids, '--name', 'ci', '--expires-in-days', '30');
      assert.deepEqual(Object.keys(inDays), ['id', 'key', 'expiresAt']);
      assertBetween(inDays.expiresAt, before + 30 * DAY_MS, Date.now() + 30 * DAY_MS);
      assert.match(inDays.key, /^tlk_[0-9A-Za-z]{49}$/);
      expectStatus(await server.client(inDays.key).get('/v1/me'), 200);

      // A time with an offset is stored (and printed) in UTC.
      const target = new Date(Math.ceil(Date.now() / 1000) * 1000 + 100 * DAY_MS);
      const withOffset = new Date(target.getTime() + 2 * 3_600_000).toISOString().replace('.000Z', '+02:00');
      const at = await admin(database.url, 'key', 'create', ...ids, '--expires-at', withOffset);
      assert.equal(at.expiresAt, target.toISOString());
      assert.equal((await findKey(server.store.db, at.id))!.expires_at, target.toISOString());

      // Every rule of the options is tested in src/keys/key-expiry.test.ts; here, that the CLI applies them.
      assert.match(
        await adminFails(database.url, 'key', 'create', ...ids, '--expires-at', '2020-01-01T00:00:00Z'),
        /^--expires-at must be in the future\. \(database: .+\)$/,
      );
    },
  );

  test('the web app creates keys with expiresInDays or expiresAt and lists expiresAt', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const session = await signIn(server, team.owner);
    const web = new Client(server.url);
    const create = (body: object) => web.post('/v1/api-keys', body, session);

    const before = Date.now();
    const weekly = expectStatus(await create({ name: 'weekly', expiresInDays: 7 }), 201);
    assertBetween(weekly.expiresAt, before + 7 * DAY_MS, Date.now() + 7 * DAY_MS);
    const target = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10 * DAY_MS).toISOString();
    const dated = expectStatus(await create({ name: 'dated', expiresAt: target }), 201);
    assert.equal(dated.expiresAt, target);
    const forever = expectStatus(await create({ name: 'forever' }), 201);
    assert.equal(forever.expiresAt, null);
    expectStatus(await server.client(weekly.key).get('/v1/me'), 200);

    const listed = expectStatus(await web.get('/v1/api-keys', session), 200);
    const expiryOf = Object.fromEntries(listed.map((k: any) => [k.name, k.expiresAt]));
    assert.deepEqual(expiryOf, { weekly: weekly.expiresAt, dated: target, forever: null, test: null });

    const refusals: [object, string | RegExp][] = [
      [{ expiresInDays: 0 }, 'expiresInDays must be at least 1.'],
      [{ expiresInDays: '7' }, 'expiresInDays must be a whole number.'],
      [{ expiresAt: 'tomorrow' }, /^expiresAt must be a date and time with a zone/],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt must be in the future.'],
      [{ expiresAt: target, expiresInDays: 7 }, 'Give expiresAt or expiresInDays, not both.'],
    ];
    for (const [body, message] of refusals) expectError(await create({ name: 'bad', ...body }), 400, message);
    assert.equal(expectStatus(await web.get('/v1/api-keys', session), 200).length, 4, 'a refused key was created');
  });

  test('an expired key is a 401 naming its expiry, from the first request after it', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const expiresAt = new Date(Date.now() + 1_000).toISOString();
    const { key } = await insertKey(server.store.db, {
      teamId: team.id,
      userId: team.owner.userId,
      name: 'short-lived',
      expiresAt,
    });
    expectStatus(await server.client(key).get('/v1/me'), 200);
    await sleep(Date.parse(expiresAt) - Date.now() + 20);
    expectError(await server.client(key).get('/v1/me'), 401, expiredKeyMessage(expiresAt));
    expectError(await server.client(key).get('/v1/lists'), 401, `This API key expired on ${expiresAt}.`);
    expectStatus(await team.owner.api.get('/v1/me'), 200);
  });

  test('an event stream held by a key ends when the key expires, like a revoked key’s', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const expiresAt = new Date(Date.now() + 1_000).toISOString();
    const { key } = await insertKey(server.store.db, {
      teamId: team.id,
      userId: team.owner.userId,
      name: 'short-lived stream',
      expiresAt,
    });
    const expiring = await openStream(server, key, { label: 'expiring key' });
    const lasting = await openStream(server, team.owner.key, { label: 'lasting key' });
    assert.equal(expiring.status, 200);
    assert.equal(lasting.status, 200);
    try {
      // The hub checks streams' credentials every 5 s.
      await expiring.waitClosed(9_000);
      assert.ok(Date.now() >= Date.parse(expiresAt), 'the stream ended before its key expired');
      await sleep(50);
      assert.equal(lasting.ended, false, 'the stream of a key that has not expired must stay open');
      const again = await openStream(server, key, { label: 'expired key' });
      assert.equal(again.status, 401);
      again.close();
    } finally {
      expiring.close();
      lasting.close();
    }
  });

  test('a key revoked with the admin CLI is refused on the very next request', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const member = await team.member();
    expectStatus(await member.api.get('/v1/me'), 200);
    assert.deepEqual(await admin(database.url, 'key', 'revoke', '--id', member.keyId), { revoked: true });
    expectError(await member.api.get('/v1/me'), 401, UNKNOWN_KEY_MESSAGE);
    expectStatus(await team.owner.api.get('/v1/me'), 200);
  });
});
