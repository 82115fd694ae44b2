/** Team exports (issue 32): /v1/exports; docs/api.md, "Exports"; the file's format: docs/export-format.md. */
import { Type } from 'typebox';
import { errorResponses } from '../contract/common.js';
import { Export, ExportList, ExportParams } from '../contract/exports.js';
import type { App } from '../http/app-types.js';
import type { ExportFiles, ExportRunner } from './export-runner.js';
import * as service from './exports.service.js';

const tags = ['Exports'];

export const exportsRoutes = (runner: ExportRunner, files: ExportFiles) =>
  function registerExportsRoutes(app: App): void {
    app.post(
      '/v1/exports',
      {
        // The export starts once its row commits, outside any request transaction; a retried POST
        // makes a second export, or a 409 while the first is still being written.
        config: { scope: 'full', idempotency: false },
        schema: {
          summary:
            'Export the team (owners and admins) or what you can read (members) as one gzip’d JSON Lines file, written in the background (issue 32)',
          tags,
          response: { 202: Export, ...errorResponses(400, 409) },
        },
      },
      async (request, reply) => reply.code(202).send(await service.startExport(request.store, request.caller, runner)),
    );

    app.get(
      '/v1/exports',
      {
        config: { scope: 'full' },
        schema: {
          summary: `Your own exports, newest first (at most ${service.MAX_LISTED_EXPORTS}) (issue 32)`,
          tags,
          response: { 200: ExportList, ...errorResponses() },
        },
      },
      async (request) => service.listExports(request.store, request.caller),
    );

    app.get(
      '/v1/exports/:exportId',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'One of your exports: whether it is ready, and then its size, SHA-256 and counts (issue 32)',
          tags,
          params: ExportParams,
          response: { 200: Export, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => service.getExport(request.store, request.caller, request.params.exportId),
    );

    app.get(
      '/v1/exports/:exportId/file',
      {
        config: { scope: 'full' },
        schema: {
          summary:
            "A ready export's file (application/gzip), access checked on every download; 409 until ready (issue 32)",
          tags,
          params: ExportParams,
          produces: ['application/gzip'],
          response: {
            200: Type.Unsafe<unknown>({
              type: 'string',
              format: 'binary',
              description: "gzip'd JSON Lines, docs/export-format.md.",
            }),
            ...errorResponses(400, 403, 404, 409),
          },
        },
      },
      async (request, reply) => {
        const file = await service.openExportFile(request.store, request.caller, request.params.exportId, files);
        return reply
          .header('content-disposition', `attachment; filename="${file.name}"`)
          .header('content-length', String(file.size))
          .header('cache-control', 'private, no-store')
          .header('x-content-type-options', 'nosniff')
          .type('application/gzip')
          .send(file.content);
      },
    );
  };
