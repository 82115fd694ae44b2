/**
 * One HTTP request exactly as given: the path is sent byte for byte (no URL normalisation,
 * so `..`, `%00` and repeated parameters reach the server as written), the body is raw text,
 * and an event stream is answered with its status and headers and then closed.
 */
import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query string, already encoded as they should go on the wire. */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
  /** The server answered with an event stream (closed by us after the headers). */
  stream: boolean;
  /** The path (and query) it answers. */
  path?: string;
}

/** Sends the request to `baseUrl` (`http://host:port`) and reads the whole answer. */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const timeoutMs = request.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        // A new connection each time: a server that closes a connection after an error must
        // not make the next request fail on a stale reused socket.
        agent: false,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: {
          ...request.headers,
          ...(request.body !== undefined ? { 'content-length': String(Buffer.byteLength(request.body)) } : {}),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          req.destroy();
          resolve({ status, headers: res.headers, text: '', body: undefined, stream: true, path: request.path });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status, headers: res.headers, text, body, stream: false, path: request.path });
        });
      },
    );
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`${request.method} ${request.path.slice(0, 200)}: no answer within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** Why a 4xx body is not exactly `{"error": "<non-empty string>"}` in JSON, or undefined when it is. */
/** The routes whose 400s are OAuth's `{error, error_description}` (docs/api.md, "OAuth for MCP clients"). */
const OAUTH_ERROR_PATH = /^\/oauth\/(?:register|token)(?:\?|$)/;

export function errorBodyProblem(response: RawResponse): string | undefined {
  if (response.status < 400) return undefined;
  if (!String(response.headers['content-type']).startsWith('application/json')) {
    return `content-type is ${response.headers['content-type']}, not application/json`;
  }
  const body = response.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  const keys = Object.keys(body);
  // OAuth's registration and token endpoints answer in their standards' shape (RFC 7591 §3.2.2,
  // RFC 6749 §5.2; docs/api.md): `error` a code, `error_description` the message. A 429 of the
  // rate limit comes before them and is the house's.
  if (OAUTH_ERROR_PATH.test(response.path ?? '') && response.status === 400) {
    if (keys.sort().join() !== 'error,error_description') {
      return `the body has the fields ${JSON.stringify(keys)}, not {"error", "error_description"} (OAuth)`;
    }
    if (!/^[a-z_]+$/.test(String(body.error))) return 'error is not an OAuth error code';
    return typeof body.error_description === 'string' && body.error_description.trim() !== ''
      ? undefined
      : 'error_description is not a non-empty string';
  }
  if (keys.length !== 1 || keys[0] !== 'error')
    return `the body has the fields ${JSON.stringify(keys)}, not just "error"`;
  if (typeof body.error !== 'string' || body.error.trim() === '') return 'error is not a non-empty string';
  return undefined;
}

/** The response in a line, for assertion messages. */
export function showRaw(response: RawResponse): string {
  const text = response.stream ? '<event stream>' : response.text;
  return `${response.status} ${text.length > 500 ? `${text.slice(0, 500)}…` : text}`;
}
