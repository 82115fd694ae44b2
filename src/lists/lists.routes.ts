import { Type } from 'typebox';
import { withEtag } from '../http/etag.js';
import type { App, AppDeps } from '../http/app-types.js';
import { errorResponses, fixedTextErrorResponses } from '../contract/common.js';
import { Member } from '../contract/team.js';
import {
  AddListMemberBody,
  CreateListBody,
  ListIdParams,
  ListMemberParams,
  ListMemberRemoved,
  ListsQuery,
  TaskList,
  UpdateListBody,
} from '../contract/lists.js';
import * as service from './lists.service.js';
import * as withoutMembers from './lists-without-members.service.js';

const tags = ['Task lists'];

export function listsRoutes(app: App, _deps: AppDeps): void {
  app.get(
    '/v1/lists',
    {
      config: { scope: 'lists:read' },
      schema: {
        summary: "The caller's non-archived lists, oldest first (archived=true: their archived lists, an extension)",
        tags,
        querystring: ListsQuery,
        response: { 200: Type.Array(TaskList), ...errorResponses(400) },
      },
    },
    async (request) => service.listLists(request.store, request.caller, request.query.archived === 'true'),
  );

  app.post(
    '/v1/lists',
    {
      config: { scope: 'lists:write', invalidInputMessage: 'Invalid input.' },
      schema: {
        summary: 'Create a list; the caller becomes its first member (with sharedWithTeam, the whole team does)',
        tags,
        body: CreateListBody,
        response: { 201: TaskList, ...fixedTextErrorResponses() },
      },
    },
    async (request, reply) =>
      reply.code(201).send(withEtag(reply, await service.createList(request.store, request.caller, request.body))),
  );

  app.get(
    '/v1/lists/:listId',
    {
      config: { scope: 'lists:read', invalidInputMessage: 'Invalid input.' },
      schema: {
        summary: 'One list the caller is a member of (archived lists too)',
        tags,
        params: ListIdParams,
        response: { 200: TaskList, ...fixedTextErrorResponses(403, 404) },
      },
    },
    async (request, reply) =>
      withEtag(reply, await service.getList(request.store, request.caller, request.params.listId)),
  );

  app.patch(
    '/v1/lists/:listId',
    {
      config: { scope: 'lists:write' },
      schema: {
        summary:
          'Rename or recolour a list, or share it with the whole team (an extension); never changes its archive state',
        tags,
        params: ListIdParams,
        body: UpdateListBody,
        response: { 200: TaskList, ...errorResponses(400, 403, 404, 412) },
      },
    },
    async (request, reply) =>
      withEtag(
        reply,
        await service.updateList(
          request.store,
          request.caller,
          request.params.listId,
          request.body,
          request.headers['if-match'],
        ),
      ),
  );

  for (const [action, archived] of [
    ['archive', true],
    ['unarchive', false],
  ] as const) {
    app.post(
      `/v1/lists/:listId/${action}`,
      {
        config: { scope: 'lists:write', invalidInputMessage: 'listId must be a number.' },
        schema: {
          summary: archived ? 'Archive a list (idempotent)' : 'Unarchive a list (idempotent)',
          tags,
          params: ListIdParams,
          response: { 200: TaskList, ...fixedTextErrorResponses(403, 404) },
        },
      },
      async (request, reply) =>
        withEtag(reply, await service.setArchived(request.store, request.caller, request.params.listId, archived)),
    );
  }

  app.get(
    '/v1/lists/:listId/members',
    {
      config: { scope: 'lists:read' },
      schema: {
        summary: 'Members of a list, with their workspace role (extension)',
        tags,
        params: ListIdParams,
        response: { 200: Type.Array(Member), ...errorResponses(400, 403, 404) },
      },
    },
    async (request) => service.listMembers(request.store, request.caller, request.params.listId),
  );

  app.post(
    '/v1/lists/:listId/members',
    {
      config: { scope: 'lists:write' },
      schema: {
        summary: 'Add a teammate to a list (extension); 201 when added, 200 when already a member',
        tags,
        params: ListIdParams,
        body: AddListMemberBody,
        response: { 200: Member, 201: Member, ...errorResponses(400, 403, 404) },
      },
    },
    async (request, reply) => {
      const { member, created } = await service.addMember(
        request.store,
        request.caller,
        request.params.listId,
        request.body.userId,
      );
      return reply.code(created ? 201 : 200).send(member);
    },
  );

  app.delete(
    '/v1/lists/:listId/members/:userId',
    {
      config: { scope: 'lists:write' },
      schema: {
        summary:
          'Remove a member from a list (extension); a list keeps at least one member, and a list shared with the team keeps every member (409)',
        tags,
        params: ListMemberParams,
        response: {
          200: ListMemberRemoved,
          ...errorResponses(400, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const { listId, userId } = request.params;
      await service.removeMember(request.store, request.caller, listId, userId);
      return { listId: Number(listId), userId, removed: true };
    },
  );

  app.get(
    '/v1/lists-without-members',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "The team's lists that have no member, archived ones too, oldest first (extension; the team's owners and admins)",
        tags,
        response: { 200: Type.Array(TaskList), ...errorResponses(403) },
      },
    },
    async (request) => withoutMembers.listsWithoutMembers(request.store, request.caller),
  );

  app.post(
    '/v1/lists-without-members/:listId/join',
    {
      config: { scope: 'full' },
      schema: {
        summary:
          "Become the first member of a list that has none (extension; the team's owners and admins); 409 once it has members",
        tags,
        params: ListIdParams,
        response: { 200: TaskList, ...errorResponses(400, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      withEtag(
        reply,
        await withoutMembers.joinListWithoutMembers(request.store, request.caller, request.params.listId),
      ),
  );
}
