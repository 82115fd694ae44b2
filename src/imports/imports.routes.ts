/** Imports (issue 32): /v1/imports; docs/api.md, "Imports". */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import { errorResponses } from '../contract/common.js';
import { Import, ImportList, ImportParams, ImportUpload, IMPORT_SOURCE_NAMES } from '../contract/imports.js';
import type { App, AppDeps } from '../http/app-types.js';
import { extendBodyDeadline } from '../http/body-deadline.js';
import { AppError, forbidden, invalidInput } from '../http/errors.js';
import { validatorCompiler } from '../http/validation.js';
import { managesTeam } from '../team/roles.js';
import * as service from './imports.service.js';
import { MANAGERS_ONLY } from './undo.js';
import { CSV_FIELDS } from './sources/csv.js';
import type { ImportSourceName } from './sources/source-items.js';

const tags = ['Imports'];
/** The rest of a body too large is not read: the connection closes after the answer. */
const tooLarge = (message: string) => new AppError('tooLarge', message, { connection: 'close' });
/** The largest file an import takes: a tasklane export of some 200,000 tasks, gzip'd. */
export const MAX_IMPORT_FILE_BYTES = 100 * 1024 * 1024;

function parseColumns(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let columns: unknown;
  try {
    columns = JSON.parse(text);
  } catch {
    throw invalidInput('columns must be a JSON object such as {"title": "Name"}.');
  }
  if (typeof columns !== 'object' || columns === null || Array.isArray(columns)) {
    throw invalidInput('columns must be a JSON object such as {"title": "Name"}.');
  }
  for (const [field, header] of Object.entries(columns)) {
    if (!(CSV_FIELDS as readonly string[]).includes(field))
      throw invalidInput(`columns: ${field} is not a field; the fields are ${CSV_FIELDS.join(', ')}.`);
    if (typeof header !== 'string' || header.trim() === '') throw invalidInput(`columns: ${field} must name a column.`);
  }
  return columns as Record<string, string>;
}

export const importsRoutes = (wakeJobs: () => void) =>
  async function registerImportsRoutes(app: App, deps: AppDeps): Promise<void> {
    await app.register(multipart, { throwFileSizeLimit: false });

    app.post(
      '/v1/imports',
      {
        config: { scope: 'full', idempotency: false },
        validatorCompiler: (request) => (request.httpPart === 'body' ? () => true : validatorCompiler(request)),
        schema: {
          summary:
            'Upload a file to import (owners and admins): multipart/form-data with `file`, `source` and for a CSV `columns`. Answers its plan; nothing is written until it is applied (issue 32)',
          tags,
          consumes: ['multipart/form-data'],
          body: ImportUpload,
          response: { 201: Import, ...errorResponses(400, 403, 413, 415) },
        },
      },
      async (request, reply) => {
        if (!managesTeam(request.caller.role)) throw forbidden(MANAGERS_ONLY);
        if (!request.isMultipart()) {
          throw new AppError(
            'unsupportedMediaType',
            'Send the file as multipart/form-data, with the fields "file" and "source".',
          );
        }
        extendBodyDeadline(request, reply, deps.config.attachments.uploadTimeoutMs);
        // The fields may come before or after the file: the file is kept in a temporary folder
        // until the whole body is read, then read from there.
        const folder = await mkdtemp(join(tmpdir(), 'tasklane-import-'));
        try {
          const fields: Record<string, string> = {};
          let fileName: string | null = null;
          let received = false;
          try {
            for await (const part of request.parts({
              limits: { fileSize: MAX_IMPORT_FILE_BYTES + 1, files: 1, fields: 5, parts: 6, fieldSize: 10_000 },
            })) {
              if (part.type === 'field') {
                fields[part.fieldname] = String(part.value);
                continue;
              }
              if (part.fieldname !== 'file') {
                part.file.resume();
                throw invalidInput(`The file goes in the field "file", not "${part.fieldname}".`);
              }
              fileName = part.filename || null;
              await pipeline(part.file, createWriteStream(join(folder, 'upload')));
              if (part.file.truncated) {
                throw tooLarge(`The file is larger than an import takes (${MAX_IMPORT_FILE_BYTES / 1024 / 1024} MiB).`);
              }
              received = true;
            }
          } catch (error) {
            if (error instanceof AppError) throw error;
            if ((error as { statusCode?: number }).statusCode === 413) {
              throw tooLarge('The form has too many fields; send "file", "source" and for a CSV "columns".');
            }
            throw invalidInput('The request body is not a valid multipart/form-data body with a file.');
          }
          if (!received) throw invalidInput('Send the file in the field "file".');
          const source = fields.source;
          if (!IMPORT_SOURCE_NAMES.includes(source as ImportSourceName)) {
            throw invalidInput(`source must be one of: ${IMPORT_SOURCE_NAMES.join(', ')}.`);
          }
          if (fields.columns !== undefined && source !== 'csv') throw invalidInput('columns is for a csv source only.');
          const imported = await service.createImport(request.store, request.caller, {
            source: source as ImportSourceName,
            options: { fileName, ...(fields.columns !== undefined && { columns: parseColumns(fields.columns) }) },
            bytes: () => createReadStream(join(folder, 'upload')),
          });
          return reply.code(201).send(imported);
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
      },
    );

    app.get(
      '/v1/imports',
      {
        config: { scope: 'full' },
        schema: {
          summary: `The team's imports, newest first (at most ${service.MAX_LISTED_IMPORTS}; owners and admins) (issue 32)`,
          tags,
          response: { 200: ImportList, ...errorResponses(403) },
        },
      },
      async (request) => service.listImports(request.store, request.caller),
    );

    app.get(
      '/v1/imports/:importId',
      {
        config: { scope: 'full' },
        schema: {
          summary: 'An import: its plan, its progress while applied, and what it did (issue 32)',
          tags,
          params: ImportParams,
          response: { 200: Import, ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => service.getImport(request.store, request.caller, request.params.importId),
    );

    const action = (name: 'apply' | 'cancel' | 'undo', summary: string, run: typeof service.undo) =>
      app.post(
        `/v1/imports/:importId/${name}`,
        {
          config: { scope: 'full' },
          schema: {
            summary,
            tags,
            params: ImportParams,
            response: { 200: Import, ...errorResponses(400, 403, 404, 409) },
          },
        },
        async (request) => run(request.store, request.caller, request.params.importId),
      );
    action(
      'apply',
      'Apply a planned import: it runs in the background in batches; GET it (or listen for import.progress) for its progress (issue 32)',
      (store, caller, id) => service.applyImport(store, caller, id, wakeJobs),
    );
    action(
      'cancel',
      'Stop an import being applied at its next batch, or drop a planned one (issue 32)',
      service.cancelImport,
    );
    action(
      'undo',
      'Take an import back within 24 hours, if nothing it created has been changed since; 409 names what blocks it (issue 32)',
      service.undo,
    );
  };
