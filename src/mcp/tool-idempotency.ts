/**
 * The write tools' `idempotencyKey`, kept in the Idempotency-Key store of the API
 * (http/idempotency-records.ts, sealed by http/idempotency-seal.ts): a call's change and its
 * saved result commit together in one transaction, so a retry with the same key and arguments
 * answers the first result and writes nothing; the same key with other arguments is refused.
 * Keys are the caller's credential's, as for the API, and kept apart from its Idempotency-Key
 * headers (`mcp:` before the key), so a tool call can never replay an HTTP answer or the reverse.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IDEMPOTENCY_TTL_MS, MESSAGES } from '../http/idempotency.js';
import { reserve, saveResponse } from '../http/idempotency-records.js';
import { IdempotencySeal } from '../http/idempotency-seal.js';
import { openRequestTransaction, storeInTransaction } from '../http/idempotency-transaction.js';
import type { Store } from '../storage/database.js';
import type { ToolContext } from './tool.js';
import { toolError } from './tool-error.js';

export const REUSED_KEY_MESSAGE =
  'This idempotencyKey was already used for a different call (another tool or other arguments). ' +
  'Use a new key for a new change.';

/** Runs `call` once per (credential, key): in one transaction with the key's record, or answers the record's result. */
export async function runOnce(
  context: ToolContext,
  request: { tool: string; key: string; args: Record<string, unknown> },
  call: (store: Store) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const { caller } = context;
  const seal = new IdempotencySeal(context.credentialSecret, `mcp:${request.key}`);
  const scope = {
    credential: `${caller.credential.kind}:${caller.credential.id}`,
    teamId: caller.teamId,
    keyHash: seal.keyHash,
  };
  const fingerprint = seal.fingerprint('MCP', `tools/call ${request.tool}`, request.args);
  // The request's store: the transaction confirms the caller first, as any change's does.
  const transaction = await openRequestTransaction(context.store);
  let result: CallToolResult;
  try {
    const now = new Date();
    const reservation = await reserve(
      transaction.trx,
      context.store.dialect,
      scope,
      fingerprint,
      now,
      new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
    );
    if (reservation.kind !== 'reserved') {
      await transaction.rollback();
      if (reservation.kind === 'busy' || reservation.response === null) return toolError(MESSAGES.inProgress);
      if (reservation.fingerprint !== fingerprint) return toolError(REUSED_KEY_MESSAGE);
      return replayed(JSON.parse(seal.open(reservation.response).body) as CallToolResult);
    }
    result = await call(storeInTransaction(context.store, transaction));
    await saveResponse(transaction.trx, scope, seal.seal({ status: 200, headers: {}, body: JSON.stringify(result) }));
  } catch (error) {
    await transaction.rollback();
    throw error;
  }
  // A failed commit throws: the agent is never told of a change that was not recorded.
  await transaction.commit();
  return result;
}

/** The first call's result again, marked as a replay: nothing was written this time. */
function replayed(result: CallToolResult): CallToolResult {
  const note = 'Replayed: this idempotencyKey was used before; nothing was changed now.';
  return {
    ...result,
    content: [...result.content, { type: 'text', text: note }],
    ...(result.structuredContent && { structuredContent: { ...result.structuredContent, replayed: true } }),
  };
}
