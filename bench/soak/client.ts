/**
 * One HTTP request of the soak, sent to a process the balancer picked, recorded in the ledger
 * with its outcome and times. A request that gets no answer (the process was killed, the
 * connection reset) has an unknown outcome: it is counted as such, never as lost.
 */
import http from 'node:http';
import type { Fleet, Member } from './fleet.js';
import { isErrorBody, now, type Ledger, type Ms, type Op } from './ledger.js';

export interface Request {
  op: Op;
  method: string;
  path: string;
  expected: number;
  key?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

export interface Result {
  /** The answer, or undefined when none came (then `error` says why). */
  answer?: Answer;
  error?: string;
  member: string;
  sentAt: Ms;
  doneAt: Ms;
}

/** Longer than the server's own bounds (statement timeout 10 s, pool wait 15 s). */
const TIMEOUT_MS = 40_000;

function exchange(member: Member, request: Request): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const headers: http.OutgoingHttpHeaders = { ...request.headers };
    if (request.key !== undefined) headers['x-api-key'] = request.key;
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const req = http.request(
      {
        host: member.url.hostname,
        port: member.url.port,
        method: request.method,
        path: request.path,
        agent: member.agent,
        headers,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('response aborted')));
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Sends `request` to the next live process and records it; a request that finds no live
 * process waits for one (the balancer has nowhere to send it).
 */
export async function send(fleet: Fleet, ledger: Ledger, request: Request): Promise<Result> {
  let member = fleet.pick();
  while (!member) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    member = fleet.pick();
  }
  const sentAt = now();
  let result: Result;
  try {
    const answer = await exchange(member, request);
    result = { answer, member: member.label, sentAt, doneAt: now() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    result = { error: code, member: member.label, sentAt, doneAt: now() };
  }
  const outcome = result.answer ? result.answer.status : `connection error (${result.error})`;
  ledger.record({
    op: request.op,
    member: member.label,
    expected: request.expected,
    outcome,
    sentAt,
    doneAt: result.doneAt,
  });
  const status = result.answer?.status ?? 0;
  if (status >= 400 && status < 500 && !isErrorBody(result.answer!.text)) {
    ledger.finding(
      `${request.method} ${request.path} on ${member.label} answered ${status} with a body other than {"error": …}: ` +
        result.answer!.text.slice(0, 200),
    );
  }
  return result;
}

/** The outcome is unknown: no answer, or a 5xx (the server may have committed before failing). */
export const inDoubt = (result: Result): boolean => !result.answer || result.answer.status >= 500;
