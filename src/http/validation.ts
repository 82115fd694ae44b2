/**
 * Request validation. Bodies are validated strictly (no type coercion: `"5"` is not a number),
 * while path and query strings are coerced, and a single query value becomes a one-item array
 * where the schema wants an array. Unknown body fields are dropped.
 */
import { Ajv, type AnySchemaObject, type ErrorObject, type KeywordDefinition, type Options } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { closestNames } from './unknown-query.js';

// ajv-formats ships CommonJS with a default export; under NodeNext it arrives wrapped.
type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

/**
 * `"x-lowercase": true` lower-cases a string as it is validated. User, team and key ids are
 * UUIDs stored in lower case; this makes every request's ids compare equal to them, in one
 * place, whatever case a client sends.
 */
const LOWERCASE_KEYWORD: KeywordDefinition = {
  keyword: 'x-lowercase',
  type: 'string',
  schemaType: 'boolean',
  modifying: true,
  validate: (lower: boolean, data: string, _schema?: AnySchemaObject, context?: DataValidationCxt) => {
    if (lower && context)
      (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = data.toLowerCase();
    return true;
  },
};

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    useDefaults: true,
    verbose: true, // errors carry the failing schema, so messages can name its rule
    keywords: ['errorMessage'],
    ...options,
  });
  addFormats(ajv, ['date', 'uuid']);
  ajv.addKeyword(LOWERCASE_KEYWORD);
  return ajv;
}

const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: true });
const stringPartsAjv = createAjv({ coerceTypes: 'array', removeAdditional: true });

/** NUL, or half of a surrogate pair: text PostgreSQL cannot store and SQLite would store mangled. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const isUnstorable = (text: string) => text.includes('\0') || UNPAIRED_SURROGATE.test(text);

/** The JSON pointer of the first string in `data` that holds unstorable text, or null. */
function unstorableTextAt(data: unknown): string | null {
  const pending: Array<[unknown, string]> = [[data, '']];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      if (isUnstorable(value)) return path;
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) pending.push([item, `${path}/${key}`]);
    }
  }
  return null;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Coercion turns a query value such as `1e400` into Infinity, and ajv lets that through
 * `integer` and `minimum`. No field of ours takes an infinite number: the first one found fails
 * as a wrong type, with the field's own message.
 */
function infiniteNumberError(data: unknown, schema: object): ErrorObject | null {
  if (!data || typeof data !== 'object') return null;
  const properties = (schema as { properties?: Record<string, AnySchemaObject> }).properties ?? {};
  for (const [key, value] of Object.entries(data)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) {
      const parentSchema = properties[key];
      const type = parentSchema?.type === 'array' ? (parentSchema.items as AnySchemaObject)?.type : parentSchema?.type;
      return {
        keyword: 'type',
        instancePath: `/${key}`,
        schemaPath: '#',
        params: { type: type ?? 'number' },
        parentSchema,
      };
    }
  }
  return null;
}

/**
 * Schema validation, then one rule for every string of every request: it must be text both
 * stores keep as sent (no NUL, no unpaired surrogate), so no input can reach the database as
 * a 500 on one store and silently altered data on the other.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const validateSchema = (httpPart === 'body' ? bodyAjv : stringPartsAjv).compile(schema);
  const validate: Validate = (data) => {
    if (!validateSchema(data)) {
      validate.errors = validateSchema.errors;
      return false;
    }
    // After the schema: unknown fields are gone by then, and coerced values are in place.
    const infinite = httpPart === 'body' ? null : infiniteNumberError(data, schema);
    if (infinite) {
      validate.errors = [infinite];
      return false;
    }
    const at = unstorableTextAt(data);
    validate.errors = at === null ? null : [{ keyword: 'storableText', instancePath: at, schemaPath: '#', params: {} }];
    return at === null;
  };
  return validate;
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

function fieldName(error: ErrorObject, context: string | undefined): string {
  const path = error.instancePath
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');
  if (path) return path;
  return context === 'body' ? 'The request body' : context === 'querystring' ? 'The query string' : 'The request';
}

/** Size limits are always named with their number, even where a field has its own message. */
const LIMIT_KEYWORDS = new Set(['maxLength', 'maxItems']);

const count = (limit: unknown) => Number(limit).toLocaleString('en-US');

/** Turns the first validation failure into one sentence a person understands. */
export function validationMessage(errors: ErrorObject[], context: string | undefined): string {
  const error = errors[0];
  if (!error) return 'Invalid input.';
  const own = (error.parentSchema as { errorMessage?: string } | undefined)?.errorMessage;
  if (own && error.keyword !== 'required' && !LIMIT_KEYWORDS.has(error.keyword)) return own;

  const field = fieldName(error, context);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${error.instancePath ? `${field}.` : ''}${String(params.missingProperty)} is required.`;
    case 'type': {
      const types = String(params.type).split(',');
      return `${field} must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(' or ')}.`;
    }
    case 'enum':
      return `${field} must be one of: ${(params.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}.`;
    case 'minLength':
      return params.limit === 1
        ? `${field} must not be empty.`
        : `${field} must be at least ${String(params.limit)} characters long.`;
    case 'maxLength':
      return `${field} must be at most ${count(params.limit)} characters long.`;
    case 'minimum':
      return `${field} must be at least ${String(params.limit)}.`;
    case 'maximum':
      return `${field} must be at most ${String(params.limit)}.`;
    case 'maxItems':
      // A query parameter becomes an array by being repeated.
      return context === 'querystring'
        ? `${field} may be given at most ${count(params.limit)} times.`
        : `${field} must have at most ${count(params.limit)} items.`;
    case 'format':
      return params.format === 'uuid'
        ? `${field} must be a user ID (UUID).`
        : `${field} must be a valid ${String(params.format)}.`;
    case 'storableText':
      return `${field} must not contain NUL characters or unpaired UTF-16 surrogates.`;
    default:
      return `${field} is invalid.`;
  }
}

const queryLikeValidators = new WeakMap<object, ReturnType<Ajv['compile']>>();

/**
 * Query parameters held in a body (a saved view's `filters`), judged as the query string would
 * be: by the same schema and coercion, so they are exactly what the endpoint itself accepts, and
 * come back as it takes them (ids as strings, one value as a one-item array). Unknown names are
 * refused rather than dropped. Returns the parameters, or the sentence that refuses them.
 */
export function checkQueryLike<T>(
  schema: { properties: Record<string, unknown> },
  value: Record<string, unknown>,
): { ok: T } | { error: string } {
  const known = Object.keys(schema.properties);
  const unknown = Object.keys(value).find((name) => !known.includes(name));
  if (unknown !== undefined) {
    const closest = closestNames(unknown, known);
    const hint = closest.length > 0 ? `Did you mean ${closest.join(' or ')}?` : `It takes ${known.join(', ')}.`;
    return { error: `${unknown.slice(0, 60)} is not a parameter of GET /v1/tasks. ${hint}` };
  }
  let validate = queryLikeValidators.get(schema);
  if (!validate) queryLikeValidators.set(schema, (validate = stringPartsAjv.compile(schema)));
  const data = structuredClone(value);
  if (!validate(data)) return { error: validationMessage(validate.errors ?? [], 'querystring') };
  const at = unstorableTextAt(data);
  if (at !== null) {
    return {
      error: validationMessage([{ keyword: 'storableText', instancePath: at, schemaPath: '#', params: {} }], ''),
    };
  }
  return { ok: data as T };
}
