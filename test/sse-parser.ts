/**
 * An incremental text/event-stream parser (the parts of the HTML spec's algorithm that
 * /v1/events uses): feed it chunks as they arrive and it calls back once per complete event
 * and per `:` comment. It keeps no history, so a client holding hundreds of streams for minutes
 * (the soak) can use it as well as a test that records every event.
 */

export interface ParsedEvent {
  /** The last event id seen on this stream (the spec's "last event ID"), if any. */
  id: string | undefined;
  /** The `event` field, or `message` when absent. */
  event: string;
  /** The `data` lines joined with newlines. */
  data: string;
}

export interface SseHandlers {
  onEvent(event: ParsedEvent): void;
  /** The text after the `:`, trimmed (`connected`, `ping`). */
  onComment?(text: string): void;
}

export class SseParser {
  private buffer = '';
  private field: { id?: string; event?: string; data: string[] } = { data: [] };
  private lastId: string | undefined;

  constructor(private readonly handlers: SseHandlers) {}

  /** Parses whatever complete lines `chunk` finishes; a partial line waits for the next chunk. */
  feed(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      let line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      const { id, event, data } = this.field;
      this.field = { data: [] };
      if (id !== undefined) this.lastId = id;
      if (data.length === 0) return; // a block without data dispatches nothing (spec)
      this.handlers.onEvent({ id: this.lastId, event: event ?? 'message', data: data.join('\n') });
      return;
    }
    if (line.startsWith(':')) {
      this.handlers.onComment?.(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'id') this.field.id = value;
    else if (name === 'event') this.field.event = value;
    else if (name === 'data') this.field.data.push(value);
    // `retry` and unknown fields are ignored, as EventSource does
  }
}
