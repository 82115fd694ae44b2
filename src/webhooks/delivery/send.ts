/**
 * One HTTP attempt: POST the body to the checked address (destination.ts), never to whatever a
 * second DNS lookup would answer, with a deadline on the whole attempt, no redirects followed
 * (a 3xx is a failure like any non-2xx) and at most the first 4 KB of the answer kept.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Destination } from './destination.js';

/** The most of a response body the log keeps. */
export const RESPONSE_EXCERPT_BYTES = 4096;

export interface AttemptOutcome {
  /** The response's status, or null when none came (refused, timed out, reset). */
  status: number | null;
  /** The first 4 KB of the response body, as text. */
  body: string | null;
  /** Why no response came, or what went wrong reading it. */
  error: string | null;
}

/** The response body's first bytes as text a database will store (no NUL, no broken character at the cut). */
function excerpt(chunks: Buffer[]): string {
  // `stream` holds back a character the cut split, instead of writing it as U+FFFD.
  const text = new TextDecoder('utf-8').decode(Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES), {
    stream: true,
  });
  return text.replaceAll('\0', '\uFFFD');
}

/**
 * Sends one attempt. Resolves (never rejects) once the response has been read, `deadline.ms`
 * passed (what is left of the attempt's `timeoutMs`, which its failure names), or `signal`
 * aborted (the server is shutting down).
 */
export function post(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  deadline: { ms: number; timeoutMs: number },
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const { url, address, family } = destination;
  // Whatever name the socket asks for, it gets the address checked (the TLS name stays the host).
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as any)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      request.destroy();
      resolve(outcome);
    };
    const request = transport.request({
      method: 'POST',
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinned,
      agent: false,
    });
    const timer = setTimeout(
      () => finish({ status: null, body: null, error: `No answer within ${deadline.timeoutMs / 1000} s.` }),
      deadline.ms,
    );
    const onAbort = () => finish({ status: null, body: null, error: 'The server shut down during the attempt.' });
    signal?.addEventListener('abort', onAbort);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, body: null, error: describe(error) }));
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => finish({ status: response.statusCode ?? null, body: excerpt(chunks), error: null });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_EXCERPT_BYTES) done();
      });
      response.on('end', done);
      response.on('error', done);
    });
    request.end(body);
  });
}

/**
 * A connection failure in words, with the system's code, never with the address connected to
 * (a system error's own message quotes it, and the owner reading the log is not to learn it).
 */
function describe(error: NodeJS.ErrnoException): string {
  const known: Record<string, string> = {
    ECONNREFUSED: 'The connection was refused',
    ECONNRESET: 'The connection was reset',
    EHOSTUNREACH: 'The host is unreachable',
    ENETUNREACH: 'The network is unreachable',
    ETIMEDOUT: 'The connection timed out',
  };
  if (error.code && known[error.code]) return `${known[error.code]} (${error.code}).`;
  if (error.syscall) return `The connection failed (${error.code ?? error.syscall}).`;
  return error.message;
}
