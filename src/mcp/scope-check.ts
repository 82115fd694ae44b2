/**
 * A tool's scope, checked against a scoped key's (issue 33).
 *
 * TO BE REPLACED at the merge of scoped keys: `missingScope` from keys/scopes.ts has this very
 * signature and message; import it from there and delete this file.
 */
import type { Caller } from '../caller.js';
import type { KeyScope } from '../contract/keys.js';

/** The refusal when the caller's key lacks `scope`; undefined when it may (a key without scopes may all). */
export function missingScope(caller: Caller, scope: KeyScope): string | undefined {
  const scopes = caller.limits?.scopes;
  if (!scopes || scopes.includes(scope)) return undefined;
  return `This API key lacks the scope ${scope}.`;
}
