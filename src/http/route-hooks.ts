import type { RouteOptions } from 'fastify';

type Stage = 'onRequest' | 'preValidation' | 'preHandler';
type Hook = NonNullable<Extract<RouteOptions[Stage], (...args: never[]) => unknown>>;

/**
 * Adds a hook to one route from an `onRoute` hook, `first` or `last` among the route's own hooks
 * of that stage (which all run after the instance's hooks of the stage, authentication among them).
 */
export function addRouteHook(route: RouteOptions, stage: Stage, position: 'first' | 'last', hook: Hook): void {
  const current = route[stage];
  const hooks = (current === undefined ? [] : Array.isArray(current) ? current : [current]) as Hook[];
  route[stage] = (position === 'first' ? [hook, ...hooks] : [...hooks, hook]) as never;
}
