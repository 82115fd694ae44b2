/**
 * One route's OpenAPI entry → an arbitrary of whole requests: every path segment, query
 * parameter (absent, once, repeated, a thousand times), body field (valid, boundary, hostile,
 * missing, extra, repeated) and the headers that matter (API key, session cookie, CSRF, If-Match,
 * Last-Event-ID, Idempotency-Key, Content-Type), then written on the wire exactly as generated.
 */
import fc from 'fast-check';
import type { RawRequest } from '../raw-request.js';
import type { ApiRoute, JsonSchema, Parameter } from '../route-table.js';
import { boundaryArb, hostileArb, objectArb, refKindOf, STRANGE_STRINGS, validArb } from './arbitraries.js';
import { Ref, Repeat, Token, toJson, toText, type Resolver, type Value } from './values.js';

export interface QueryEntry {
  name: string;
  value: Value;
  /** Sent without percent-encoding its reserved characters (`&`, `=`, `%`, `+`, `#`). */
  raw: boolean;
  /** How many times the parameter is repeated with this value. */
  times: number;
}

export interface FuzzRequest {
  /** Path parameter → value; a Token is put on the wire as is (`%00`, `..`, ``). */
  path: Record<string, Value>;
  query: QueryEntry[];
  /** Appended to the query string as is: `&&`, `%zz`, `=`. */
  queryTail: string;
  /** A JSON tree, or a Token holding raw body text; absent: no body. */
  body?: { content: Value; contentType?: string };
  /** Mostly the owner; sometimes someone who must not reach the owner's objects. */
  sender: Sender;
  /** `oddCookie`: a malformed Cookie header and no key; `twice` with a session: an odd cookie before the real one. */
  credential: 'proper' | 'none' | 'odd' | 'twice' | 'oddCookie';
  oddKey: string;
  oddCookie: string;
  /** `twice`: the header repeated, the right token and an odd one. */
  csrf: 'proper' | 'none' | 'odd' | 'twice';
  extraHeaders: Record<string, string>;
}

/** Who sends a request: the owner of the fixture's objects, a teammate without access to them, or another team's user. */
export type Sender = 'owner' | 'outsider' | 'stranger';

export interface Credentials {
  key: string;
  session: { token: string; csrfToken: string };
}

/** The fixture objects and credentials a request may name. */
export interface FuzzContext {
  credentials: Record<Sender, Credentials>;
  resolve: Resolver;
}

const ODD_IDS: Value[] = [
  '0',
  '-1',
  '01',
  '00000001',
  '1.0',
  '1.5',
  '1e3',
  ' 1',
  '1 ',
  '+1',
  '0x1F',
  '١',
  '９',
  '2147483647',
  '2147483648',
  '4294967296',
  '9007199254740993',
  '9'.repeat(40),
  new Repeat('9', 5000),
  'null',
  'undefined',
  'NaN',
  'Infinity',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  '3F2504E0-4F89-11D3-9A0C-0305E82C3301',
  "1' OR '1'='1",
  '1;DROP TABLE tasks',
];

/** Segments put on the wire undecoded: encodings a server might decode twice or choke on. */
const RAW_SEGMENTS = [
  '%00',
  '%',
  '%zz',
  '%E2%82',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '1%2F2',
  '%C0%AE',
  '1%00',
  ';',
  ';a=b',
  '',
];

const QUERY_TAILS = ['&', '&&', '=', '==', '%zz', '%', '?', 'a=%E0%A4%A', '=x', '&=&'];
/** Query names no route takes: prototype members, other routes' parameters, headers, odd text. */
const EXTRA_QUERY_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'limit[]',
  'a',
  'taskListId[]',
  'listId',
  'archive',
  'lastEventId',
  'Last-Event-ID',
  'api_key',
  'page',
  '',
  ' ',
  'É',
  '😀',
  'a\r\nb',
  '%zz',
  'x'.repeat(300),
];

/** Near misses of the route's own parameter names: another case, a plural, a letter dropped, `[]`. */
function nearMisses(route: ApiRoute): string[] {
  return route.queryParams.flatMap(({ name }) => [
    name.toUpperCase(),
    `${name}s`,
    name.slice(1),
    `${name}[]`,
    `${name[0]!.toUpperCase()}${name.slice(1)}`,
  ]);
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/merge-patch+json',
  'application/jsonx',
];

const RAW_BODIES = [
  '',
  ' ',
  '{',
  '{"a":}',
  '\u0000',
  'nul',
  '[',
  '{"title":"a"',
  '\ufeff{}',
  '{}garbage',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '"just a string"',
  '0',
  'null',
  'true',
  '[]',
  '[{}]',
  'a'.repeat(1_100_000),
  '['.repeat(100_000) + ']'.repeat(100_000),
].map((text) => new Token(text));

const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)) });
/** What Node lets a header value hold: tab, printable ASCII and the upper half of Latin-1. */
const latin1 = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
    .map((c) => String.fromCharCode(c)),
});

/** Cookie headers a parser must survive: broken %-escapes, no `=`, quotes, repeats, the secure name. */
const ODD_COOKIES = [
  'tasklane_session=%',
  'tasklane_session=%E0%A4%A',
  'tasklane_session=%zz%',
  'tasklane_session',
  'tasklane_session=',
  '=',
  ';;;',
  'tasklane_session="',
  'tasklane_session=a; tasklane_session=b',
  '__Host-tasklane_session=%',
  '__proto__=%; constructor=x',
  `tasklane_session=${'%'.repeat(5000)}`,
];

/** A value as a query or path string: mostly valid, else a boundary, hostile or strange one. */
function textArb(schema: JsonSchema, name: string): fc.Arbitrary<Value> {
  return fc.oneof(
    { weight: 6, arbitrary: validArb(schema, name) },
    { weight: 2, arbitrary: boundaryArb(schema, name) },
    { weight: 1, arbitrary: fc.constantFrom<Value>(...STRANGE_STRINGS, ...ODD_IDS) },
    { weight: 1, arbitrary: hostileArb },
  );
}

function pathArb(param: Parameter): fc.Arbitrary<Value> {
  const kind = refKindOf(param.name, param.schema);
  return fc.oneof(
    { weight: kind ? 6 : 0, arbitrary: fc.constant(new Ref(kind ?? 'list')) },
    { weight: 2, arbitrary: validArb(param.schema, param.name) },
    { weight: 3, arbitrary: fc.constantFrom(...ODD_IDS) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS.map((s) => new Token(s))) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  );
}

function queryParamArb(param: Parameter, mode: 'valid' | 'mixed'): fc.Arbitrary<QueryEntry[]> {
  const isArray = param.schema.type === 'array';
  const itemSchema = isArray ? (param.schema.items ?? {}) : param.schema;
  const value = mode === 'valid' ? validArb(itemSchema, param.name) : textArb(itemSchema, param.name);
  const entry = (times: fc.Arbitrary<number>): fc.Arbitrary<QueryEntry> =>
    fc.record({ name: fc.constant(param.name), value, raw: fc.constant(false), times });
  const one = entry(fc.constant(1)).map((e): QueryEntry[] => [e]);
  const few = fc.array(entry(fc.constant(1)), { minLength: 2, maxLength: 4 });
  if (mode === 'valid') {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant<QueryEntry[]>([]) },
      { weight: 2, arbitrary: one },
      { weight: isArray ? 1 : 0, arbitrary: few },
    );
  }
  const rawEntry = fc.record({ name: fc.constant(param.name), value, raw: fc.boolean(), times: fc.constant(1) });
  return fc.oneof(
    { weight: 24, arbitrary: fc.constant<QueryEntry[]>([]) },
    { weight: 16, arbitrary: rawEntry.map((e): QueryEntry[] => [e]) },
    { weight: 6, arbitrary: few },
    // Past the "at most 100 / 1,000 values" limits.
    { weight: 1, arbitrary: entry(fc.constantFrom(2, 101, 1001, 1500)).map((e): QueryEntry[] => [e]) },
  );
}

/**
 * The query string. Half the time every parameter is absent or valid (so the request reaches
 * the service); else any value, repeats past the limits, unknown, near-miss and prototype names.
 */
function queryArb(route: ApiRoute): fc.Arbitrary<QueryEntry[]> {
  const valid = fc.tuple(...route.queryParams.map((p) => queryParamArb(p, 'valid'))).map((lists) => lists.flat());
  const extras = fc.oneof(
    { weight: 8, arbitrary: fc.constant<QueryEntry[]>([]) },
    {
      weight: 2,
      arbitrary: fc.array(
        fc.record({
          name: fc.constantFrom(...EXTRA_QUERY_NAMES, ...nearMisses(route)),
          value: hostileArb,
          raw: fc.boolean(),
          times: fc.constant(1),
        }),
        { minLength: 1, maxLength: 2 },
      ),
    },
  );
  const mixed = fc
    .tuple(...route.queryParams.map((p) => queryParamArb(p, 'mixed')), extras)
    .map((lists) => lists.flat());
  return fc.oneof(valid, mixed);
}

function bodyArb(route: ApiRoute): fc.Arbitrary<FuzzRequest['body']> {
  const contentType = fc.oneof(
    { weight: 14, arbitrary: fc.constant<string | undefined>('application/json') },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
  );
  const raw = fc.record({
    content: fc.constantFrom(...RAW_BODIES),
    contentType,
  });
  if (!route.body) {
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: raw },
      { weight: 1, arbitrary: fc.record({ content: hostileArb, contentType }) },
    );
  }
  return fc.oneof(
    { weight: 12, arbitrary: fc.record({ content: objectArb(route.body.schema) as fc.Arbitrary<Value>, contentType }) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: fc.record({ content: hostileArb, contentType }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function extraHeadersArb(route: ApiRoute): fc.Arbitrary<Record<string, string>> {
  const optional = (name: string, values: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: values.map((v) => ({ [name]: v })) });
  const parts = [
    optional('if-match', fc.oneof(fc.constantFrom('*', '"1"', 'W/"1"', '"', '', '"99999999999999999999"'), printable)),
    optional('accept', fc.constantFrom('text/html', '*/*', 'application/xml', 'text/event-stream')),
  ];
  if (route.method === 'GET') {
    parts.push(
      optional('last-event-id', fc.oneof(fc.constantFrom('-1', '0', '1e99', '9'.repeat(100), '1,2', ''), latin1)),
    );
  }
  if (route.method === 'POST') {
    parts.push(optional('idempotency-key', fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'x'.repeat(300)), latin1)));
  }
  return fc.tuple(...parts).map((headers) => Object.assign({}, ...headers));
}

/** Every request the fuzzer may send to `route`. */
export function requestArb(route: ApiRoute): fc.Arbitrary<FuzzRequest> {
  const path = fc.record(Object.fromEntries(route.pathParams.map((p) => [p.name, pathArb(p)])));
  return fc.record({
    path,
    query: queryArb(route),
    queryTail: fc.oneof(
      { weight: 12, arbitrary: fc.constant('') },
      { weight: 1, arbitrary: fc.constantFrom(...QUERY_TAILS) },
    ),
    body: bodyArb(route),
    // A public route (sign-in) takes its identity from the body: the sender is the owner there.
    sender:
      route.credential === 'public'
        ? fc.constant<Sender>('owner')
        : fc.constantFrom<Sender>(...Array<Sender>(8).fill('owner'), 'outsider', 'stranger'),
    credential: fc.constantFrom<FuzzRequest['credential']>(
      ...Array(14).fill('proper'),
      'none',
      'odd',
      'twice',
      'oddCookie',
    ),
    oddKey: fc.oneof(fc.constantFrom('', 'tl_', 'Bearer x', 'tl_' + 'A'.repeat(5000), 'null', '%'), printable, latin1),
    oddCookie: fc.oneof(
      fc.constantFrom(...ODD_COOKIES),
      latin1.map((value) => `tasklane_session=${value}`),
      latin1,
    ),
    csrf: fc.constantFrom<FuzzRequest['csrf']>(...Array(12).fill('proper'), 'none', 'odd', 'twice'),
    extraHeaders: extraHeadersArb(route),
  });
}

/** Percent-encodes every byte of the UTF-8 form but the unreserved ones (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Percent-encodes only what cannot go on the wire (outside printable ASCII), leaving `&=%+#` raw. */
function wireSafe(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    out += byte >= 0x21 && byte <= 0x7e ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase()}`;
  }
  return out;
}

function segment(value: Value, resolve: Resolver): string {
  return value instanceof Token ? value.text : percentEncode(toText(value, resolve));
}

/** The generated request as bytes for the wire, with the fixture's real ids and credentials. */
export function toRawRequest(route: ApiRoute, request: FuzzRequest, context: FuzzContext): RawRequest {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    segment(request.path[name] ?? '', context.resolve),
  );
  const query = request.query
    .map(({ name, value, raw, times }) => {
      const text = toText(value, context.resolve);
      const pair = raw ? `${wireSafe(name)}=${wireSafe(text)}` : `${percentEncode(name)}=${percentEncode(text)}`;
      // Past the server's 16 KiB header limit more repeats show nothing (and could exhaust memory).
      return Array(pair.length * times > 200_000 ? 1 : times)
        .fill(pair)
        .join('&');
    })
    .join('&');
  const search = query || request.queryTail ? `?${query}${request.queryTail}` : '';

  const headers: Record<string, string | string[]> = { ...request.extraHeaders };
  const own = context.credentials[request.sender];
  const session = route.credential === 'session' || route.path.startsWith('/auth/');
  if (request.credential === 'proper' || request.credential === 'twice') {
    if (session) {
      const cookie = `tasklane_session=${own.session.token}`;
      headers.cookie = request.credential === 'twice' ? `${request.oddCookie}; ${cookie}` : cookie;
      if (request.csrf === 'proper') headers['x-csrf-token'] = own.session.csrfToken;
      if (request.csrf === 'odd') headers['x-csrf-token'] = request.oddKey;
      if (request.csrf === 'twice') headers['x-csrf-token'] = [own.session.csrfToken, request.oddKey];
    } else {
      headers['x-api-key'] = request.credential === 'twice' ? [own.key, request.oddKey] : own.key;
    }
  } else if (request.credential === 'odd') {
    headers['x-api-key'] = request.oddKey;
  } else if (request.credential === 'oddCookie') {
    headers.cookie = request.oddCookie;
  }

  let body: string | undefined;
  if (request.body) {
    const { content, contentType } = request.body;
    body = content instanceof Token ? content.text : toJson(content, context.resolve);
    if (contentType !== undefined) headers['content-type'] = contentType;
  }
  return { method: route.method, path: path + search, headers, body };
}

/** The request in a few lines for a failure message (long values cut, secrets named not shown). */
export function describeRequest(raw: RawRequest): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s);
  const headers = Object.entries(raw.headers ?? {})
    .map(([k, v]) => `${k}: ${k === 'x-api-key' || k === 'cookie' ? '<credential>' : cut(String(v))}`)
    .join('; ');
  return `${raw.method} ${cut(raw.path)}\n  headers: ${headers}\n  body: ${raw.body === undefined ? '(none)' : cut(String(raw.body))}`;
}
