/**
 * The shared SSE parser (test/sse-parser.ts) that the soak and the multi-process event tests
 * count events with: a wrong split would show up there as missed or duplicated events.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser, type ParsedEvent } from './sse-parser.js';

function parse(chunks: string[]): { events: ParsedEvent[]; comments: string[] } {
  const events: ParsedEvent[] = [];
  const comments: string[] = [];
  const parser = new SseParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  for (const chunk of chunks) parser.feed(chunk);
  return { events, comments };
}

const STREAM =
  'retry: 2000\n: connected\n\n' +
  'id: 7\nevent: task.created\ndata: {"taskId":1}\n\n' +
  ': ping\n\n' +
  'id: 8\r\nevent: task.updated\r\ndata: {"taskId":1}\r\n\r\n' +
  'data: first\ndata:second\n\n';

const EXPECTED: ParsedEvent[] = [
  { id: '7', event: 'task.created', data: '{"taskId":1}' },
  { id: '8', event: 'task.updated', data: '{"taskId":1}' },
  // No id field: the event keeps the stream's last event id; no event field: "message".
  { id: '8', event: 'message', data: 'first\nsecond' },
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
  // The id of the data-less block still becomes the last event id.
  assert.deepEqual(events, [{ id: '9', event: 'message', data: 'x' }]);
});
