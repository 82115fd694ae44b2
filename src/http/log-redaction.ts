/**
 * Defence in depth for "nothing ever logs a key or a password". Fastify's request serializer
 * logs neither headers nor bodies and no code logs them (test/no-secrets-in-logs.test.ts runs the
 * server at trace level to prove it); should anyone later log a request's headers or a body,
 * pino censors these fields anyway.
 *
 * The paths name their parents (`req`, `request`, `body`) rather than starting with a wildcard:
 * pino runs a leading-wildcard redaction over every binding of every child logger, and Fastify
 * makes one per request, which cost about 7% of the CPU of a small request (BENCHMARKS.md).
 */
const SECRET_HEADERS = ['["x-api-key"]', '.cookie', '["x-csrf-token"]', '.authorization'];
const SECRET_FIELDS = ['password', 'currentPassword', 'newPassword', 'key', 'secret', 'token', 'link'];
const REQUESTS = ['req', 'request'];

export const LOG_REDACTION = {
  paths: [
    ...SECRET_HEADERS.flatMap((header) => [
      `headers${header}`,
      ...REQUESTS.map((request) => `${request}.headers${header}`),
    ]),
    ...SECRET_FIELDS.flatMap((field) => [
      field,
      `body.${field}`,
      ...REQUESTS.map((request) => `${request}.body.${field}`),
    ]),
  ],
  censor: '[redacted]',
};
