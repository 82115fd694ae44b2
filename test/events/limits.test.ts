/**
 * Caps on open event streams, over real HTTP with small caps set through the environment:
 *
 * - per credential (EVENTS_MAX_STREAMS_PER_CREDENTIAL): past it `429 {"error"}`, each API key
 *   and each web session counted on its own;
 * - per process (EVENTS_MAX_STREAMS): past it `503 {"error"}` with Retry-After;
 * - a refused attempt changes nothing, and a stream's place is given back however it goes (the
 *   client leaves, or the server ends it), so the credential can open new ones again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { insertKey } from '../../src/keys/keys.repository.js';
import { hashSecret } from '../../src/secret-hash.js';
import { insertSession, setSessionTeam } from '../../src/sessions/sessions.repository.js';
import { upsertMember } from '../../src/team/teams.repository.js';
import { createTestTeam } from '../factories.js';
import { startTestServer, type TestServer } from '../harness.js';
import { closeAllStreams, openStream, type SseStream } from '../sse/stream.js';
import { TIMEOUT, waitUntil } from './support.js';

const PER_CREDENTIAL = 3;
const PER_PROCESS = 5;

/** A refusal: the status and a JSON body that is exactly {"error": message}. */
async function assertRefused(stream: SseStream, status: number, message: RegExp): Promise<void> {
  await stream.waitClosed(3_000); // the whole body
  assert.equal(stream.status, status, `${stream.label}: expected ${status}, got ${stream.status} ${stream.body}`);
  assert.match(String(stream.headers['content-type']), /^application\/json/, `${stream.label}: ${stream.body}`);
  const body = JSON.parse(stream.body);
  assert.deepEqual(Object.keys(body), ['error'], `${stream.label}: ${stream.body}`);
  assert.match(body.error, message);
}

function assertOpen(stream: SseStream): void {
  assert.equal(stream.status, 200, `${stream.label}: ${stream.status} ${stream.body}`);
  assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
}

describe('caps on open event streams', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      EVENTS_MAX_STREAMS_PER_CREDENTIAL: String(PER_CREDENTIAL),
      EVENTS_MAX_STREAMS: String(PER_PROCESS),
    });
  });
  after(async () => {
    closeAllStreams();
    await server.close();
  });

  /** Closes the streams and waits until the server has let go of every stream. */
  async function closeAll(): Promise<void> {
    closeAllStreams();
    await waitUntil(`the server let go of every stream (${server.app.hub.size} left)`, () => server.app.hub.size === 0);
  }

  test(
    'an API key may hold EVENTS_MAX_STREAMS_PER_CREDENTIAL streams; past it 429 {"error"}, and a closed stream frees its place',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const key = team.owner.key;
      const open: SseStream[] = [];
      for (let i = 0; i < PER_CREDENTIAL; i++) open.push(await openStream(server, key, { label: `stream ${i}` }));
      open.forEach(assertOpen);

      for (let attempt = 0; attempt < 3; attempt++) {
        const refused = await openStream(server, key, { label: `over the cap ${attempt}` });
        await assertRefused(refused, 429, new RegExp(`already has ${PER_CREDENTIAL} open event streams`));
        refused.close();
      }
      // The refusals changed nothing: the streams go on, and no place was taken.
      assert.equal(server.app.hub.size, PER_CREDENTIAL);
      const list = await team.owner.api.post('/v1/lists', { name: 'Seen by all three' });
      for (const stream of open) assert.equal((await stream.next()).type, 'taskList.created');

      // The same user's other key has places of its own.
      const second = await insertKey(server.store.db, { teamId: team.id, userId: team.owner.userId, name: 'other' });
      assertOpen(await openStream(server, second.key, { label: 'other key' }));

      // A stream whose client left gives its place back, exactly one.
      open.shift()!.close();
      await waitUntil('the closed stream is gone', () => server.app.hub.size === PER_CREDENTIAL);
      open.push(await openStream(server, key, { label: 'in the freed place' }));
      assertOpen(open.at(-1)!);
      await assertRefused(
        await openStream(server, key, { label: 'over again' }),
        429,
        /close one before opening another/,
      );
      assert.equal(list.status, 201);

      // Once all are closed, the key can open as many as the cap again.
      await closeAll();
      for (let i = 0; i < PER_CREDENTIAL; i++) assertOpen(await openStream(server, key, { label: `again ${i}` }));
      await closeAll();
    },
  );

  test(
    'the process holds EVENTS_MAX_STREAMS streams in all; past it 503 {"error"} with Retry-After, until one closes',
    TIMEOUT,
    async () => {
      const team = await createTestTeam(server);
      const people = [team.owner, await team.member(), await team.member()];
      const held: SseStream[] = [];
      // 3 + 2 streams fill the process without reaching anyone's own cap.
      for (let i = 0; i < PER_PROCESS; i++) {
        const who = people[i < PER_CREDENTIAL ? 0 : 1]!;
        held.push(await openStream(server, who.key, { label: `stream ${i}` }));
      }
      held.forEach(assertOpen);

      for (const who of [people[1]!, people[2]!]) {
        const refused = await openStream(server, who.key, { label: 'process full' });
        await assertRefused(refused, 503, new RegExp(`as many event streams as it allows \\(${PER_PROCESS}\\)`));
        assert.match(String(refused.headers['retry-after']), /^\d+$/, 'a 503 says when to try again');
        refused.close();
      }
      assert.equal(server.app.hub.size, PER_PROCESS, 'the refusals changed nothing');

      held.pop()!.close();
      await waitUntil('the closed stream is gone', () => server.app.hub.size === PER_PROCESS - 1);
      assertOpen(await openStream(server, people[2]!.key, { label: 'in the freed place' }));
      const full = await openStream(server, people[1]!.key, { label: 'full again' });
      await assertRefused(full, 503, /Try again shortly/);
      await closeAll();
    },
  );

  test(
    'a web session is a credential of its own, and streams the server ends give their places back',
    TIMEOUT,
    async () => {
      const first = await createTestTeam(server);
      const second = await createTestTeam(server);
      const user = first.owner;
      await upsertMember(server.store.db, second.id, user.userId, 'member');
      const session = await insertSession(server.store.db, user.userId, first.id);
      const cookie = { cookie: `tasklane_session=${session.token}` };
      const streams: SseStream[] = [];
      for (let i = 0; i < PER_CREDENTIAL; i++) {
        streams.push(await openStream(server, undefined, { headers: cookie, label: `session stream ${i}` }));
      }
      streams.forEach(assertOpen);
      await assertRefused(
        await openStream(server, undefined, { headers: cookie, label: 'session over the cap' }),
        429,
        /^This session already has/,
      );
      assertOpen(await openStream(server, user.key, { label: 'the same user’s key' }));

      // The session moves to another team: the server ends its streams at the next recheck.
      await setSessionTeam(server.store.db, hashSecret(session.token), second.id);
      await Promise.all(streams.map((stream) => stream.waitClosed(8_000)));
      await waitUntil('only the key’s stream is left', () => server.app.hub.size === 1);
      for (let i = 0; i < PER_CREDENTIAL; i++) {
        assertOpen(await openStream(server, undefined, { headers: cookie, label: `in the other team ${i}` }));
      }
      await closeAll();
    },
  );
});

test('the caps default to 100 per credential and 10,000 per process; a cap that is not a whole number ≥ 1 is refused at start', () => {
  const defaults = loadConfig({});
  assert.deepEqual([defaults.eventsMaxStreamsPerCredential, defaults.eventsMaxStreams], [100, 10_000]);
  assert.throws(
    () => loadConfig({ EVENTS_MAX_STREAMS_PER_CREDENTIAL: '0', EVENTS_MAX_STREAMS: 'lots' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.problems.length === 2 &&
      error.problems.every((problem) => /^EVENTS_MAX_STREAMS(_PER_CREDENTIAL)? must be a whole number/.test(problem)),
  );
});
