/**
 * One MCP server per request (the transport's stateless mode): every POST /mcp stands alone, so
 * any process answers any request, and each server's tools run as that request's caller.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
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
  transport.send = (message: JSONRPCMessage, options) => send(answered(message, toolContext.failed), options);
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * The answer as sent: a tool call that failed with a bug becomes a JSON-RPC internal error
 * (McpServer would make it a tool result quoting the error). Any other internal error is the
 * SDK's refusal of a request whose params do not fit the method (it answers those as -32603,
 * with the schema's issues as JSON): that is the client's mistake, so it says invalid params.
 */
function answered(message: JSONRPCMessage, failed: ReadonlySet<RequestId>): JSONRPCMessage {
  if (isJSONRPCResultResponse(message) && failed.has(message.id)) {
    return {
      jsonrpc: '2.0',
      id: message.id,
      error: { code: ErrorCode.InternalError, message: 'Internal server error.' },
    };
  }
  if (isJSONRPCErrorResponse(message) && message.error.code === ErrorCode.InternalError) {
    return { ...message, error: { code: ErrorCode.InvalidParams, message: invalidParams(message.error.message) } };
  }
  return message;
}

/** "Invalid params: <the first issue>", from the SDK's message (Zod's issues as JSON), or without it. */
function invalidParams(sdkMessage: string): string {
  try {
    const [issue] = JSON.parse(sdkMessage) as { path?: unknown[]; message?: string }[];
    if (issue?.message) return `Invalid params: ${issue.path?.join('.') ?? ''}: ${issue.message}`;
  } catch {
    // Not Zod's issues: say no more than that.
  }
  return 'Invalid params.';
}
