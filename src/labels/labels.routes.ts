/** /v1/labels (issue 29, an extension): every member reads the team's labels; owners and admins change them. */
import { Type } from 'typebox';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses } from '../contract/common.js';
import { CreateLabelBody, Label, LabelDeleted, LabelIdParams, UpdateLabelBody } from '../contract/labels.js';
import * as service from './labels.service.js';

const tags = ['Labels'];

export function labelsRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/labels',
    {
      config: { scope: 'team:read' },
      schema: {
        summary: "The team's labels, by name",
        tags,
        response: { 200: Type.Array(Label), ...errorResponses() },
      },
    },
    async (request) => service.labelsOf(request.store, request.caller),
  );

  app.post(
    '/v1/labels',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Add a label (owners and admins); names are unique in the team, ignoring case',
        tags,
        body: CreateLabelBody,
        response: { 201: Label, ...errorResponses(400, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createLabelAs(request.store, request.caller, request.body)),
  );

  app.patch(
    '/v1/labels/:labelId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Rename or recolour a label (owners and admins)',
        tags,
        params: LabelIdParams,
        body: UpdateLabelBody,
        response: { 200: Label, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request) => service.updateLabelAs(request.store, request.caller, request.params.labelId, request.body),
  );

  app.delete(
    '/v1/labels/:labelId',
    {
      config: { scope: 'full' },
      schema: {
        summary: 'Delete a label, taking it off its tasks in the same step (owners and admins)',
        tags,
        params: LabelIdParams,
        response: { 200: LabelDeleted, ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.deleteLabelAs(request.store, request.caller, request.params.labelId),
  );
}
