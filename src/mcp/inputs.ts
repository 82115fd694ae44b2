/**
 * A tool's arguments become a service's input only through the API's own schemas (the contract)
 * and validator (http/validation.ts): the same limits, the same storable-text rule, the same
 * messages, so no tool accepts what the API would refuse.
 */
import type { TSchema } from 'typebox';
import { validationMessage, validatorCompiler } from '../http/validation.js';
import { ToolRefusal } from './tool.js';

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };
const compiled = new WeakMap<object, Validate>();

/** `value` as a body of `schema` accepts it, or a refusal naming the first problem. */
export function asBody<T>(schema: TSchema, value: Record<string, unknown>): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = validatorCompiler({ schema, method: 'POST', url: '/mcp', httpPart: 'body' }) as Validate;
    compiled.set(schema, validate);
  }
  const data = structuredClone(value);
  if (!validate(data)) throw new ToolRefusal(validationMessage((validate.errors ?? []) as never, 'body'));
  return data as T;
}

/** Drops the keys whose value is undefined: a service tells "not given" from `null`. */
export function given(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
