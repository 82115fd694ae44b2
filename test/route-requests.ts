/**
 * A valid request for any route of the route table, made from its OpenAPI schemas: path
 * parameters and id-like body fields name the world's objects (or, for comparison, ids that do
 * not exist), other required fields get a value their schema accepts. What should happen to the
 * request follows from who sends it and which objects it names. A route whose inputs cannot be
 * filled this way throws CannotExercise, so the test fails and says what to teach it.
 */
import type { RawRequest } from './raw-request.js';
import type { ApiRoute, JsonSchema } from './route-table.js';
import { isIdLike, refKindOf, typesOf } from './fuzz/arbitraries.js';
import type { RefKind } from './fuzz/values.js';
import { WORLD_REDIRECT_URI, WORLD_WEBHOOK_URL, type World, type WorldActor } from './world.js';

export class CannotExercise extends Error {}

/** Who sends the request: the world's owner, its teammate without access, another team's owner, or nobody. */
export type Who = 'owner' | 'outsider' | 'stranger' | 'anonymous';
export const EVERYONE: readonly Who[] = ['anonymous', 'stranger', 'outsider', 'owner'];

/**
 * Objects a request can name, and who in the world may use them. A list named under
 * /v1/lists-without-members is the world's list that has no members (the only kind that route joins).
 */
type ObjectKind =
  | Exclude<RefKind, 'email' | 'password' | 'url' | 'invitationToken' | 'oauthClient' | 'redirectUri' | 'mcpResource'>
  | 'memberlessList';
const MEMBERLESS_LIST_ROUTE = /^\/v1\/lists-without-members\//;
const USABLE_BY: Record<Exclude<Who, 'anonymous'>, ReadonlySet<ObjectKind>> = {
  owner: new Set([
    'list',
    'task',
    'comment',
    'entry',
    'status',
    'label',
    'moveTo',
    'user',
    'team',
    'key',
    'webhook',
    'view',
    'notification',
    'attachment',
    'export',
    'import',
    'delivery',
    'invitation',
    'memberlessList',
  ]),
  // A teammate sees the team's statuses, labels and members, but not the private list, task (nor its
  // comment or activity), the owner's keys or webhooks, nor the team's invitations.
  outsider: new Set(['status', 'label', 'moveTo', 'user', 'team']),
  stranger: new Set(),
};

/**
 * Routes only the team's owners and admins may use, and what they manage, as their 403 names it
 * (`Only the team's owners and admins can manage <what>.`): the world's teammate is a plain member.
 */
const MANAGED: readonly { route: RegExp; what: string; message?: string }[] = [
  { route: /^(PATCH|DELETE) \/v1\/members\//, what: 'members' },
  { route: /^(GET|HEAD|POST|DELETE) \/v1\/invitations/, what: 'invitations' },
  { route: /^(POST|PATCH|DELETE) \/v1\/task-statuses/, what: 'workflow statuses' },
  { route: /^(POST|PATCH|DELETE) \/v1\/labels/, what: 'labels' },
  { route: /^(GET|HEAD|POST) \/v1\/lists-without-members/, what: 'lists without members' },
  { route: /^PATCH \/v1\/team$/, what: 'the team' },
  { route: /^(GET|HEAD|POST) \/v1\/imports/, what: 'imports' },
  { route: /^(GET|HEAD|DELETE) \/v1\/agent-access/, what: "agents' access" },
  {
    route: /^POST \/auth\/email$/,
    what: 'their own email',
    message: "Only the team's owners and admins can change their own email; the server's operator can change yours.",
  },
];

/**
 * POST /auth/setup is for the first start's team, which the world's teams are not: its owner (and
 * another team's) is told it is set up already, a plain member that only the owner sets it up.
 */
const SETUP_ROUTE = 'POST /auth/setup';
const SETUP_REFUSALS: Record<Exclude<Who, 'anonymous'>, { status: number; message: string }> = {
  owner: { status: 409, message: 'This team is already set up.' },
  stranger: { status: 409, message: 'This team is already set up.' },
  outsider: { status: 403, message: "Only the team's owner can set it up." },
};

/** The 403 a plain member gets on a route only owners and admins may use, or undefined for any other route. */
export function managersOnly(route: ApiRoute): string | undefined {
  const managed = MANAGED.find((m) => m.route.test(route.name));
  return managed && (managed.message ?? `Only the team's owners and admins can manage ${managed.what}.`);
}

/**
 * The fields a multipart route takes beside its file: an import of the matrix's file as a
 * spreadsheet whose one column (its only line, the header) is the titles.
 */
const MULTIPART_FIELDS: Record<string, Record<string, string>> = {
  'POST /v1/imports': { source: 'csv', columns: JSON.stringify({ title: 'A file of the matrix.' }) },
};

/** Ids that exist nowhere: what a refused reference is compared with, so it reveals nothing. */
const MISSING_NUMBER = 2_147_480_001;
const MISSING_UUID = '00000000-0000-4000-8000-000000000001';

export interface Reference {
  kind: ObjectKind;
  where: 'path' | 'body' | 'query';
  name: string;
  value: string | number;
}

export interface MatrixRequest {
  raw: RawRequest;
  references: Reference[];
}

/**
 * The body variants worth sending: `refs` (required fields and every field naming an object)
 * and, when it differs, `minimal` (required fields only, which a teammate may well be allowed).
 */
export function bodyVariants(route: ApiRoute): ('refs' | 'minimal')[] {
  if (!route.body) return ['refs'];
  const properties = Object.entries((route.body.schema.properties ?? {}) as Record<string, JsonSchema>);
  const required = new Set<string>(route.body.schema.required ?? []);
  const optionalRefs = properties.filter(([name, schema]) => !required.has(name) && isIdLike(name, schema));
  return optionalRefs.length > 0 ? ['refs', 'minimal'] : ['refs'];
}

function actorOf(world: World, who: Who): WorldActor | undefined {
  return who === 'anonymous' ? undefined : world[who];
}

function realValue(world: World, kind: ObjectKind): string | number {
  switch (kind) {
    case 'list':
      return world.listId;
    case 'task':
      return world.taskId;
    case 'comment':
      return world.commentId;
    case 'entry':
      return world.entryId;
    case 'status':
      return world.statusId;
    case 'label':
      return world.labelId;
    case 'moveTo':
      return world.defaultStatusId;
    case 'invitation':
      return world.invitationId;
    case 'user':
      return world.mate.userId;
    case 'team':
      return world.teamId;
    case 'key':
      return world.spareKeyId;
    case 'webhook':
      return world.webhookId;
    case 'delivery':
      return world.deliveryId;
    case 'view':
      return world.viewId;
    case 'notification':
      return world.notificationId;
    case 'attachment':
      return world.attachmentId;
    case 'export':
      return world.exportId;
    case 'import':
      return world.importId;
    case 'memberlessList':
      return world.memberlessListId;
  }
}

function missingValue(kind: ObjectKind): string | number {
  return kind === 'list' ||
    kind === 'task' ||
    kind === 'comment' ||
    kind === 'entry' ||
    kind === 'status' ||
    kind === 'label' ||
    kind === 'moveTo' ||
    kind === 'delivery' ||
    kind === 'view' ||
    kind === 'notification' ||
    kind === 'attachment' ||
    kind === 'export' ||
    kind === 'import' ||
    kind === 'memberlessList'
    ? MISSING_NUMBER
    : MISSING_UUID;
}

/** A value the schema accepts, for a field that names no object. */
function example(schema: JsonSchema, where: string): unknown {
  // A value no rule of thumb makes (an opaque cursor): the schema's own example.
  if (schema.example !== undefined || Array.isArray(schema.examples)) return schema.example ?? schema.examples[0];
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null) ?? null;
  const types = typesOf(schema);
  if (types.includes('string')) {
    if (schema.format === 'date') return '2030-01-15';
    if (schema.format === 'date-time') return '2030-01-15T12:00:00Z';
    const candidates = ['Matrix sample', 'a', '1', 'x'.repeat(schema.minLength ?? 1)];
    const fit = candidates.find(
      (s) =>
        s.length >= (schema.minLength ?? 0) &&
        s.length <= (schema.maxLength ?? Infinity) &&
        (schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(s)),
    );
    if (fit !== undefined && schema.format === undefined) return fit;
  }
  if (types.includes('integer') || types.includes('number')) return schema.minimum ?? 1;
  if (types.includes('boolean')) return true;
  if (types.includes('array')) return [];
  if (types.includes('object')) return {};
  if (types.includes('null')) return null;
  throw new CannotExercise(`${where}: cannot make a valid value for the schema ${JSON.stringify(schema)}`);
}

/**
 * The request `who` sends to `route` in the world; with `missing`, every object it names that
 * `who` may not use is replaced by an id that does not exist (the ones they may use stay, so the
 * two requests differ only where the answer must not).
 */
export function buildMatrixRequest(
  route: ApiRoute,
  world: World,
  who: Who,
  variant: 'refs' | 'minimal',
  missing = false,
  options: { everyQueryParameter?: boolean } = {},
): MatrixRequest {
  const actor = actorOf(world, who);
  const references: Reference[] = [];
  const refer = (name: string, schema: JsonSchema, where: Reference['where']): string | number | undefined => {
    const named = refKindOf(name, schema);
    const kind = named === 'list' && MEMBERLESS_LIST_ROUTE.test(route.path) ? 'memberlessList' : named;
    if (kind === 'email') return actor?.email ?? world.owner.email;
    if (kind === 'password') return /new/i.test(name) ? 'a brand new password' : (actor?.password ?? 'no password');
    if (kind === 'url') return WORLD_WEBHOOK_URL;
    if (kind === 'invitationToken') return world.invitationToken;
    if (kind === 'oauthClient') return world.oauthClientId;
    if (kind === 'redirectUri') return WORLD_REDIRECT_URI;
    if (kind === 'mcpResource') return world.mcpResource;
    if (!kind) {
      if (!isIdLike(name, schema)) return undefined;
      throw new CannotExercise(
        `${route.name}: ${where} field "${name}" holds an id, but the matrix does not know which object it names; ` +
          'teach refKindOf in test/fuzz/arbitraries.ts (and USABLE_BY in test/route-requests.ts) about it',
      );
    }
    const hidden = who === 'anonymous' || !USABLE_BY[who].has(kind);
    // An undo takes back an applied import; every other route of imports names the planned one.
    const real = kind === 'import' && /\/undo$/.test(route.path) ? world.appliedImportId : realValue(world, kind);
    const value = missing && hidden ? missingValue(kind) : real;
    references.push({ kind, where, name, value });
    return value;
  };

  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const param = route.pathParams.find((p) => p.name === name);
    const value = refer(name, param?.schema ?? {}, 'path');
    if (value === undefined) {
      throw new CannotExercise(
        `${route.name}: the matrix does not know which object the path parameter {${name}} names; ` +
          'teach refKindOf in test/fuzz/arbitraries.ts about it',
      );
    }
    return encodeURIComponent(String(value));
  });

  // The required query parameters, and with `everyQueryParameter` each one the route declares,
  // with a value it accepts; an array parameter is repeated, as clients give several values.
  const query = new URLSearchParams();
  for (const param of route.queryParams.filter((p) => p.required || options.everyQueryParameter)) {
    const repeated = typesOf(param.schema).includes('array');
    const schema = repeated ? (param.schema.items ?? {}) : param.schema;
    const where = `${route.name} query parameter "${param.name}"`;
    const value = String(refer(param.name, schema, 'query') ?? example(schema, where));
    for (let i = 0; i < (repeated ? 2 : 1); i++) query.append(param.name, value);
  }
  const search = query.size > 0 ? `?${query.toString()}` : '';

  let body: string | undefined;
  if (route.body) {
    const schema = route.body.schema;
    const required = new Set<string>(schema.required ?? []);
    const fields: Record<string, unknown> = {};
    const properties = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
    for (const [name, fieldSchema] of properties) {
      const isRef = isIdLike(name, fieldSchema);
      if (!required.has(name) && !(variant === 'refs' && isRef)) continue;
      const value = refer(name, fieldSchema, 'body');
      const arrayOf = typesOf(fieldSchema).includes('array');
      fields[name] =
        value === undefined ? example(fieldSchema, `${route.name} body field "${name}"`) : arrayOf ? [value] : value;
    }
    // An update with nothing to change proves little: change the first plain field.
    if (Object.keys(fields).length === 0 && properties.length > 0) {
      const [name, fieldSchema] = properties.find(([n, s]) => !isIdLike(n, s)) ?? properties[0]!;
      fields[name] = refer(name, fieldSchema, 'body') ?? example(fieldSchema, `${route.name} body field "${name}"`);
    }
    body = JSON.stringify(fields);
  }

  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (route.multipart) {
    // A small text file, in the field `file`, after the route's other fields.
    const boundary = 'tasklaneMatrixBoundary';
    const fields = Object.entries(MULTIPART_FIELDS[route.name] ?? {}).map(
      ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    body =
      fields.join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="matrix.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\nA file of the matrix.\r\n--${boundary}--\r\n`;
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  }
  if (actor && route.credential === 'session') {
    headers.cookie = `tasklane_session=${actor.session.token}`;
    headers['x-csrf-token'] = actor.session.csrfToken;
  } else if (actor && route.credential === 'key') {
    headers['x-api-key'] = actor.key;
  }
  return { raw: { method: route.method, path: path + search, headers, body }, references };
}

export type Expectation =
  | { outcome: 'allowed' }
  | {
      outcome: 'refused';
      /** Undefined: any 4xx. */
      status?: number;
      message?: string;
      /** The answer must be the one an id that does not exist gets: it reveals nothing. */
      likeMissing: boolean;
      why: string;
    };

const OUTSIDER_REFUSALS: Partial<Record<ObjectKind, (id: string | number) => { status: number; message: string }>> = {
  // The spec: same team without access → 403 with these exact messages.
  list: () => ({ status: 403, message: 'You do not have access to this list.' }),
  task: () => ({ status: 403, message: 'You do not have access to this task.' }),
  // A teammate's key is private: as if it did not exist.
  key: (id) => ({ status: 404, message: `API key ${id} not found.` }),
  // A teammate's webhook is theirs alone: as if it did not exist.
  webhook: (id) => ({ status: 404, message: `Webhook ${id} not found.` }),
  // A teammate's private view is theirs alone: as if it did not exist.
  view: (id) => ({ status: 404, message: `View ${id} not found.` }),
  // An export is its requester's alone: as if it did not exist.
  export: (id) => ({ status: 404, message: `Export ${id} not found.` }),
  // Only owners and admins see the team's invitations; a plain member is told so.
  invitation: () => ({ status: 403, message: "Only the team's owners and admins can manage invitations." }),
};

const STRANGER_REFUSALS: Partial<Record<ObjectKind, (id: string | number) => string>> = {
  list: (id) => `List ${id} not found.`,
  memberlessList: (id) => `List ${id} not found.`,
  task: (id) => `Task ${id} not found.`,
  key: (id) => `API key ${id} not found.`,
  webhook: (id) => `Webhook ${id} not found.`,
  view: (id) => `View ${id} not found.`,
  export: (id) => `Export ${id} not found.`,
  import: (id) => `Import ${id} not found.`,
  invitation: (id) => `Invitation ${id} not found.`,
  status: (id) => `Task status ${id} not found.`,
};

/** What must happen when `who` sends a request naming `references`. */
export function expectationFor(route: ApiRoute, who: Who, references: Reference[]): Expectation {
  if (route.credential === 'public') return { outcome: 'allowed' };
  if (who === 'anonymous') {
    return { outcome: 'refused', status: 401, likeMissing: false, why: 'no credentials' };
  }
  if (route.name === SETUP_ROUTE)
    return { outcome: 'refused', ...SETUP_REFUSALS[who], likeMissing: false, why: 'set up already' };
  const usable = USABLE_BY[who];
  // A plain member is told the route is for owners and admins, whatever it names.
  const managers = managersOnly(route);
  if (who === 'outsider' && managers) {
    return { outcome: 'refused', status: 403, message: managers, likeMissing: false, why: 'a plain member' };
  }
  const pathRef = references.find((r) => r.where === 'path' && !usable.has(r.kind));
  if (pathRef && who === 'outsider') {
    const refusal = OUTSIDER_REFUSALS[pathRef.kind]?.(pathRef.value);
    return {
      outcome: 'refused',
      status: refusal?.status,
      message: refusal?.message,
      likeMissing:
        pathRef.kind === 'key' || pathRef.kind === 'webhook' || pathRef.kind === 'view' || pathRef.kind === 'export',
      why: `the path names a ${pathRef.kind} the teammate has no access to`,
    };
  }
  if (pathRef) {
    return {
      outcome: 'refused',
      status: 404,
      message: STRANGER_REFUSALS[pathRef.kind]?.(pathRef.value),
      likeMissing: true,
      why: `the path names another team's ${pathRef.kind}`,
    };
  }
  const bodyRef = references.find((r) => !usable.has(r.kind));
  if (bodyRef) {
    return {
      outcome: 'refused',
      likeMissing: true,
      why: `the body field ${bodyRef.name} names a ${bodyRef.kind} the caller may not use`,
    };
  }
  return { outcome: 'allowed' };
}

/** The message with every id the two requests named replaced, so their answers can be compared. */
export function withoutIds(message: string, references: Reference[]): string {
  let text = message;
  const ids = [...references.map((r) => String(r.value)), String(MISSING_NUMBER), MISSING_UUID];
  for (const id of ids.sort((a, b) => b.length - a.length)) {
    const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'g'), '<id>');
  }
  return text;
}
