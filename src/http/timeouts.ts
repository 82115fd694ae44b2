/**
 * Slow clients cannot hold the server: bounds on how long a client may take to send its
 * headers and its whole request, on how long a connection may stay silent while a request is
 * open, and on how long an idle keep-alive connection is kept. Event streams are not cut: their
 * request is complete once its headers arrive, and their heartbeat keeps the connection busy.
 * The whole request's bound is each request's own (body-deadline.ts), so that an upload may be
 * given longer; Node's server-wide one is only a backstop at the longest.
 */
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';

type TimeoutConfig = Pick<
  Config,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'connectionTimeoutMs' | 'keepAliveTimeoutMs' | 'attachments'
>;

/** Applies the timeouts to the HTTP server; call before `listen`. */
export function applyTimeouts(server: Server, config: TimeoutConfig): void {
  server.headersTimeout = config.headersTimeoutMs;
  // A backstop: every request's own deadline (body-deadline.ts) is at most this.
  server.requestTimeout = Math.max(config.requestTimeoutMs, config.attachments.uploadTimeoutMs);
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.setTimeout(config.connectionTimeoutMs);
  // Node looks for expired headers and requests only this often (30 s by default), so a check
  // every quarter of the shortest bound keeps the real cut within 25% of the configured one.
  // Node reads it when the server starts listening (its types do not declare the property).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    25,
    Math.min(1_000, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
  );
}

/** The answer to a request that did not arrive in time, from Node's check or from body-deadline.ts. */
export const REQUEST_TIMEOUT = {
  status: 408,
  message: 'The request took too long to arrive; send the headers and body without pausing.',
};

/** Answers for failures Node detects before a request reaches Fastify. */
const CLIENT_ERRORS: Record<string, { status: number; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: REQUEST_TIMEOUT,
  HPE_HEADER_OVERFLOW: {
    status: 431,
    message: `The request line and headers are too large (at most ${Math.floor(maxHeaderSize / 1024)} KiB together).`,
  },
};
const MALFORMED = { status: 400, message: 'The request is not valid HTTP.' };

/**
 * Fastify's `clientErrorHandler`: a malformed request, oversized headers or a request that
 * took too long are answered with `{"error"}` (not Node's bare status line) and the connection
 * is closed, as it cannot carry another request.
 */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, message } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
  this.log.debug({ code: error.code }, 'client error');
  answerAndClose(socket, status, message);
}

/**
 * Writes `{"error"}` with `status` straight to the socket, if no response to this connection has
 * started (as Node itself does), and closes it: the connection cannot carry another request.
 */
export function answerAndClose(socket: Socket, status: number, message: string): void {
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (socket.writable && !started) {
    const body = JSON.stringify({ error: message });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'X-Content-Type-Options: nosniff\r\n' +
        'Cache-Control: no-store\r\n' +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
