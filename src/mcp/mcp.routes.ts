/**
 * POST /mcp: the Model Context Protocol's Streamable HTTP transport (docs/mcp.md), answered by the
 * official SDK's server in stateless mode with JSON responses (server.ts). Fastify parses the
 * body (its 4xx stay `{"error"}`), authenticates the key (auth/authenticate.ts, which also takes
 * `Authorization: Bearer` here) and spends the rate limit; then the SDK answers on the raw
 * response. GET and DELETE /mcp are 405, as the transport allows a server that offers no stream
 * and no sessions.
 */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import type { App, AppDeps } from '../http/app-types.js';
import { invalidInput } from '../http/errors.js';
import { answerMcp } from './server.js';

const tags = ['MCP'];
export const NO_STREAM_MESSAGE =
  'This MCP server offers no event stream and no sessions: send each JSON-RPC message with POST /mcp.';

export function mcpRoutes(app: App, _deps: AppDeps): void {
  app.post(
    '/mcp',
    {
      config: { agentProtocol: true, scope: 'perTool' },
      schema: {
        summary: 'The MCP server (Streamable HTTP, stateless, JSON responses): JSON-RPC in, JSON-RPC out (docs/mcp.md)',
        tags,
        body: Type.Unknown({ description: 'A JSON-RPC request, notification or response (or a batch).' }),
        response: { ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      if (request.body === undefined) throw invalidInput('The request body is empty; send a JSON-RPC message.');
      const secret = request.headers['x-api-key'];
      const credentialSecret =
        (Array.isArray(secret) ? secret[0] : secret) ||
        /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')![1]!;
      // From here the SDK writes the response; what Fastify would have added goes on the raw one.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value as string);
      }
      reply.raw.setHeader('cache-control', 'no-store');
      reply.hijack();
      await answerMcp(
        { store: request.store, caller: request.caller, credentialSecret, log: request.log },
        request.raw,
        reply.raw,
        request.body,
      );
    },
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { agentProtocol: true, scope: 'perTool' },
      schema: {
        summary: `Not offered: 405 (the MCP server is stateless and streams nothing; use POST /mcp)`,
        tags,
        response: { ...errorResponses(405) },
      },
      handler: async (_request, reply) => reply.code(405).header('allow', 'POST').send({ error: NO_STREAM_MESSAGE }),
    });
  }
}
