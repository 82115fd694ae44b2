import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../storage/database.js';

/** The Fastify instance routes are registered on, typed by our TypeBox schemas. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the HTTP layer needs from the outside world. */
export interface AppDeps {
  store: Store;
  config: Config;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The store this request's route works in: the app's store, or, for a POST with an
     * Idempotency-Key, the request's own transaction (idempotency-transaction.ts). Routes pass it
     * to services; they never keep a store of their own.
     */
    store: Store;
  }
  interface FastifyContextConfig {
    /**
     * The spec fixes one message for every 400 of some routes (`Invalid input.`,
     * `listId must be a number.`); when set, it replaces whatever detail the failure had.
     */
    invalidInputMessage?: string;
    /** False: the route ignores Idempotency-Key (a streamed upload; http/idempotency.ts). */
    idempotency?: boolean;
  }
}
