/**
 * Access ends: a user removed from the team loses the session's access at once, and event
 * streams opened with the session end after sign-out or removal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { deleteMember, upsertMember } from '../../src/team/teams.repository.js';
import {
  Browser,
  expectSignInRefused,
  PASSWORD,
  setPassword,
  signedInOwner,
  signIn,
  teamWithPassword,
} from '../browser.js';
import { createTestTeam } from '../factories.js';
import { expectError, expectStatus, show, startTestServer, type TestServer } from '../harness.js';
import { openStream, type SseStream } from '../sse/stream.js';

/** An event stream opened with the browser's session cookie, once the hub has it (its ": connected" is out). */
async function openEventStream(browser: Browser): Promise<SseStream> {
  const cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const stream = await openStream({ url: browser.baseUrl }, undefined, {
    headers: { cookie },
    label: 'session stream',
  });
  if (stream.status === 200) await stream.waitForComment('connected');
  return stream;
}

/** The time the server ended the stream, or null if it is still open after `ms`. */
async function endWithin(stream: SseStream, ms: number): Promise<number | null> {
  return stream.waitClosed(ms).then(
    () => stream.endedAt!,
    () => null,
  );
}

describe('web sessions', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  describe('losing access', () => {
    test('removing the user from the team ends their session’s access at once', async () => {
      const { team, browser } = await signedInOwner(server);
      const member = await team.member();
      await setPassword(server, member);
      const { browser: session } = await signIn(server, member.email);
      expectStatus(await session.get('/v1/me'), 200);

      assert.equal(await deleteMember(server.store.db, team.id, member.userId), true);

      const me = await session.get('/v1/me');
      assert.ok(me.status === 401 || me.status === 404, `GET /v1/me: expected 401 or 404, got ${show(me)}`);
      expectError(me, me.status);
      expectError(await session.get('/v1/lists'), 401);
      expectError(await session.get('/auth/session'), 401);
      expectError(await session.post('/v1/lists', { name: 'After removal' }, session.csrf()), 401);
      expectError(await session.post('/v1/api-keys', { name: 'After removal' }, session.csrf()), 401);
      expectStatus(await browser.get('/v1/me'), 200); // the owner is unaffected
      // A user in no team at all cannot sign in again.
      await expectSignInRefused(server, { email: member.email, password: PASSWORD }, 403);
    });

    test('an event stream opened with the session cookie ends within ~7 s after sign-out', async () => {
      const { browser } = await signedInOwner(server);
      const stream = await openEventStream(browser);
      try {
        assert.equal(stream.status, 200, stream.body);
        assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
        expectStatus(await browser.post('/auth/sign-out', undefined, browser.csrf()), 200);
        const signedOutAt = Date.now();
        const endedAt = await endWithin(stream, 7_500);
        assert.ok(endedAt !== null, 'the event stream is still open 7.5 s after sign-out');
        assert.ok(endedAt - signedOutAt <= 7_000, `the stream ended ${endedAt - signedOutAt} ms after sign-out`);
      } finally {
        stream.close();
      }
    });

    test('an event stream of the team a user was removed from ends, even after the session switched team', async () => {
      const one = await teamWithPassword(server);
      const two = await createTestTeam(server);
      await sleep(5);
      await upsertMember(server.store.db, two.id, one.owner.userId, 'member');
      const colleague = await one.member({ role: 'admin' });
      const { browser } = await signIn(server, one.owner.email);
      // A task the user created in team one: its events are addressed to its creator.
      const list = expectStatus(await browser.post('/v1/lists', { name: 'Shared' }, browser.csrf()), 201);
      expectStatus(
        await browser.post(`/v1/lists/${list.id}/members`, { userId: colleague.userId }, browser.csrf()),
        201,
      );
      const task = expectStatus(
        await browser.post('/v1/tasks', { title: 'Mine', taskListIds: [list.id] }, browser.csrf()),
        201,
      );

      const stream = await openEventStream(browser); // a stream of team one
      try {
        assert.equal(stream.status, 200, stream.body);
        expectStatus(await browser.post('/auth/team', { teamId: two.id }, browser.csrf()), 200);
        await deleteMember(server.store.db, one.id, one.owner.userId);

        const endedAt = await endWithin(stream, 7_500);
        if (endedAt === null) {
          // Show what staying open means: the team's events keep coming.
          expectStatus(await colleague.api.patch(`/v1/tasks/${task.id}`, { title: 'After removal' }), 200);
          await sleep(1_500);
          const leaked = stream.events.some((e) => e.type === 'task.updated');
          assert.fail(
            'the team-one event stream is still open 7.5 s after the user was removed from team one' +
              (leaked ? ', and it received task.updated of that team afterwards' : ''),
          );
        }
      } finally {
        stream.close();
      }
    });
  });
});
