/** Schema building blocks shared by every resource's contract. Each schema's TypeScript type sits beside it. */
import { Type, type Static, type TSchema, type TString, type TUnsafe } from 'typebox';

/** Largest id a numeric id column holds (PostgreSQL `integer`); a bigger one in a request is a 400, not a 500. */
export const MAX_ID = 2_147_483_647;

/**
 * Most ids one array field or one repeated query parameter may carry: room for any real use,
 * while one request's work (lookups, rows written, event recipients) stays bounded.
 */
export const MAX_IDS_PER_FIELD = 1_000;

/**
 * Most bytes of JSON one page of a size-capped list holds (docs/api.md, "Page sizes"): a page
 * stops before the item that would take it past this, so it may hold fewer items than `limit`
 * asked for; its first item always comes, however large.
 */
export const MAX_PAGE_BYTES = 1_048_576;

/** The response header that leads to the next page of a size-capped list, when more items remain. */
export const NEXT_PAGE_HEADER = 'Link';

/**
 * A page of a size-capped list: an array of `item`s, and the Link header that says more remain.
 * `cursor` is how the next page is asked for (`before=<id of the last item>`).
 */
export function Page<T extends TSchema>(item: T, cursor: string) {
  return Type.Array(item, {
    description:
      `At most \`limit\` items, and fewer when they would take the answer past ${MAX_PAGE_BYTES.toLocaleString('en-US')} ` +
      `bytes (the first always comes). When more remain, the ${NEXT_PAGE_HEADER} header names the next page: ` +
      `${cursor}.`,
    headers: {
      [NEXT_PAGE_HEADER]: Type.String({
        description:
          'Present only when more items remain: `<path?query>; rel="next"`, this request with its cursor moved past the last item.',
      }),
    },
  });
}

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

/**
 * A string typed more narrowly than its schema says: for response fields the server fills from
 * a fixed set (a role, a priority) whose documented schema has always been a plain string.
 */
export function NarrowString<T extends string>(options: object = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', ...options });
}

/** A numeric id in a path: a string of digits. `message` is the 400 the spec fixes for a bad one. */
export const IdParam = <K extends string>(name: K, message = `${name} must be a number.`) =>
  Type.Object({ [name]: Type.String({ pattern: '^\\d+$', errorMessage: message }) } as Record<K, TString>);

/** Lower-cases the string during validation (http/validation.ts): for ids compared with stored lower-case UUIDs. */
export const LOWER_CASE = { 'x-lowercase': true } as const;

/** A UUID (a user, team or key id), in any case; validation lower-cases it to match the stored ids. */
export const Uuid = (options: object = {}) => Type.String({ format: 'uuid', ...LOWER_CASE, ...options });

/** `YYYY-MM-DD` naming a real calendar day (2025-02-30 is refused). */
export const DateString = (options: object = {}) =>
  Type.String({ format: 'date', pattern: '^\\d{4}-\\d{2}-\\d{2}$', ...options });

/**
 * The response header that carries the precise reason of a 400 whose body is a text the spec
 * fixes (`Invalid input.`, `listId must be a number.`): printable ASCII, such as
 * `title must be a string of 1 to 500 characters with at least one non-whitespace character.`
 */
export const ERROR_DETAIL_HEADER = 'Error-Detail';

/** The 400 of a route whose every 400 body is the spec's fixed text: the reason is in Error-Detail. */
const FixedTextError = Type.Object(ErrorBody.properties, {
  additionalProperties: false,
  headers: {
    [ERROR_DETAIL_HEADER]: Type.String({
      description:
        'The precise reason, naming the field or parameter and the rule it broke, in printable ASCII ' +
        '(other characters are written as \\uXXXX). The body keeps the fixed text the published interface requires.',
    }),
  },
});

/** Declares the error statuses a route can answer, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return Object.fromEntries([401, 429, ...statuses].map((status) => [status, ErrorBody]));
}

/**
 * `errorResponses` for a route whose 400 body the spec fixes (its `invalidInputMessage`): the
 * 400 also declares the Error-Detail header that carries the reason.
 */
export function fixedTextErrorResponses(...statuses: number[]): Record<number, typeof ErrorBody> {
  return { ...errorResponses(400, ...statuses), 400: FixedTextError };
}

export const NullableString = Type.Union([Type.String(), Type.Null()]);
export const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const Person = Type.Object({
  id: Type.String({ description: 'User ID (UUID).' }),
  name: Type.String(),
  email: Type.String(),
});
export type Person = Static<typeof Person>;
