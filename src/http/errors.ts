/**
 * The closed set of failures a request can end in. Services throw these; the one error
 * handler in app.ts turns a kind into a status and writes `{"error": message}`.
 */
export type ErrorKind =
  | 'invalidInput'
  | 'unauthorized'
  | 'forbidden'
  | 'notFound'
  | 'conflict'
  | 'gone'
  | 'preconditionFailed'
  | 'tooLarge'
  | 'unsupportedMediaType'
  | 'rateLimited'
  | 'unavailable';

export const STATUS_OF: Record<ErrorKind, number> = {
  invalidInput: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  gone: 410,
  preconditionFailed: 412,
  tooLarge: 413,
  unsupportedMediaType: 415,
  rateLimited: 429,
  unavailable: 503,
};

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** Extra response headers, such as Retry-After. */
    readonly headers: Record<string, string> = {},
    /**
     * What the server logs about the failure and the caller must not be told (what a webhook's
     * host resolved to); the error handler logs it on the request's log line.
     */
    readonly logDetail?: Record<string, unknown>,
  ) {
    super(message);
  }
  get status(): number {
    return STATUS_OF[this.kind];
  }
}

export const invalidInput = (message: string, logDetail?: Record<string, unknown>) =>
  new AppError('invalidInput', message, {}, logDetail);
export const unauthorized = (message: string) => new AppError('unauthorized', message);
export const forbidden = (message: string) => new AppError('forbidden', message);
export const notFound = (message: string) => new AppError('notFound', message);
export const conflict = (message: string) => new AppError('conflict', message);
export const gone = (message: string) => new AppError('gone', message);
export const preconditionFailed = (message: string) => new AppError('preconditionFailed', message);
