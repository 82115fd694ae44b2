/**
 * How long a request may take to arrive whole: REQUEST_TIMEOUT_MS from its headers, kept per
 * request rather than by Node's server-wide `requestTimeout`, so that a route may give one request
 * longer once it knows the request is allowed: an attachment's upload, after its caller's access
 * to the task is checked (ATTACHMENTS_UPLOAD_TIMEOUT_MS). Nobody else's body gets longer: an
 * unauthenticated or refused upload keeps the short deadline, and a stalled one is still cut by
 * CONNECTION_TIMEOUT_MS (timeouts.ts). Past its deadline a request is answered as Node would:
 * 408 `{"error"}` and the connection closed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { answerAndClose, REQUEST_TIMEOUT } from './timeouts.js';

const deadlines = new WeakMap<IncomingMessage, NodeJS.Timeout>();

function setDeadline(request: IncomingMessage, response: ServerResponse, ms: number): void {
  const previous = deadlines.get(request);
  clearTimeout(previous);
  if (request.complete) return;
  if (previous === undefined) request.once('close', () => clearTimeout(deadlines.get(request)));
  const timer = setTimeout(() => {
    if (request.complete || request.socket.destroyed) return;
    // Answered already (a refusal before the body): just stop reading the rest.
    if (response.headersSent) request.socket.destroy();
    else answerAndClose(request.socket, REQUEST_TIMEOUT.status, REQUEST_TIMEOUT.message);
  }, ms);
  timer.unref();
  deadlines.set(request, timer);
}

/** The `onRequest` hook that starts each request's deadline (REQUEST_TIMEOUT_MS). */
export function bodyDeadline(requestTimeoutMs: number) {
  return function startBodyDeadline(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    setDeadline(request.raw, reply.raw, requestTimeoutMs);
    done();
  };
}

/** Gives this request's body `ms` from now to arrive, instead of what is left of REQUEST_TIMEOUT_MS. */
export function extendBodyDeadline(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  setDeadline(request.raw, reply.raw, ms);
}
