/**
 * The one way the app talks to the server: JSON over fetch, same-origin cookie, the session's
 * CSRF token on every change, and every failure turned into an ApiError carrying the server's
 * own `{"error"}` message, with the precise reason of its `Error-Detail` header when it sent one.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The server's `{"error"}` message (the spec's fixed text, such as "Invalid input."). */
    readonly error: string,
    /** The server's `Error-Detail` header: the field and the rule, e.g. "title is required.". */
    readonly detail: string | null = null,
  ) {
    // Shown as one message wherever the app shows an error: "Invalid input. (title is required)".
    super(detail ? `${error} (${detail.replace(/\.$/, '')})` : error);
  }
}

/**
 * The `Error-Detail` header as a person reads it. The server sends printable ASCII only and
 * writes any other character as a JSON-style `\uXXXX` escape (docs/api.md), undone here.
 */
function errorDetail(response: Response): string | null {
  const header = response.headers.get('error-detail')?.trim();
  if (!header) return null;
  return header.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export interface ApiResponse<T> {
  data: T;
  /** The ETag of a single task or list, for If-Match on the next change. */
  etag: string | null;
  /** The answer's headers (a list's `Link` to its next page). */
  headers: Headers;
}

/**
 * A page of a list the server caps by size (activity, comments, deliveries): it may hold fewer
 * items than asked for while more remain, so the end is known from its `Link` header, not its length.
 */
export interface Page<T> {
  items: T[];
  /** More items remain after these (the answer named a next page). */
  more: boolean;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface RequestOptions {
  body?: unknown;
  query?: URLSearchParams;
  ifMatch?: string;
  /** Sent as Idempotency-Key: a POST sent again with the same key is applied once. */
  idempotencyKey?: string;
}

/** Requests whose 401 means a wrong password, not that the session ended. */
const CREDENTIAL_CHECKS = new Set(['/auth/sign-in', '/auth/accept-invitation']);

let csrfToken: string | null = null;
let onSessionEnded: () => void = () => {};

/** The token GET /auth/session and POST /auth/sign-in hand out; sent as x-csrf-token. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the server says the session is over (401), so the app can show the sign-in page. */
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}

export async function request<T>(method: Method, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  // Fastify refuses an empty body announced as JSON, so the header goes only with a body.
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (options.ifMatch) headers['if-match'] = options.ifMatch;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const query = options.query?.toString();

  let response: Response;
  try {
    response = await fetch(query ? `${path}?${query}` : path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'Cannot reach the server. Check your connection and try again.');
  }

  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON (a proxy's error page, say): reported by status below
  }
  if (!response.ok) {
    const message =
      json && typeof json === 'object' && 'error' in json && typeof json.error === 'string'
        ? json.error
        : `The server answered ${response.status}.`;
    if (response.status === 401 && !CREDENTIAL_CHECKS.has(path)) onSessionEnded();
    throw new ApiError(response.status, message, errorDetail(response));
  }
  return { data: json as T, etag: response.headers.get('etag'), headers: response.headers };
}

export const get = async <T>(path: string, query?: URLSearchParams) => (await request<T>('GET', path, { query })).data;
/** A page of a list; the next is asked for with the list's cursor past its last item, as before. */
export async function getPage<T>(path: string, query?: URLSearchParams): Promise<Page<T>> {
  const { data, headers } = await request<T[]>('GET', path, { query });
  return { items: data, more: /\brel="next"/.test(headers.get('link') ?? '') };
}
export const post = async <T>(path: string, body?: unknown) => (await request<T>('POST', path, { body })).data;
export const patch = async <T>(path: string, body: unknown) => (await request<T>('PATCH', path, { body })).data;
export const del = async <T>(path: string) => (await request<T>('DELETE', path)).data;

/**
 * A fresh Idempotency-Key. From getRandomValues, not randomUUID: a self-hosted server reached
 * over plain HTTP is not a secure context, where randomUUID does not exist.
 */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** A message fit to show a person, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
