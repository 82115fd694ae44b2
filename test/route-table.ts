/**
 * The server's own route table, joined with the OpenAPI document built from the same routes'
 * schemas. Tests that must cover "every route" (the authorization matrix, the security suite,
 * the fuzzer) take their routes from here, so a new route is covered without anyone
 * remembering to list it, and a route they cannot exercise is reported, never skipped.
 */
import { SCOPE_EXTENSION } from '../src/keys/scopes.js';
import type { TestServer } from './harness.js';

/** A JSON Schema as it appears in the OpenAPI document. */
export type JsonSchema = Record<string, any>;

export interface Parameter {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** How a route authenticates its caller. */
export type Credential = 'key' | 'session' | 'public';

export interface ApiRoute {
  /** As registered; HEAD routes (made by Fastify for every GET) included. */
  method: string;
  /** OpenAPI style: `/v1/lists/{listId}`. */
  path: string;
  /** `METHOD /path`, for test names and messages. */
  name: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  body?: { schema: JsonSchema; required: boolean };
  /** The body is multipart/form-data (an upload: the file in the field `file`). */
  multipart?: boolean;
  /** Success statuses the route documents (2xx). */
  successStatuses: number[];
  /** Statuses whose response declares the Error-Detail header (a body the spec fixes: the reason is there). */
  errorDetailStatuses: number[];
  credential: Credential;
  /** The route answers with an endless event stream. */
  streams: boolean;
  /** The route answers with bytes, not JSON (an attachment's content, issue 31). */
  binary: boolean;
  /**
   * The scope a key needs for it (issue 33: `config.scope`, published as SCOPE_EXTENSION), or
   * undefined where the route declares none.
   */
  scope?: string;
}

export interface RouteTable {
  /** Every /v1 and /auth route, documented in OpenAPI. */
  routes: ApiRoute[];
  /** Routes the tests cannot derive requests for, each with the reason: a test must fail on these. */
  problems: string[];
}

/** Outside /v1 and /auth: public by design (web app shell and assets, API docs, liveness). */
const PUBLIC_NON_API = /^\/(?:|\*|healthz|openapi\.json|docs(?:\/.*)?|oauth\/authorize)$/;

/**
 * The API's paths: /v1 and /auth, and the public OAuth endpoints (issue 33: metadata, registration,
 * the token endpoint), which are documented in OpenAPI like the rest. /oauth/authorize is a page.
 */
const API_PATH = /^\/(?:v1|auth|oauth|\.well-known)\//;

/**
 * Routes outside /v1 and /auth that need a key but are not REST, each with the reason and the
 * suites that cover them instead: their requests cannot be derived from a REST schema.
 */
export const NON_REST_ROUTES: ReadonlyMap<string, string> = new Map([
  [
    '/mcp',
    'the MCP server (issue 33): JSON-RPC over one POST, not REST. test/mcp/ covers its key (401), Origin (403), ' +
      'GET/DELETE (405), scopes and every tool; test/fuzz/mcp.test.ts fuzzes it',
  ],
]);

/**
 * Session-only routes (the web app's account and key management) whose OpenAPI entry does not
 * say so with `security`: an API key gets 403 there, so the tests must use a session.
 */
const SESSION_ONLY_PATHS = /^\/(?:auth\/|v1\/api-keys(?:\/|$))/;

/** Every METHOD + path the server has registered, parsed from `printRoutes` (hidden routes included). */
export function registeredRoutes(app: { printRoutes(options: { commonPrefix: boolean }): string }): {
  method: string;
  path: string;
}[] {
  const routes: { method: string; path: string }[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    // "│   ├── /:listId (GET, HEAD, PATCH)": 4 characters of tree per level, then the segment.
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.push({ method, path });
  }
  if (!routes.some((r) => r.method === 'GET' && r.path === '/v1/me')) {
    throw new Error(
      `could not read the route table (printRoutes changed format?):\n${app.printRoutes({ commonPrefix: false })}`,
    );
  }
  return routes.map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, '{$1}') }));
}

/** The server's OpenAPI document, as clients get it. */
export async function openApiDocument(server: TestServer): Promise<JsonSchema> {
  const response = await fetch(`${server.url}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  return response.json() as Promise<JsonSchema>;
}

/** The route table of a running test server: every /v1 and /auth route with its schemas. */
export async function loadRouteTable(server: TestServer): Promise<RouteTable> {
  const doc = await openApiDocument(server);
  const routes: ApiRoute[] = [];
  const problems: string[] = [];
  for (const { method, path } of registeredRoutes(server.app)) {
    if (PUBLIC_NON_API.test(path) || !API_PATH.test(path)) {
      if (!PUBLIC_NON_API.test(path) && !NON_REST_ROUTES.has(path)) {
        problems.push(
          `${method} ${path} is outside /v1 and /auth and is not a known public page; ` +
            'add it to PUBLIC_NON_API in test/route-table.ts only if it is meant to answer without a key',
        );
      }
      continue;
    }
    // Fastify answers HEAD with its GET route; the document lists only the GET.
    const operation = doc.paths?.[path]?.[(method === 'HEAD' ? 'GET' : method).toLowerCase()];
    if (!operation) {
      problems.push(
        `${method} ${path} is not in /openapi.json (hidden?): its requests cannot be derived from a schema, ` +
          'so the authorization matrix and the fuzzer cannot cover it',
      );
      continue;
    }
    routes.push(toApiRoute(method, path, operation));
  }
  return { routes, problems };
}

function toApiRoute(method: string, path: string, operation: JsonSchema): ApiRoute {
  const parameters: (Parameter & { in: string })[] = (operation.parameters ?? []).map((p: JsonSchema) => ({
    in: p.in,
    name: p.name,
    // OpenAPI lifts a parameter's example out of its schema: put it back, for the tests that need one.
    schema: p.example === undefined ? (p.schema ?? {}) : { ...p.schema, example: p.example },
    required: p.required === true,
  }));
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  // A streamed upload (issue 31): its body is multipart/form-data, not JSON.
  const multipart = operation.requestBody?.content?.['multipart/form-data'] !== undefined;
  const successStatuses = Object.keys(operation.responses ?? {})
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  const errorDetailStatuses = Object.entries(operation.responses ?? {})
    .filter(([, response]) => (response as JsonSchema).headers?.['Error-Detail'] !== undefined)
    .map(([status]) => Number(status));
  const security: JsonSchema[] | undefined = operation.security;
  const credential: Credential =
    security && security.length === 0
      ? 'public'
      : (security && security.every((s) => Object.keys(s).every((scheme) => scheme === 'session'))) ||
          SESSION_ONLY_PATHS.test(path)
        ? 'session'
        : 'key';
  const streams = JSON.stringify(operation.responses?.['200'] ?? {}).includes('text/event-stream');
  const okContent = Object.keys(operation.responses?.['200']?.content ?? {});
  const binary = okContent.length > 0 && !okContent.includes('application/json') && !streams;
  return {
    method,
    path,
    name: `${method} ${path}`,
    pathParams: parameters.filter((p) => p.in === 'path'),
    queryParams: parameters.filter((p) => p.in === 'query'),
    body: bodySchema ? { schema: bodySchema, required: operation.requestBody.required === true } : undefined,
    multipart,
    successStatuses,
    errorDetailStatuses,
    credential,
    streams,
    binary,
    scope: operation[SCOPE_EXTENSION],
  };
}
