/**
 * Password hashing: argon2id at OWASP's recommended parameters (19 MiB, 2 passes, 1 lane),
 * stored as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) so the parameters can
 * grow. Hashes made by earlier releases (`scrypt$N$r$p$salt$hash`) still verify, and say they
 * need a rehash, which sign-in then does.
 *
 * Every hash and verification waits for one of a few slots (see HashSlots): a password hash
 * is deliberately expensive, so a flood of sign-ins must queue for a bounded share of the CPU
 * instead of taking all of it from API requests.
 */
import { availableParallelism } from 'node:os';
import { scrypt, timingSafeEqual } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { AppError } from '../http/errors.js';

const ARGON2ID = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const CURRENT_PREFIX = `$argon2id$v=19$m=${ARGON2ID.memoryCost},t=${ARGON2ID.timeCost},p=${ARGON2ID.parallelism}$`;

/**
 * At most `size` hashes run at once; up to `queueLimit` more wait in arrival order, and past
 * that a caller is refused at once with 503 rather than waiting behind a flood.
 */
export class HashSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly size: number,
    readonly queueLimit: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) {
      if (this.waiting.length >= this.queueLimit) {
        throw new AppError('unavailable', 'The server is busy checking other passwords. Try again in a moment.', {
          'retry-after': '1',
        });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await work();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer can never overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/**
 * Half the cores (at least one), so API requests always keep a core while passwords are
 * checked. 64 waiting per slot is a little over a second of queue at ~20 ms a hash: room for a
 * whole address's failed-authentication budget (60) arriving at once, never an unbounded wait.
 */
const slotCount = Math.max(1, Math.floor(availableParallelism() / 2));
export const hashSlots = new HashSlots(slotCount, 64 * slotCount);

const normalise = (password: string) => password.normalize('NFKC');

export function hashPassword(password: string): Promise<string> {
  return hashSlots.run(() => hash(normalise(password), ARGON2ID));
}

export interface Verification {
  ok: boolean;
  /** The stored hash uses an older scheme or weaker parameters: store a new one while the password is at hand. */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, stored: string): Promise<Verification> {
  const needsRehash = !stored.startsWith(CURRENT_PREFIX);
  if (stored.startsWith('$argon2id$')) {
    const ok = await hashSlots.run(() => verify(stored, normalise(password)).catch(() => false));
    return { ok, needsRehash };
  }
  if (stored.startsWith('scrypt$')) return { ok: await verifyScrypt(password, stored), needsRehash };
  return { ok: false, needsRehash };
}

/** Hashes from releases before argon2id: `scrypt$N$r$p$salt$hash`. */
async function verifyScrypt(password: string, stored: string): Promise<boolean> {
  const [, n, r, p, salt, expectedHash] = stored.split('$');
  if (!n || !r || !p || !salt || !expectedHash) return false;
  const expected = Buffer.from(expectedHash, 'base64');
  const options = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await hashSlots.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(
          normalise(password),
          Buffer.from(salt, 'base64'),
          expected.length,
          { ...options, maxmem: 256 * options.N * options.r },
          (error, key) => (error ? reject(error) : resolve(key)),
        ),
      ),
  );
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
