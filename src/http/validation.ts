/**
 * Request validation. Bodies are validated strictly (no type coercion: `"5"` is not a number),
 * while path and query strings are coerced, and a single query value becomes a one-item array
 * where the schema wants an array. Unknown body fields are dropped.
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats ships CommonJS with a default export; under NodeNext it arrives wrapped.
type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

function createAjv(options: Options): Ajv {
  const ajv = new Ajv({
    allErrors: false,
    useDefaults: true,
    verbose: true, // errors carry the failing schema, so messages can name its rule
    keywords: ['errorMessage'],
    ...options,
  });
  addFormats(ajv, ['date', 'uuid']);
  return ajv;
}

const bodyAjv = createAjv({ coerceTypes: false, removeAdditional: true });
const stringPartsAjv = createAjv({ coerceTypes: 'array', removeAdditional: true });

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : stringPartsAjv).compile(schema);

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
    default:
      return `${field} is invalid.`;
  }
}
