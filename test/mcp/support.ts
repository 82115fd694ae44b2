/**
 * The official MCP SDK's client against a test server's /mcp, as an agent would connect: the
 * key as `Authorization: Bearer`.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { insertKey } from '../../src/keys/keys.repository.js';
import type { Actor } from '../factories.js';
import type { TestServer } from '../harness.js';

/** A connected SDK client for `key`; close it with `client.close()`. */
export async function connect(server: TestServer, key: string): Promise<Client> {
  const client = new Client({ name: 'tasklane-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** A new key of `actor`'s named `name` (the name activity shows for changes made through /mcp). */
export async function namedKey(server: TestServer, actor: Actor, name: string): Promise<string> {
  const { key } = await insertKey(server.store.db, { teamId: actor.teamId, userId: actor.userId, name });
  return key;
}

/** Calls a tool; asserts it succeeded (printing the whole result otherwise) and returns its structured content. */
export async function call<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(!result.isError, `${name} failed: ${JSON.stringify(result)}`);
  return result.structuredContent as T;
}

/** Calls a tool that must be refused; returns the refusal's text and structured content. */
export async function refused(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text: string; data: any }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.equal(result.isError, true, `${name} was not refused: ${JSON.stringify(result)}`);
  const first = result.content[0];
  return { text: first?.type === 'text' ? first.text : '', data: result.structuredContent };
}
