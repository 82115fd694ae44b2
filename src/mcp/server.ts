/**
 * One MCP server per request (the transport's stateless mode): every POST /mcp stands alone, so
 * any process answers any request, and each server's tools run as that request's caller.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ErrorCode, isJSONRPCResultResponse, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeAccess, once } from './access.js';
import { findTasks, getTaskTool, listLabels, listListsTool, listMembers, listStatuses, myTasks } from './read-tools.js';
import { registerTool, type ToolContext } from './tool.js';
import { addComment, createTaskTool, updateTaskTool } from './write-tools.js';

export const SERVER_INFO = { name: 'tasklane', version: '1.0.0' };

const INSTRUCTIONS =
  'tasklane: a team’s tasks. Tools act as the API key’s user, within its access (every result ends with it). ' +
  'Send an idempotencyKey on every write; read a task (get_task) before changing its description, and pass ' +
  'its version as expectedVersion.';

/** Answers one POST /mcp: `body` is the parsed JSON-RPC message (or batch). */
export async function answerMcp(
  context: Omit<ToolContext, 'access' | 'failed'>,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const toolContext: ToolContext = {
    ...context,
    access: once(() => describeAccess(context.store, context.caller)),
    failed: new Set(),
  };
  const server = new McpServer(SERVER_INFO, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });
  for (const tool of [findTasks, myTasks, getTaskTool, createTaskTool, updateTaskTool, addComment]) {
    registerTool(server, toolContext, tool as never);
  }
  for (const tool of [listListsTool, listStatuses, listMembers, listLabels])
    registerTool(server, toolContext, tool as never);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // A tool that failed with a bug answers a JSON-RPC internal error, not a tool error quoting it
  // (McpServer would make any thrown error a tool result with its message).
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) =>
    send(
      isJSONRPCResultResponse(message) && toolContext.failed.has(message.id)
        ? {
            jsonrpc: '2.0',
            id: message.id,
            error: { code: ErrorCode.InternalError, message: 'Internal server error.' },
          }
        : message,
      options,
    );
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
