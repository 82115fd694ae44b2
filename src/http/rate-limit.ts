/**
 * Rate limiting (RATE_LIMIT_PER_MINUTE; 0 turns every budget here off):
 * - requests behind authentication count against their credential (an API key or a session),
 *   after authentication has found it; requests without a valid one count against the client
 *   address, and so do public routes (sign-in, docs, the web app) and unknown /v1 paths;
 * - failed authentication from one address also spends a stricter budget, min(limit, 60) a minute;
 * - a wrong password also spends its account's budget, min(limit, 10) a minute from all addresses.
 *   Password attempts are counted before the password is hashed (see FailedAuthBudget).
 *
 * Counting after authentication means a random invalid key per request still spends the
 * address's budget, and someone else's failures behind the same address (a NAT, a proxy) never
 * spend a valid key's. Every counted response carries RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset (the IETF draft's names); a refused one is 429 {"error"} with Retry-After.
 * If the counters cannot be reached, requests go unlimited rather than fail (see `Budget`).
 */
import { isIPv6 } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { openCounterStore, type CounterStore } from '../storage/rate-limit-counters.js';
import type { App, AppDeps } from './app-types.js';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Marks routes behind authentication: they are counted by credential, once it is known. */
    countedByCredential?: boolean;
    /** `false` exempts a route from every budget (the health check). */
    rateLimit?: false;
  }
}

const WINDOW_MS = 60_000;
/** The failed-authentication budget never exceeds this many a minute per address. */
const FAILED_AUTH_PER_MINUTE = 60;
/**
 * Wrong passwords a minute for one account, from all addresses together: it stops guessing
 * spread over many addresses. The window is short so that someone who spends it to lock the
 * real owner out achieves at most a minute's wait after they stop (and never touches the
 * owner's open sessions or API keys); to keep it locked they must keep failing, which is all
 * the guessing it allows, 10 a minute.
 */
const FAILED_PASSWORDS_PER_ACCOUNT_PER_MINUTE = 10;

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** How much of one budget a bucket has used in its current window. */
interface Usage {
  readonly limit: number;
  readonly hits: number;
  readonly msLeft: number;
  /** What a refused request is told. */
  readonly refusal: string;
}

const secondsUntil = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
const secondsLeft = (usage: Usage) => secondsUntil(usage.msLeft);
const isSpent = (usage: Usage) => usage.hits > usage.limit;

/** `limit` requests a window per bucket, counted in shared counters. */
class Budget {
  constructor(
    private readonly counters: CounterStore,
    private readonly prefix: string,
    readonly limit: number,
    private readonly refusal: (limit: number, seconds: number) => string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Counts one request against `key`. */
  spend(key: string, log = this.log): Promise<Usage | undefined> {
    return this.read(() => this.counters.hit(this.prefix + key), log);
  }

  /** Takes back one request counted against `key` (a reservation that turned out not to be needed). */
  async refund(key: string, log = this.log): Promise<void> {
    await this.counters.refund(this.prefix + key).catch((error: unknown) => {
      log.warn({ err: error }, 'rate limit counters unavailable: reservation not refunded');
    });
  }

  /**
   * Undefined when the counters cannot be read or written (PostgreSQL down): the request then
   * goes unlimited instead of failing. Every /v1 request reads the database to authenticate, so an
   * outage already answers 503 there; failing closed here would add nothing but a second way to
   * refuse everybody when only the counters' statement is slow.
   */
  private async read(
    count: () => Promise<{ hits: number; msLeft: number }>,
    log: FastifyBaseLogger,
  ): Promise<Usage | undefined> {
    try {
      const { hits, msLeft } = await count();
      return { limit: this.limit, hits, msLeft, refusal: this.refusal(this.limit, secondsUntil(msLeft)) };
    } catch (error) {
      log.warn({ err: error }, 'rate limit counters unavailable: request not limited');
      return undefined;
    }
  }
}

/**
 * The address a per-address budget counts: IPv4 as it is (also when mapped into IPv6), IPv6 by
 * its /64, which one host or household usually holds whole.
 */
export function budgetAddress(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const address = ip.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

const addressOf = (request: FastifyRequest) => budgetAddress(request.ip ?? 'unknown');

/** A password attempt counted in advance: `succeeded()` gives it back when the password was right. */
export interface PasswordAttempt {
  succeeded(): Promise<void>;
}

/**
 * The stricter budgets for failed authentication: per address (API keys, sessions and
 * passwords alike) and, for passwords, per account.
 */
export class FailedAuthBudget {
  constructor(
    private readonly byAddress: Budget | null,
    private readonly byAccount: Budget | null,
  ) {}

  /**
   * Counts a password attempt against the address's and the account's budgets *before* the
   * password is hashed, throwing 429 if either is spent. Counting first is what makes the
   * budgets hold under concurrency: every attempt in a parallel burst is counted before any of
   * them reaches the hash. A right password gives its count back, so only failures spend.
   */
  async reservePasswordAttempt(address: string, account: string, log?: FastifyBaseLogger): Promise<PasswordAttempt> {
    return this.reserve(address, account, log);
  }

  /**
   * Counts an attempt with a secret token (an invitation link's) against the address's budget,
   * as a refused key counts, but before the token is looked up, so a burst is held to the budget
   * exactly; throws 429 if it is spent. A token that turns out good gives its count back.
   */
  async reserveTokenAttempt(address: string, log?: FastifyBaseLogger): Promise<PasswordAttempt> {
    return this.reserve(address, null, log);
  }

  private async reserve(address: string, account: string | null, log?: FastifyBaseLogger): Promise<PasswordAttempt> {
    const addressKey = budgetAddress(address);
    const addressUsage = await this.byAddress?.spend(addressKey, log);
    if (addressUsage && isSpent(addressUsage)) throw refuse(addressUsage);
    const accountUsage = account === null ? undefined : await this.byAccount?.spend(account, log);
    if (accountUsage && isSpent(accountUsage)) throw refuse(accountUsage);
    return {
      succeeded: async () => {
        if (addressUsage) await this.byAddress!.refund(addressKey, log);
        if (accountUsage) await this.byAccount!.refund(account!, log);
      },
    };
  }

  /** Counts one failure from the address (a refused key or session), and returns the address's usage after it. */
  async recordFailure(address: string, log?: FastifyBaseLogger): Promise<Usage | undefined> {
    return this.byAddress?.spend(budgetAddress(address), log);
  }
}

export interface RateLimiter {
  readonly failedAuth: FailedAuthBudget;
  /** The counters every budget counts in (null when rate limiting is off), for their pruning job. */
  readonly counters: CounterStore | null;
  /** Adds `authenticate` as `scope`'s onRequest hook, counting each request once it knows who sent it. */
  addAuthenticationHook(scope: App, authenticate: Hook): void;
}

/** Sets up the budgets of `config.rateLimitPerMinute` and counts every public request by address. */
export function registerRateLimit(app: App, { store, config }: AppDeps): RateLimiter {
  const perMinute = config.rateLimitPerMinute;
  if (perMinute === 0) {
    return {
      failedAuth: new FailedAuthBudget(null, null),
      counters: null,
      addAuthenticationHook: (scope, authenticate) => scope.addHook('onRequest', authenticate),
    };
  }

  const counters = openCounterStore(store, WINDOW_MS);
  const requests = (prefix: string) =>
    new Budget(
      counters,
      prefix,
      perMinute,
      (limit, seconds) => `Too many requests: the limit is ${limit} a minute. Try again in ${seconds} seconds.`,
      app.log,
    );
  const byCredential = requests('');
  const byAddress = requests('address:');
  const failedAuth = new FailedAuthBudget(
    new Budget(
      counters,
      'failed-auth:',
      Math.min(perMinute, FAILED_AUTH_PER_MINUTE),
      (_limit, seconds) =>
        `Too many failed authentication attempts from your address. Try again in ${seconds} seconds.`,
      app.log,
    ),
    new Budget(
      counters,
      'failed-password:',
      Math.min(perMinute, FAILED_PASSWORDS_PER_ACCOUNT_PER_MINUTE),
      (_limit, seconds) => `Too many failed sign-ins for this account. Try again in ${seconds} seconds.`,
      app.log,
    ),
  );

  // Public routes and unknown paths (404s included) have no credential: count their address.
  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.config;
    if (route.rateLimit === false || route.countedByCredential) return;
    enforce(reply, [await byAddress.spend(addressOf(request), request.log)]);
  });

  return {
    failedAuth,
    counters,
    addAuthenticationHook(scope, authenticate) {
      scope.addHook('onRoute', (route) => {
        route.config = { ...route.config, countedByCredential: true };
      });
      scope.addHook('onRequest', async (request, reply) => {
        try {
          await authenticate(request, reply);
        } catch (failure) {
          const address = addressOf(request);
          const byItsAddress = await byAddress.spend(address, request.log);
          // One budget after the other, not both at once: under concurrency two counters could
          // each refuse a different request at the boundary, admitting fewer than either allows.
          const failedAuthentication = failure instanceof AppError && failure.kind === 'unauthorized';
          const failures =
            failedAuthentication && !(byItsAddress && isSpent(byItsAddress))
              ? await failedAuth.recordFailure(address, request.log)
              : undefined;
          enforce(reply, [byItsAddress, failures]);
          throw failure;
        }
        const { kind, id } = request.caller.credential;
        enforce(reply, [await byCredential.spend(`${kind}:${id}`, request.log)]);
      });
    },
  };
}

/**
 * Announces the budget that decides this request (a spent one, else the one with the fewest
 * requests left) in RateLimit-* headers, and throws 429 if it is spent.
 */
function enforce(reply: FastifyReply, usages: (Usage | undefined)[]): void {
  const known = usages.filter((usage): usage is Usage => usage !== undefined);
  const spent = known.filter(isSpent).sort((a, b) => b.msLeft - a.msLeft)[0];
  const deciding = spent ?? known.sort((a, b) => a.limit - a.hits - (b.limit - b.hits))[0];
  if (!deciding) return;
  // On the raw response: /v1/events takes over the reply and writes its own head, which Node
  // merges with headers set here (Fastify's own header list would be lost).
  for (const [name, value] of Object.entries(limitHeaders(deciding))) reply.raw.setHeader(name, value);
  if (spent) throw refuse(spent);
}

function limitHeaders(usage: Usage): Record<string, string> {
  return {
    'ratelimit-limit': String(usage.limit),
    'ratelimit-remaining': String(Math.max(0, usage.limit - usage.hits)),
    'ratelimit-reset': String(secondsLeft(usage)),
  };
}

function refuse(usage: Usage): AppError {
  return new AppError('rateLimited', usage.refusal, {
    ...limitHeaders(usage),
    'retry-after': String(secondsLeft(usage)),
  });
}
