/**
 * What every tool shares: its declared scope, checked before it runs; its annotations; the
 * idempotency of the write tools; and the shape of its result (a short text ending with the
 * caller's access, and `structuredContent`). A service's refusal (AppError) is a tool error with
 * its message; anything else thrown is a bug, which the JSON-RPC answer reports as an internal
 * error (server.ts) and the log keeps.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
import type { Caller } from '../caller.js';
import type { KeyScope } from '../contract/keys.js';
import { AppError } from '../http/errors.js';
import type { Store } from '../storage/database.js';
import { missingScope } from '../keys/scopes.js';
import { toolError } from './tool-error.js';
import { runOnce } from './tool-idempotency.js';

/** What a tool runs with: the request's store (its changes re-check the caller) and caller. */
export interface ToolContext {
  readonly store: Store;
  readonly caller: Caller;
  /** The key the request authenticated with: idempotency records are sealed under it. */
  readonly credentialSecret: string;
  /** The caller's access in words (access.ts), read at most once per request. */
  readonly access: () => Promise<string>;
  readonly log: FastifyBaseLogger;
  /** The JSON-RPC ids of calls that failed with a bug: answered as internal errors (server.ts). */
  readonly failed: Set<RequestId>;
}

/** A tool's answer before the access line: a short text and the data it summarizes. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
}

/** A refusal that is the agent's to act on (bad input, a stale version): a tool error. */
export class ToolRefusal extends Error {
  constructor(
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Shape = z.ZodRawShape;

export interface ToolSpec<S extends Shape> {
  name: string;
  title: string;
  description: string;
  scope: KeyScope;
  annotations: Required<Pick<ToolAnnotations, 'readOnlyHint' | 'destructiveHint' | 'idempotentHint'>>;
  input: S;
  /** A write: it takes `idempotencyKey`, and a retry with the same key answers the first result. */
  writes?: boolean;
  run(context: ToolContext, args: z.objectOutputType<S, z.ZodTypeAny>, store: Store): Promise<ToolAnswer>;
}

/** The printable ASCII key a client may send, as Idempotency-Key allows (http/idempotency.ts). */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x20-\x7e]{1,255}$/, 'idempotencyKey must be 1 to 255 printable ASCII characters.')
  .describe(
    'Any unique string (a UUID) for this change. A retry with the same key and arguments answers the first ' +
      'result and writes nothing again. Send one on every write.',
  );

/** Identity of the declaration, with the argument types inferred. */
export const defineTool = <S extends Shape>(spec: ToolSpec<S>): ToolSpec<S> => spec;

/** Registers `spec` on `server`, each call run as `context`. */
export function registerTool<S extends Shape>(server: McpServer, context: ToolContext, spec: ToolSpec<S>): void {
  const input = spec.writes ? { ...spec.input, idempotencyKey: IdempotencyKey.optional() } : spec.input;
  server.registerTool(
    spec.name,
    {
      title: spec.title,
      description: `${spec.description} Scope: ${spec.scope}.`,
      inputSchema: input,
      annotations: { title: spec.title, ...spec.annotations, openWorldHint: false },
      _meta: { 'tasklane/scope': spec.scope },
    },
    (async (args: Record<string, unknown>, extra: { requestId: RequestId }) => {
      try {
        // Before anything runs: an out-of-scope call reads and changes nothing.
        const refusal = missingScope(context.caller, spec.scope);
        if (refusal) return toolError(refusal);
        // Read before any transaction opens: on SQLite a read beside an open transaction would wait for it.
        const access = await context.access();
        const { idempotencyKey, ...rest } = args as { idempotencyKey?: string };
        const call = (store: Store) => answer(context, spec, rest, store, access);
        if (spec.writes && idempotencyKey !== undefined) {
          return await runOnce(context, { tool: spec.name, key: idempotencyKey, args: rest }, call);
        }
        return await call(context.store);
      } catch (error) {
        // Refused around the tool's own work (the caller re-read as its transaction began: a key
        // revoked meanwhile): a tool error too.
        if (error instanceof AppError) return toolError(error.message);
        context.log.error({ err: error, tool: spec.name }, 'MCP tool failed');
        context.failed.add(extra.requestId);
        throw new Error('Internal server error.');
      }
    }) as never,
  );
}

/** One run of the tool: its answer, or its refusal as a tool error; throws only for a bug. */
async function answer<S extends Shape>(
  context: ToolContext,
  spec: ToolSpec<S>,
  args: Record<string, unknown>,
  store: Store,
  access: string,
): Promise<CallToolResult> {
  try {
    const { text, data } = await spec.run(context, args as never, store);
    return {
      content: [{ type: 'text', text: `${text}\n(${access})` }],
      structuredContent: { ...data, access },
    };
  } catch (error) {
    if (error instanceof ToolRefusal) return toolError(error.message, error.data);
    if (error instanceof AppError) return toolError(error.message);
    throw error;
  }
}
