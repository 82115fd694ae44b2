/**
 * JSON Schema (as the OpenAPI document gives it) → fast-check arbitraries: values the schema
 * accepts, values at and just past its limits, and hostile values (wrong types, nulls, huge and
 * strange unicode strings, prototype keys, number tokens JSON.parse turns into Infinity).
 */
import fc from 'fast-check';
import { TaskFilters } from '../../src/contract/index.js';
import type { JsonSchema } from '../route-table.js';
import { Entries, Many, Ref, Repeat, Token, type RefKind, type Value } from './values.js';

/** Which real object a field or parameter names, from its name and schema (an id-like one only). */
export function refKindOf(name: string, schema: JsonSchema): RefKind | undefined {
  if (/password/i.test(name)) return 'password';
  if (/^email$/i.test(name)) return 'email';
  // A webhook's URL: the fixture's loopback receiver, which the test server allows.
  if (/^url$/i.test(name)) return 'url';
  // An invitation link's token: the fixture's pending invitation.
  if (/^token$/.test(name)) return 'invitationToken';
  // An OAuth authorization request's client and redirect URI (issue 33): the fixture's registered client.
  if (/^client_id$/.test(name)) return 'oauthClient';
  if (/^redirect_uri$/.test(name)) return 'redirectUri';
  if (/^resource$/.test(name)) return 'mcpResource';
  if (!isIdLike(name, schema)) return undefined;
  // Where a deleted status's tasks go: another status of the team (its default).
  if (/^moveTo$/.test(name)) return 'moveTo';
  if (/invitation/i.test(name)) return 'invitation';
  if (/comment/i.test(name)) return 'comment';
  // An entry of a task's activity.
  if (/^entryId$/.test(name)) return 'entry';
  if (/webhook/i.test(name)) return 'webhook';
  if (/^viewId$/.test(name)) return 'view';
  if (/^notificationId$/.test(name)) return 'notification';
  if (/^attachmentId$/.test(name)) return 'attachment';
  if (/^exportId$/.test(name)) return 'export';
  if (/^importId$/.test(name)) return 'import';
  if (/delivery/i.test(name)) return 'delivery';
  if (/status/i.test(name)) return 'status';
  if (/label/i.test(name)) return 'label';
  if (/list/i.test(name)) return 'list';
  if (/task|parent/i.test(name)) return 'task';
  if (/assignee|user/i.test(name)) return 'user';
  if (/team|org/i.test(name)) return 'team';
  if (/key/i.test(name)) return 'key';
  return undefined;
}

/** Whether a field or parameter holds an id (or ids): a reference to some stored object. */
export function isIdLike(name: string, schema: JsonSchema): boolean {
  const types = typesOf(schema);
  return (
    schema.format === 'uuid' ||
    /Ids?$/.test(name) ||
    (types.includes('integer') && /id$/i.test(name)) ||
    schema.pattern === '^\\d+$' ||
    (types.includes('array') && isIdLike(name.replace(/s$/, ''), schema.items ?? {}))
  );
}

/** The JSON types a schema allows (`type` may be a list; an `enum` implies its values' types). */
export function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.enum)) {
    return [...new Set(schema.enum.map((v: unknown) => (v === null ? 'null' : typeof v)))] as string[];
  }
  return [];
}

/** Code points, as JSON Schema's minLength/maxLength count them. */
const codePoints = (s: string) => [...s].length;

function lengthFits(s: string, schema: JsonSchema): boolean {
  const n = codePoints(s);
  return n >= (schema.minLength ?? 0) && n <= (schema.maxLength ?? Infinity);
}

function patternFits(s: string, schema: JsonSchema): boolean {
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s);
}

const isoDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));

function validString(schema: JsonSchema, kind: RefKind | undefined): fc.Arbitrary<Value> {
  const options: fc.WeightedArbitrary<Value>[] = [];
  if (kind) options.push({ weight: 3, arbitrary: fc.constant(new Ref(kind)) });
  if (schema.format === 'uuid') options.push({ weight: 2, arbitrary: fc.uuid() });
  else if (schema.format === 'date') options.push({ weight: 2, arbitrary: isoDate });
  else if (schema.pattern !== undefined) {
    options.push({
      weight: 2,
      arbitrary: fc.stringMatching(new RegExp(schema.pattern)).filter((s) => lengthFits(s, schema)),
    });
  }
  // Free text only where the pattern is unanchored (\S): random text rarely fits ^…$.
  if (schema.format === undefined && !String(schema.pattern ?? '').startsWith('^')) {
    const maxLength = Math.min(schema.maxLength ?? 40, 40);
    const minLength = Math.min(schema.minLength ?? 0, maxLength);
    options.push({
      weight: 2,
      arbitrary: fc
        .oneof(fc.string({ minLength, maxLength }), fc.string({ unit: 'grapheme', minLength, maxLength }))
        .filter((s) => lengthFits(s, schema) && patternFits(s, schema)),
    });
  }
  return fc.oneof(...options);
}

function validNumber(schema: JsonSchema, integer: boolean, kind: RefKind | undefined): fc.Arbitrary<Value> {
  const min = schema.minimum ?? -(2 ** 31);
  const max = schema.maximum ?? 2 ** 31;
  const numbers: fc.Arbitrary<Value> = integer
    ? fc.oneof(fc.integer({ min, max: Math.min(max, min + 20) }), fc.integer({ min, max }))
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  const refs =
    kind === 'list' ||
    kind === 'task' ||
    kind === 'comment' ||
    kind === 'status' ||
    kind === 'label' ||
    kind === 'moveTo'
      ? [fc.constant(new Ref(kind))]
      : [];
  return refs.length > 0 ? fc.oneof({ weight: 3, arbitrary: refs[0]! }, { weight: 1, arbitrary: numbers }) : numbers;
}

/** Values the schema accepts (ids often naming the fixture's real objects). */
export function validArb(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
  // A saved view's filters: an open object in the body, checked against GET /v1/tasks's parameters.
  if (name === 'filters' && !schema.properties) return objectArb(TaskFilters as JsonSchema);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as Value[]));
  const kind = refKindOf(name, schema);
  const options: fc.Arbitrary<Value>[] = [];
  for (const type of typesOf(schema)) {
    if (type === 'null') options.push(fc.constant(null));
    else if (type === 'string') options.push(validString(schema, kind));
    else if (type === 'integer' || type === 'number') options.push(validNumber(schema, type === 'integer', kind));
    else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'array') {
      const maxLength = Math.min(schema.maxItems ?? 5, 5);
      options.push(
        fc.array(validArb(schema.items ?? {}, name.replace(/s$/, '')), {
          minLength: Math.min(schema.minItems ?? 0, maxLength),
          maxLength,
        }),
      );
    } else if (type === 'object') options.push(objectArb(schema));
  }
  return options.length > 0 ? fc.oneof(...options) : jsonArb;
}

const DATE_EDGES = [
  '2024-02-29',
  '2023-02-29',
  '2024-02-30',
  '0000-01-01',
  '9999-12-31',
  '2024-13-01',
  '2024-00-10',
  '2024-1-1',
  '2024-01-01T00:00:00Z',
  '20240101',
  '+2024-01-01',
  '２０２４-01-01',
  '2024-01-01\n',
];
const UUID_EDGES = [
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
  '3f2504e04f8911d39a0c0305e82c3301',
  '{3f2504e0-4f89-11d3-9a0c-0305e82c3301}',
  '3f2504e0-4f89-11d3-9a0c-0305e82c3301 ',
  '3f2504e0-4f89-11d3-9a0c-0305e82c330g',
];
const DIGIT_EDGES: Value[] = [
  '0',
  '00',
  '01',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '9'.repeat(30),
  new Repeat('9', 400),
  '1 ',
  ' 1',
  '١٢٣',
  '-1',
  '+1',
  '1.0',
  '1e3',
];
const NUMBER_TOKENS = [
  '-0',
  '1e400',
  '-1e400',
  '1E1',
  '1.0',
  '1.5',
  '9007199254740993',
  '1' + '0'.repeat(400),
  '0.1e1',
];

/** Values at and just past the schema's limits. */
export function boundaryArb(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
  const values: Value[] = [];
  const arbitraries: fc.Arbitrary<Value>[] = [];
  const types = typesOf(schema);
  if (types.includes('string')) {
    const { maxLength, minLength } = schema as { maxLength?: number; minLength?: number };
    if (maxLength !== undefined) {
      values.push(
        new Repeat('a', maxLength),
        new Repeat('a', maxLength + 1),
        new Repeat('😀', maxLength),
        new Repeat('é', maxLength + 1),
      );
    }
    if (minLength) values.push(new Repeat('a', minLength - 1));
    values.push('', ' ', '\t\n', '\u00a0', '\u200b', '\u3000');
    if (schema.format === 'date') values.push(...DATE_EDGES);
    if (schema.format === 'uuid') values.push(...UUID_EDGES);
    if (schema.pattern === '^\\d+$' || /^\^\(\?:\[1-9\]/.test(schema.pattern ?? '')) {
      values.push(...DIGIT_EDGES, '1000', '1001', '999');
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    const min = schema.minimum ?? 0;
    const max = schema.maximum ?? 2 ** 31;
    values.push(min - 1, min, max, max + 1, 0, -1, 1.5, 2 ** 31, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE);
    values.push(...NUMBER_TOKENS.map((t) => new Token(t)));
  }
  if (types.includes('array')) {
    const item = validArb(schema.items ?? {}, name.replace(/s$/, ''));
    const maxItems = schema.maxItems ?? 100;
    arbitraries.push(
      item.map((v) => new Many(v, maxItems)),
      item.map((v) => new Many(v, maxItems + 1)),
      item.map((v) => new Many(v, 1001)),
      item.map((v) => [v, v, v]),
      fc.constant([null]),
      fc.constant([[]]),
    );
  }
  if (types.includes('object')) values.push(new Entries([]), new Entries([['__proto__', new Entries([])]]));
  const options: fc.Arbitrary<Value>[] = [...arbitraries];
  if (values.length > 0) options.push(fc.constantFrom(...values));
  return options.length > 0 ? fc.oneof(...options) : hostileArb;
}

/** Strings that have broken parsers, databases and templating before. */
export const STRANGE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'a\ud83d',
  '\u202eevil',
  '\u2028\u2029',
  '\ufeffbom',
  '\u200b',
  '😀',
  '👩‍👩‍👧‍👦',
  'e\u0301',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'İ',
  'ß',
  'ﬃ',
  'Σ',
  "'; DROP TABLE tasks; --",
  '" OR 1=1 --',
  '%s%n%x',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '\\',
  '\r\n',
  'null',
  'undefined',
  'NaN',
  '%00',
  '%',
];

const HUGE_STRINGS = [
  new Repeat('x', 100_001),
  new Repeat('😀', 60_000),
  new Repeat('İ', 50_000),
  new Repeat('a', 1_100_000),
];

/** Keys a client might add to an object: prototype pollution and mass assignment attempts. */
export const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'teamId',
  'team_id',
  'userId',
  'createdBy',
  'created_by',
  'isArchived',
  'number',
  'version',
  'role',
  '',
];

/** Any JSON value, prototype keys included, a few levels deep. */
export const jsonArb: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 6 })), tie('value')), {
        maxLength: 3,
      })
      .map((entries) => new Entries(entries)),
  ),
})).value;

const deepArray = (depth: number): Value => new Token('['.repeat(depth) + ']'.repeat(depth));

/** Wrong types, nulls, strange and huge strings, odd number tokens, deep nesting. */
export const hostileArb: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom<Value>(null, true, false, 0, -1, 1, '', [], new Entries([]), 'true', '0'),
  fc.constantFrom(...STRANGE_STRINGS),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(...HUGE_STRINGS),
  fc.constantFrom(...NUMBER_TOKENS.map((t) => new Token(t))),
  fc.constantFrom(deepArray(64), deepArray(5000)),
  jsonArb,
);

/** One field's value: mostly valid (so requests get past validation), else a boundary or hostile one. */
export function fieldArb(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
  return fc.oneof(
    { weight: 6, arbitrary: validArb(schema, name) },
    { weight: 2, arbitrary: boundaryArb(schema, name) },
    { weight: 2, arbitrary: hostileArb },
  );
}

const MISSING = Symbol('missing');

/**
 * An object for the schema. Half the time every field is valid (so requests also get past
 * validation and exercise the service); else each field may be valid, a boundary, hostile or
 * missing, with, sometimes, extra and repeated keys.
 */
export function objectArb(schema: JsonSchema): fc.Arbitrary<Entries> {
  return fc.oneof(objectOf(schema, 'valid'), objectOf(schema, 'mixed'));
}

function objectOf(schema: JsonSchema, mode: 'valid' | 'mixed'): fc.Arbitrary<Entries> {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set<string>(schema.required ?? []);
  const fields = properties.map(([name, propertySchema]) =>
    fc.oneof(
      {
        weight: required.has(name) ? 9 : 1,
        arbitrary: mode === 'valid' ? validArb(propertySchema, name) : fieldArb(propertySchema, name),
      },
      { weight: required.has(name) && mode === 'valid' ? 0 : 1, arbitrary: fc.constant<typeof MISSING>(MISSING) },
    ),
  );
  const keys = properties.map(([name]) => name);
  const extraKey = fc.oneof(fc.constantFrom(...EXTRA_KEYS, ...keys), fc.string({ maxLength: 8 }));
  const extras = fc.oneof(
    { weight: mode === 'valid' ? 20 : 5, arbitrary: fc.constant<(readonly [string, Value])[]>([]) },
    {
      weight: 1,
      arbitrary: fc.array(fc.tuple(extraKey, fc.oneof(hostileArb, jsonArb)), { minLength: 1, maxLength: 3 }),
    },
  );
  return fc.tuple(fc.tuple(...fields), extras).map(([values, more]) => {
    const entries: (readonly [string, Value])[] = [];
    values.forEach((value, i) => {
      if (value !== MISSING) entries.push([keys[i]!, value as Value]);
    });
    return new Entries([...entries, ...more]);
  });
}
