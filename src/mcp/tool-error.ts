/** A tool's refusal, as MCP answers one: a result with isError, never a JSON-RPC error. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool error: the message, and what the agent needs to act on it. */
export function toolError(message: string, data: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text: message }], structuredContent: { error: message, ...data }, isError: true };
}
