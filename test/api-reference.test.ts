/**
 * docs/api.md is the reference for everything beyond the published interface. Every route the
 * server registers is either one of the spec's (documented there and in /openapi.json) or named in
 * docs/api.md as `METHOD /path`, so a new endpoint cannot ship undocumented. /openapi.json
 * describes every query parameter, and its intro reads right on /docs.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import MarkdownIt from 'markdown-it';
import { startTestServer, type TestServer } from './harness.js';
import { ROOT } from './processes.js';
import { loadRouteTable, openApiDocument, type JsonSchema } from './route-table.js';

/** The published interface's endpoints (task-service-interface 1.0.0); they never change. */
const SPEC_ROUTES = new Set([
  'GET /v1/me',
  'GET /v1/lists',
  'POST /v1/lists',
  'GET /v1/lists/{listId}',
  'PATCH /v1/lists/{listId}',
  'POST /v1/lists/{listId}/archive',
  'POST /v1/lists/{listId}/unarchive',
  'GET /v1/task-statuses',
  'GET /v1/users',
  'GET /v1/tasks',
  'POST /v1/tasks',
  'GET /v1/tasks/{taskId}',
  'PATCH /v1/tasks/{taskId}',
  'DELETE /v1/tasks/{taskId}',
]);

describe('the API reference', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('every endpoint beyond the published interface is named in docs/api.md', async () => {
    const reference = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
    const { routes } = await loadRouteTable(server);
    const undocumented = routes
      .filter((route) => route.method !== 'HEAD' && !SPEC_ROUTES.has(route.name))
      .map((route) => route.name)
      .filter((name) => !reference.includes(`\`${name}`));
    assert.deepEqual(undocumented, [], 'name each in docs/api.md as `METHOD /path`');
  });

  test('/openapi.json describes every query parameter of every operation', async () => {
    const doc = await openApiDocument(server);
    const parameters = Object.entries(doc.paths as Record<string, Record<string, JsonSchema>>).flatMap(
      ([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) =>
          ((operation.parameters ?? []) as JsonSchema[])
            .filter((p) => p.in === 'query')
            .map((p) => ({ name: `${method.toUpperCase()} ${path} ?${p.name}`, description: p.description })),
        ),
    );
    assert.ok(parameters.length >= 11, `only ${parameters.length} query parameters found`);
    const undescribed = parameters.filter((p) => typeof p.description !== 'string' || p.description.trim() === '');
    assert.deepEqual(
      undescribed.map((p) => p.name),
      [],
      'give each a description in its schema (src/contract/)',
    );
  });

  test('the /docs intro shows the error body {"error": "<message>"} literally, not <message> as an HTML tag', async () => {
    const { description } = (await openApiDocument(server)).info as { description: string };
    // Rendered as Markdown that lets HTML through, as /docs does: `<message>` must come out as text.
    const html = new MarkdownIt({ html: true }).render(description);
    assert.ok(
      html.includes('{&quot;error&quot;: &quot;&lt;message&gt;&quot;}'),
      `the intro renders as ${html}; write it as a code span or escape it`,
    );
    assert.ok(!/<message>/i.test(html), `<message> would be taken for an HTML tag: ${html}`);
  });
});
