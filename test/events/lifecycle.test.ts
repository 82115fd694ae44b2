/**
 * Realtime events: a stream's life. Heartbeats, refusals of bad keys, the credential recheck
 * (revoked key, removed member), and clients that leave while their stream is being set up.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { insertKey, revokeKey } from '../../src/keys/keys.repository.js';
import { deleteMember } from '../../src/team/teams.repository.js';
import { createTestTeam } from '../factories.js';
import type { TestServer } from '../harness.js';
import { closeAllStreams, openStream, show } from '../sse/stream.js';
import { created, live, startEventsServer, stopEventsServer, TIMEOUT, waitUntil, type Person } from './support.js';

describe('realtime events (GET /v1/events): heartbeats, credentials, clients that leave', () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

  test('a stream opened without Last-Event-ID gets heartbeats and every later change', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const stream = await openStream(server, team.owner.key, { label: 'fresh' });
    assert.equal(stream.status, 200);
    await stream.waitForComment('ping', 2_500);
    const list = created(await team.owner.api.post('/v1/lists', { name: 'After the first ping' })).id;
    assert.equal(show(await stream.next()), `taskList.created ${list}`);
    const pings = stream.comments.filter((c) => c === 'ping').length;
    await stream.waitForComment('ping', 2_500, stream.comments.length);
    assert.ok(stream.comments.filter((c) => c === 'ping').length > pings);
    stream.close();
  });

  // A client that disconnects while the server is still authenticating or attaching its stream
  // must not stay in the hub (it would be written to, counted and rechecked forever).
  test('a client that leaves while its stream is being set up leaves nothing behind', TIMEOUT, async () => {
    closeAllStreams();
    await waitUntil('earlier streams are gone', () => server.app.hub.size === 0, 3_000);
    const team = await createTestTeam(server);
    const { port } = new URL(server.url);
    const request = `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${team.owner.key}\r\n\r\n`;
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.on('error', () => {});
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
        socket.write(request);
        // Half of them say goodbye properly, half just vanish.
        if (i % 2 === 0) socket.end();
        await sleep(i % 2 === 0 ? 50 : 0);
        socket.destroy();
      }),
    );
    await sleep(300);
    await waitUntil(
      `the hub forgot the streams of clients that left (still holds ${server.app.hub.size})`,
      () => server.app.hub.size === 0,
      3_000,
    );
  });

  test('GET /v1/events refuses a missing, unknown or revoked key', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const m = await team.member();
    await revokeKey(server.store.db, m.keyId);
    for (const key of ['', 'tl_nope_nope', m.key]) {
      const stream = await openStream(server, key, { label: 'refused' });
      assert.equal(stream.status, 401, stream.body);
      stream.close();
    }
  });

  test('a revoked key or a removed member loses the stream within seconds; others keep theirs', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const revoked = await team.member();
    const removed = await team.member();
    const second = await insertKey(server.store.db, { teamId: team.id, userId: revoked.userId, name: 'kept' });
    const keptKey: Person = { ...revoked, key: second.key, keyId: second.record.id };
    const list = created(await team.owner.api.post('/v1/lists', { name: 'L' })).id;
    for (const who of [revoked, removed]) {
      created(await team.owner.api.post(`/v1/lists/${list}/members`, { userId: who.userId }));
    }
    const revokedStream = await live(server, revoked, 'revoked key');
    const removedStream = await live(server, removed, 'removed member');
    const keptStream = await live(server, keptKey, 'other key of the same user');
    const ownerStream = await live(server, team.owner, 'owner');

    await revokeKey(server.store.db, revoked.keyId);
    await deleteMember(server.store.db, team.id, removed.userId);
    const started = Date.now();
    await Promise.all([revokedStream.waitClosed(7_000), removedStream.waitClosed(7_000)]);
    assert.ok(Date.now() - started < 7_000);
    assert.equal(keptStream.ended, false, 'the same user’s other key must keep its stream');
    assert.equal(ownerStream.ended, false);

    const task = created(await team.owner.api.post('/v1/tasks', { title: 'after', taskListIds: [list] })).id;
    assert.equal(show(await keptStream.next()), `task.created ${task}`);
    assert.equal(show(await ownerStream.next()), `task.created ${task}`);
    for (const key of [revoked.key, removed.key]) {
      const again = await openStream(server, key, { label: 'reconnect' });
      assert.equal(again.status, 401, again.body);
      again.close();
    }
    keptStream.close();
    ownerStream.close();
  });
});
