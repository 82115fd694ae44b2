/**
 * The parsing under the shared SSE client (connection.ts, on eventsource-parser), which the soak
 * and the events benchmark count events with: a wrong split would show up there as missed or
 * duplicated events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEventParser, type SseEvent } from './connection.js';

function parse(chunks: string[]): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const parser = createEventParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, comments };
}

const STREAM =
  'retry: 2000\n: connected\n\n' +
  'id: 7\nevent: task.created\ndata: {"taskId":1}\n\n' +
  ': ping\n\n' +
  'id: 8\r\nevent: task.updated\r\ndata: {"taskId":1}\r\n\r\n' +
  'data: first\ndata:second\n\n';

const EXPECTED: SseEvent[] = [
  { id: '7', type: 'task.created', data: '{"taskId":1}' },
  { id: '8', type: 'task.updated', data: '{"taskId":1}' },
  // No id field: the event keeps the stream's last event id; no event field: "message".
  { id: '8', type: 'message', data: 'first\nsecond' },
];

test('events and comments come out the same however the stream is cut into chunks', () => {
  const whole = parse([STREAM]);
  assert.deepEqual(whole.events, EXPECTED);
  assert.deepEqual(whole.comments, ['connected', 'ping']);
  for (let size = 1; size <= 7; size++) {
    const chunks: string[] = [];
    for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
    assert.deepEqual(parse(chunks).events, EXPECTED, `chunks of ${size} characters`);
  }
});

test('an event is dispatched only at its blank line, and a block without data dispatches nothing', () => {
  assert.deepEqual(parse(['id: 9\nevent: task.deleted\ndata: {}\n']).events, []);
  const { events } = parse(['id: 9\nevent: sync.required\n\n', 'data: x\n\n']);
  // Nothing of the data-less block reaches the next event: not its type. (Its id would, as
  // EventSource's lastEventId; eventsource-parser 3 drops it. tasklane never sends one.)
  assert.deepEqual(
    events.map((e) => [e.type, e.data]),
    [['message', 'x']],
  );
});
