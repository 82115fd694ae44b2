/**
 * Requests that reach the server in the same moment (`together`), for suites of writes racing
 * each other: each request goes over its own connection, opened beforehand.
 */
import { once } from 'node:events';
import { connect } from 'node:net';

export interface Sent {
  method: 'PATCH' | 'DELETE' | 'POST';
  path: string;
  /** The API key; none when `headers` carry a session cookie instead. */
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  text: string;
  body: any;
  etag: string | undefined;
}

export const show = (sent: Sent, answer: Answer) => `${sent.method} ${sent.path} → ${answer.status} ${answer.text}`;

/**
 * Sends the requests at once: each goes over its own connection, opened first, with all but its
 * last byte written; then the last bytes of all go out together, so the server receives every
 * request complete in the same moment (and `alongside`, a change made directly on the store as
 * `tasklane admin` does, starts then too). Resolves to the answers in order.
 */
export async function together(
  baseUrl: string,
  requests: Sent[],
  alongside?: () => Promise<unknown>,
): Promise<Answer[]> {
  const { hostname, port } = new URL(baseUrl);
  const sockets = await Promise.all(
    requests.map(async () => {
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      return socket;
    }),
  );
  const answers = sockets.map((socket) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    return once(socket, 'close').then(() => parseAnswer(Buffer.concat(chunks).toString('utf8')));
  });
  const wire = requests.map((sent) => {
    const body = sent.body === undefined ? '' : JSON.stringify(sent.body);
    const headers = {
      host: 'tasklane',
      ...(sent.key && { 'x-api-key': sent.key }),
      connection: 'close',
      ...(body && { 'content-type': 'application/json' }),
      'content-length': String(Buffer.byteLength(body)),
      ...sent.headers,
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    return Buffer.from(`${sent.method} ${sent.path} HTTP/1.1\r\n${head.join('')}\r\n${body}`);
  });
  wire.forEach((bytes, i) => sockets[i]!.write(bytes.subarray(0, -1)));
  // Let the partial requests reach the server before the final bytes go out together.
  await new Promise((resolve) => setTimeout(resolve, 20));
  wire.forEach((bytes, i) => sockets[i]!.write(bytes.subarray(-1)));
  const [results] = await Promise.all([Promise.all(answers), alongside?.()]);
  return results;
}

function parseAnswer(raw: string): Answer {
  const headEnd = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, headEnd);
  const text = raw.slice(headEnd + 4);
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return {
    status: Number(head.slice(9, 12)) || 0,
    text: text || raw,
    body,
    etag: /^etag:\s*(.+)$/im.exec(head)?.[1]?.trim(),
  };
}

/** The statuses of the answers, sorted, e.g. [200, 412]. */
export const statuses = (answers: Answer[]) => answers.map((a) => a.status).sort((a, b) => a - b);
