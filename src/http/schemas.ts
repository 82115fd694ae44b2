/** Schema building blocks shared by the routes. Each schema's TypeScript type sits beside it. */
import { Type, type Static, type TSchema, type TString, type TUnsafe } from 'typebox';

/**
 * Most ids one array field or one repeated query parameter may carry: room for any real use,
 * while one request's work (lookups, rows written, event recipients) stays bounded.
 */
export const MAX_IDS_PER_FIELD = 1_000;

/** The only shape of a 4xx/5xx body. */
export const ErrorBody = Type.Object({ error: Type.String() }, { additionalProperties: false });

/** `{ type: ["x", "null"] }`: plain JSON Schema that validates fast and reads well in OpenAPI 3.1. */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, ...rest } = schema as unknown as { type: string };
  if ('enum' in rest) {
    const values = (rest as { enum: unknown[] }).enum;
    return Type.Unsafe({ ...rest, enum: [...values, null] });
  }
  return Type.Unsafe({ ...rest, type: [type, 'null'] });
}

/** A string from a fixed set, as a plain `enum` (clear errors, clear docs). */
export function StringEnum<const T extends readonly string[]>(values: T, options: object = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A numeric id in a path: a string of digits. `message` is the 400 the spec fixes for a bad one. */
export const IdParam = <K extends string>(name: K, message = `${name} must be a number.`) =>
  Type.Object({ [name]: Type.String({ pattern: '^\\d+$', errorMessage: message }) } as Record<K, TString>);

/** A UUID (a user, team or key id), in any case; validation lower-cases it to match the stored ids. */
export const Uuid = (options: object = {}) => Type.String({ format: 'uuid', ...LOWER_CASE, ...options });

/** Lower-cases the string during validation (http/validation.ts): for ids compared with stored lower-case UUIDs. */
export const LOWER_CASE = { 'x-lowercase': true } as const;

/** `YYYY-MM-DD` naming a real calendar day (2025-02-30 is refused). */
export const DateString = (options: object = {}) =>
  Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', ...options });

/** Declares the error statuses a route can answer, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries([401, 429, ...statuses].map((status) => [status, ErrorBody]));
}

export const Person = Type.Object({
  id: Type.String({ description: 'User ID (UUID).' }),
  name: Type.String(),
  email: Type.String(),
});
