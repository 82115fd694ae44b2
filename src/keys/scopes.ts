/**
 * Scoped API keys (issue 33): what a key with scopes may do. Every authenticated route declares
 * the scope it needs in the route table, `config: { scope }`; one hook (`registerScopeCheck`,
 * added in app.ts right after authentication) refuses a caller whose key lacks it, before the
 * route reads its body or opens a transaction, so a refused request changes nothing. `'full'`: the
 * routes no scope covers (key management, webhooks, team settings, exports…), for keys without
 * limits and web sessions only. /mcp checks each tool with `missingScope` the same way.
 */
import type { Caller } from '../caller.js';
import type { KeyScope } from '../contract/keys.js';
import type { App } from '../http/app-types.js';
import { forbidden } from '../http/errors.js';

/**
 * The scope a route needs: one of the key scopes, or `'full'` (a key without limits, or a session),
 * or `'perTool'`: any key may reach it, and each of its operations checks its own scope with
 * `missingScope` (POST /mcp, whose tools each need one).
 */
export type RouteScope = KeyScope | 'full' | 'perTool';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a key needs for this route (issue 33); required on every authenticated route (test/scope-matrix.test.ts). */
    scope?: RouteScope;
  }
}

/** Where the OpenAPI document names each route's scope (an extension field of the operation). */
export const SCOPE_EXTENSION = 'x-tasklane-scope';

export const FULL_ROUTE_MESSAGE = 'This API key is limited to scopes; this route needs a key without scopes.';
export const LIST_LIMITED_FULL_ROUTE_MESSAGE =
  'This API key is limited to lists; this route needs a key without limits.';
export const lacksScopeMessage = (scope: KeyScope) => `This API key lacks the scope ${scope}.`;

/**
 * Why `caller` may not use something that needs `scope`, or undefined when it may. A caller
 * without limits (a key without scopes or lists, a web session) may use everything its role
 * allows; a key limited to lists alone holds every scope but `'full'`.
 */
export function missingScope(caller: Caller, scope: RouteScope): string | undefined {
  const limits = caller.limits;
  if (!limits || scope === 'perTool') return undefined;
  if (scope === 'full') return limits.scopes === null ? LIST_LIMITED_FULL_ROUTE_MESSAGE : FULL_ROUTE_MESSAGE;
  if (limits.scopes === null || limits.scopes.includes(scope)) return undefined;
  return lacksScopeMessage(scope);
}

/**
 * In `scope` (the authenticated routes' scope, after the authentication hook): each route's scope
 * is published in the OpenAPI document, and each request is refused with 403 when its caller's
 * key lacks it. A route that declares none is treated as `'full'`, so a forgotten declaration
 * refuses scoped keys rather than admitting them (and the scope matrix fails on it).
 */
export function registerScopeCheck(scope: App): void {
  scope.addHook('onRoute', (route) => {
    const needed = route.config?.scope;
    if (needed && route.schema) route.schema = { ...route.schema, [SCOPE_EXTENSION]: needed } as typeof route.schema;
  });
  scope.addHook('onRequest', async (request) => {
    const refusal = missingScope(request.caller, request.routeOptions.config.scope ?? 'full');
    if (refusal) throw forbidden(refusal);
  });
}

/** Whether the caller's list limit (a key limited to lists), if any, takes in this list. */
export const withinListLimit = (caller: Pick<Caller, 'limits'>, listId: number): boolean =>
  !caller.limits?.listIds || caller.limits.listIds.includes(listId);

/** The 403 for a list outside a key's list limit. */
export const outsideListLimitMessage = (listId: number | string) =>
  `This API key is limited to lists; list ${listId} is not one of them.`;

/**
 * For a key limited to lists, the lists a task it writes is put on must be among them, and there
 * must be at least one (a task off its lists would vanish from its sight): else the 403 saying so.
 */
export function checkListsWithinLimit(caller: Pick<Caller, 'limits'>, listIds: readonly number[]): void {
  if (!caller.limits?.listIds) return;
  const outside = listIds.find((id) => !withinListLimit(caller, id));
  if (outside !== undefined) throw forbidden(outsideListLimitMessage(outside));
  if (listIds.length === 0) {
    throw forbidden('This API key is limited to lists; taskListIds must name at least one of them.');
  }
}
