/**
 * Caps on open event streams, so one credential (or everyone together) cannot hold streams until
 * the process runs out of memory or file descriptors. A stream counts from the moment it is
 * admitted, before its reply is taken over, until its response closes, however it ends (the
 * client left, it was cut off or ended), so a count can never leak.
 *
 * Counts are this process's own: with N processes a credential may hold up to N × the cap.
 */
import type { ServerResponse } from 'node:http';
import type { Caller } from '../caller.js';
import { AppError } from '../http/errors.js';

export interface StreamCaps {
  /** Streams one API key or web session may hold open on this process. */
  perCredential: number;
  /** Streams this process holds open in all. */
  perProcess: number;
}

/** Seconds a client refused for a full process is asked to wait (a load balancer may send it elsewhere). */
const FULL_RETRY_AFTER_SECONDS = 5;

export class StreamLimits {
  private readonly byCredential = new Map<string, number>();
  private total = 0;

  constructor(readonly caps: StreamCaps) {}

  /** Open streams counted on this process. */
  get open(): number {
    return this.total;
  }

  /**
   * Counts a new stream on `res` until the response closes, or throws the refusal (429 for the
   * credential's cap, 503 for the process's) and counts nothing.
   */
  admit(caller: Caller, res: ServerResponse): void {
    const credential = `${caller.credential.kind}:${caller.credential.id}`;
    const held = this.byCredential.get(credential) ?? 0;
    if (held >= this.caps.perCredential) {
      const holder = caller.credential.kind === 'key' ? 'This API key' : 'This session';
      throw new AppError(
        'rateLimited',
        `${holder} already has ${held} open event streams, the most allowed; close one before opening another.`,
      );
    }
    if (this.total >= this.caps.perProcess) {
      throw new AppError(
        'unavailable',
        `The server holds as many event streams as it allows (${this.caps.perProcess}). Try again shortly.`,
        { 'retry-after': String(FULL_RETRY_AFTER_SECONDS) },
      );
    }
    this.byCredential.set(credential, held + 1);
    this.total++;

    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.byCredential.get(credential)! - 1;
      if (left === 0) this.byCredential.delete(credential);
      else this.byCredential.set(credential, left);
    };
    res.once('close', release);
    // A client that left before this request reached here has had its 'close' already.
    if (res.destroyed) release();
  }
}
