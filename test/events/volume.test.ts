/**
 * Realtime events in volume: a burst with several recipients per event reaches each of them once,
 * and a client that stops reading is cut off (back-pressure) while a reading one keeps up.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createTestTeam } from '../factories.js';
import { startTestServer, type TestServer } from '../harness.js';
import { closeAllStreams } from '../sse/stream.js';
import {
  assertContiguous,
  bulkEvents,
  latestSeq,
  live,
  startEventsServer,
  stopEventsServer,
  TIMEOUT,
  waitUntil,
} from './support.js';

describe('realtime events (GET /v1/events): bursts', () => {
  let server: TestServer;
  before(async () => {
    server = await startEventsServer();
  });
  after(() => stopEventsServer(server));

  // The hub reads live events in pages; a page must never end in the middle of one event's
  // recipients (3 recipients × 3000 events: a 5000-row page cuts event 1667).
  test('a burst of events with several recipients each reaches every recipient, once', TIMEOUT, async () => {
    const team = await createTestTeam(server);
    const people = [team.owner, await team.member(), await team.member()];
    const streams = await Promise.all(people.map((who, i) => live(server, who, `recipient ${i}`)));
    const { first, last } = await bulkEvents(
      server,
      team.id,
      3_000,
      people.map((p) => p.userId),
    );
    const problems: string[] = [];
    for (const stream of streams) {
      const events = await stream
        .collectUntil((e) => Number(e.id) >= last, 6_000)
        .catch((error) => {
          problems.push(String(error.message));
          return stream.events;
        });
      try {
        assertContiguous(stream.label, events, first, last);
      } catch (error) {
        problems.push((error as Error).message.split('\n')[0] + ': ' + JSON.stringify((error as any).actual));
      }
    }
    closeAllStreams();
    assert.deepEqual(problems, [], 'every recipient must get all 3000 events');
  });
});

describe('realtime events: back-pressure', () => {
  let server: TestServer;
  const sockets: net.Socket[] = [];
  before(async () => {
    server = await startTestServer({ EVENTS_MAX_BUFFER_BYTES: '1024' });
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await stopEventsServer(server);
  });

  test(
    'a client that stops reading is cut off; a reading client still gets every event',
    { timeout: 60_000 },
    async () => {
      const team = await createTestTeam(server);
      const u = team.owner;
      const start = await latestSeq(server, team.id);
      const reader = await live(server, u, 'reading stream');

      // A raw connection that sends its request and then never reads a byte.
      const { port } = new URL(server.url);
      const stalled = net.connect(Number(port), '127.0.0.1');
      sockets.push(stalled);
      stalled.on('error', () => {});
      await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
      stalled.write(
        `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\naccept: text/event-stream\r\n` +
          `x-api-key: ${u.key}\r\nlast-event-id: ${start}\r\n\r\n`,
      );
      stalled.pause();
      await waitUntil('both streams are open', () => server.app.hub.size === 2, 3_000);

      // Batches of events for u until the stalled stream overflows (the kernel's socket buffers
      // take a few MB first). The reading stream must keep up with every batch.
      const deadline = Date.now() + 40_000;
      let last = start;
      let batches = 0;
      while (server.app.hub.size === 2 && last - start < 150_000 && Date.now() < deadline) {
        ({ last } = await bulkEvents(server, team.id, 5_000, [u.userId]));
        batches++;
        await reader
          .waitFor((e) => Number(e.id) >= last, 10_000)
          .catch((error) => {
            assert.fail(`the reading stream did not get batch ${batches} (events up to ${last}): ${error.message}`);
          });
      }
      // Stalls are found by a sweep every second: allow it two sweeps.
      await waitUntil(
        `the stalled stream is cut off (still open after ${last - start} events)`,
        () => server.app.hub.size === 1,
        5_000,
      );
      assert.equal(reader.ended, false, 'the reading stream must not be cut off');
      assertContiguous(reader.label, reader.events, start + 1, last);

      // The reader goes on.
      const more = await bulkEvents(server, team.id, 10, [u.userId]);
      await reader.waitFor((e) => e.id === String(more.last), 5_000);
      assert.ok(batches >= 1);
    },
  );
});
