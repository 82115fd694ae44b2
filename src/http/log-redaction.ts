/**
 * Defence in depth for "nothing ever logs a key or a password". Fastify's request serializer
 * logs neither headers nor bodies and no code logs them (test/no-secrets-in-logs.test.ts runs the
 * server at trace level to prove it); should anyone later log a request's headers or a body,
 * pino censors these fields anyway.
 */
const SECRET_HEADERS = ['["x-api-key"]', '.cookie', '["x-csrf-token"]', '.authorization'];
const SECRET_FIELDS = ['password', 'currentPassword', 'newPassword', 'key'];

export const LOG_REDACTION = {
  paths: [
    ...SECRET_HEADERS.flatMap((header) => [`req.headers${header}`, `headers${header}`, `*.headers${header}`]),
    ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.body.${field}`]),
  ],
  censor: '[redacted]',
};
