/**
 * The MCP specification's Origin check (Streamable HTTP, "Security warning"): a request whose
 * Origin is not allowed is refused with 403 before it is authenticated. Allowed: no Origin (an
 * agent is not a browser), the server's own origin (PUBLIC_URL's when set, else the one the
 * request was addressed to), and the origins CORS_ORIGINS lets read the API (http/cors.ts).
 * With PUBLIC_URL set, a DNS-rebinding page (whose Origin is its own host name) is refused; and
 * without a key it could do nothing anyway: keys travel in headers, which a browser never adds
 * by itself.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { App } from '../http/app-types.js';
import { forbidden } from '../http/errors.js';

export const FOREIGN_ORIGIN_MESSAGE = 'Requests from this Origin are not allowed to use /mcp.';

/** Whether `request`'s Origin may use /mcp. */
export function allowedOrigin(request: FastifyRequest, config: Pick<Config, 'publicUrl' | 'corsOrigins'>): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (config.corsOrigins.includes(origin)) return true;
  const own = config.publicUrl ? new URL(config.publicUrl).origin : `${request.protocol}://${request.host}`;
  return origin === own;
}

/** Refuses a foreign Origin on the routes of an agent's protocol, first of their checks. */
export function registerOriginCheck(app: App, config: Pick<Config, 'publicUrl' | 'corsOrigins'>): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.agentProtocol && !allowedOrigin(request, config)) {
      throw forbidden(FOREIGN_ORIGIN_MESSAGE);
    }
  });
}
