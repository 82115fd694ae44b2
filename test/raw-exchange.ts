/**
 * A conversation over a raw TCP connection, for tests of what the server does to slow, stalled or
 * malformed clients: write what you like, when you like, and see every byte the server answered
 * and when it closed the connection.
 */
import net from 'node:net';

/** What a raw connection saw: every byte the server sent, and when (ms after connecting) it closed. */
export interface RawResult {
  text: string;
  closedAfterMs: number | null;
}

/**
 * Opens a TCP connection, lets `talk` write to it, and collects the answer until the server
 * closes the connection or `waitMs` passes (then `closedAfterMs` is null).
 */
export function rawExchange(url: string, talk: (socket: net.Socket) => void, waitMs: number): Promise<RawResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    const started = Date.now();
    let text = '';
    const finish = (closedAfterMs: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedAfterMs });
    };
    const timer = setTimeout(() => finish(null), waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => {}); // a reset after the answer is still a close
    socket.on('close', () => finish(Date.now() - started));
    socket.on('connect', () => talk(socket));
  });
}

/** Splits a raw HTTP/1.1 answer into status and (de-chunked when needed) JSON body. */
export function parseAnswer(text: string): { status: number; body: unknown } {
  const [head = '', rest = ''] = text.split('\r\n\r\n', 2);
  const status = Number(head.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
  let payload = rest;
  if (/transfer-encoding: chunked/i.test(head)) {
    payload = '';
    for (let at = 0; ;) {
      const end = rest.indexOf('\r\n', at);
      const size = parseInt(rest.slice(at, end), 16);
      if (!size) break;
      payload += rest.slice(end + 2, end + 2 + size);
      at = end + 2 + size + 2;
    }
  }
  return { status, body: payload ? JSON.parse(payload) : undefined };
}
