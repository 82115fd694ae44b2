/**
 * A small world to probe authorization in: a team whose owner has a private list (shared with
 * one teammate) and a task on it (with a comment), a teammate with no access to either, and a user of another
 * team; the owner has also added a status and made an invitation, and the team has a list left without members.
 * Every actor has an API key, a web session and a password. The private objects carry
 * marker strings, so any response can be searched for a leak.
 */
import { randomBytes } from 'node:crypto';
import { insertKey } from '../src/keys/keys.repository.js';
import { insertList } from '../src/lists/lists.repository.js';
import { insertSession } from '../src/sessions/sessions.repository.js';
import { listStatuses } from '../src/statuses/statuses.repository.js';
import { hashPassword } from '../src/team/passwords.js';
import type { Db } from '../src/storage/schema.js';
import { setPasswordHash } from '../src/team/users.repository.js';
import { createTestTeam, type Actor, type Team } from './factories.js';
import { expectStatus, type TestServer } from './harness.js';
import { multipartBody } from './attachments/support.js';
import { readyExport } from './exports/support.js';
import { applyNow, csvOf, uploadImport } from './imports/support.js';
import { tokenOf } from './team/support.js';

export const WORLD_PASSWORD = 'a world of passwords';
/** Where the world's webhooks point: loopback, which test servers allow, on the discard port. */
export const WORLD_WEBHOOK_URL = 'http://127.0.0.1:9/world';

export interface WorldActor extends Actor {
  password: string;
  session: { token: string; csrfToken: string };
}

export interface World {
  team: Team;
  teamId: string;
  /** Created the list and the task. */
  owner: WorldActor;
  /** On the list and assigned to the task. */
  mate: WorldActor;
  /** Same team, but neither on the list nor assigned to or creator of the task. */
  outsider: WorldActor;
  /** Owner of another team. */
  stranger: WorldActor;
  listId: number;
  taskId: number;
  /** The owner's comment on the task (its body holds `listMarker`). */
  commentId: number;
  /** An entry of the task's activity: its creation. */
  entryId: number;
  /** A status of the team that is not the default (one a request may change or delete). */
  statusId: number;
  /** A label of the team (every member sees it; only owners and admins change it). */
  labelId: number;
  /** The team's default status: where a deleted status's tasks may move. */
  defaultStatusId: number;
  /** A pending invitation of the owner's, and its link's token. */
  invitationId: string;
  invitationToken: string;
  /** An OAuth client registered with WORLD_REDIRECT_URI (issue 33): public, anyone may name it. */
  oauthClientId: string;
  /** This server's /mcp: the resource an OAuth request names. */
  mcpResource: string;
  /** A second key of the owner's, for routes that name a key (revoking it leaves `owner.key` working). */
  spareKeyId: string;
  /** The owner's webhook (to WORLD_WEBHOOK_URL; test servers send nothing) and one delivery queued to it. */
  webhookId: string;
  deliveryId: number;
  /** The owner's private view. */
  viewId: number;
  /** The owner's notification (the mate's comment on the task), theirs alone. */
  notificationId: number;
  /** The owner's file on the task (issue 31). */
  attachmentId: number;
  /** The owner's export of the team, ready (issue 32): theirs alone. */
  exportId: number;
  /** A planned import of the owner's; `appliedImportId`, an applied one (what POST …/undo takes back). */
  importId: number;
  appliedImportId: number;
  /** A list of the team with no members left (as a removal leaves one): only its owners and admins may join it. */
  memberlessListId: number;
  /** In the list's name and the task's title and description: only the owner and mate may see it. */
  listMarker: string;
  /** In the team's name and the teammates' names: nobody outside the team may see it. */
  teamMarker: string;
}

// scrypt is slow on purpose: hash once per process, every actor shares the hash.
let passwordHash: Promise<string> | undefined;

async function equip(server: TestServer, actor: Actor): Promise<WorldActor> {
  await setPasswordHash(server.store.db, actor.userId, await (passwordHash ??= hashPassword(WORLD_PASSWORD)));
  const session = await insertSession(server.store.db, actor.userId, actor.teamId);
  return { ...actor, password: WORLD_PASSWORD, session };
}

/** A notification to `to` of `from`'s comment on the task, written directly (no comment is made). */
export function commentNotification(
  db: Db,
  p: { teamId: string; to: string; from: string; taskId: number },
): Promise<{ id: number }> {
  return db
    .insertInto('notifications')
    .values({
      team_id: p.teamId,
      user_id: p.to,
      task_id: p.taskId,
      kind: 'commented',
      actor_id: p.from,
      created_at: new Date().toISOString(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

export async function createWorld(server: TestServer): Promise<World> {
  const listMarker = `listsecret${randomBytes(5).toString('hex')}`;
  const teamMarker = `teamsecret${randomBytes(5).toString('hex')}`;
  const team = await createTestTeam(server, `Team ${teamMarker}`);
  const owner = await equip(server, team.owner);
  const mate = await equip(server, await team.member({ name: `Mate ${teamMarker}` }));
  const outsider = await equip(server, await team.member({ name: `Outsider ${teamMarker}` }));
  const stranger = await equip(server, (await createTestTeam(server)).owner);
  // Scoped, so that both DELETE /v1/api-keys/{keyId} and DELETE /v1/agent-access/{keyId} (a key
  // with limits only) can revoke it.
  const spare = await insertKey(server.store.db, {
    teamId: team.id,
    userId: owner.userId,
    name: `Spare ${teamMarker}`,
    scopes: ['tasks:read'],
  });

  const list = expectStatus(await owner.api.post('/v1/lists', { name: `List ${listMarker}`, color: 'Blue' }), 201);
  expectStatus(await owner.api.post(`/v1/lists/${list.id}/members`, { userId: mate.userId }), 201);
  const task = expectStatus(
    await owner.api.post('/v1/tasks', {
      title: `Task ${listMarker}`,
      description: `Description ${listMarker}`,
      taskListIds: [list.id],
      assigneeIds: [mate.userId],
    }),
    201,
  );
  const comment = expectStatus(
    await owner.api.post(`/v1/tasks/${task.id}/comments`, { body: `Comment ${listMarker}` }),
    201,
  );
  const created = expectStatus(await owner.api.get(`/v1/tasks/${task.id}/activity`), 200).at(-1);
  const statuses = await listStatuses(server.store.db, team.id);
  const defaultStatusId = statuses.find((s) => s.isDefault)!.id;
  const status = expectStatus(await owner.api.post('/v1/task-statuses', { name: `Status ${teamMarker}` }), 201);
  const label = expectStatus(await owner.api.post('/v1/labels', { name: `Label ${teamMarker}` }), 201);
  const invitation = expectStatus(await owner.api.post('/v1/invitations', { role: 'member' }), 201);
  const webhook = expectStatus(await owner.api.post('/v1/webhooks', { url: WORLD_WEBHOOK_URL }), 201);
  const delivery = expectStatus(await owner.api.post(`/v1/webhooks/${webhook.id}/test`), 202);
  const view = expectStatus(
    await owner.api.post('/v1/views', { name: `View ${listMarker}`, filters: {}, layout: 'rows' }),
    201,
  );
  // Written directly: the list its creator's removal would leave behind, without the removal.
  const memberless = await insertList(server.store.db, {
    teamId: team.id,
    name: `Left alone ${listMarker}`,
    color: 'Gray',
    createdBy: owner.userId,
  });
  // Written directly, as the mate's comment on the owner's task would notify the owner, without the comment.
  const notification = await commentNotification(server.store.db, {
    teamId: team.id,
    to: owner.userId,
    from: mate.userId,
    taskId: task.id,
  });
  const { body: fileBody, contentType: fileType } = multipartBody(Buffer.from(`File ${listMarker}`), 'world.txt');
  const attachment = expectStatus(
    await owner.api.request('POST', `/v1/tasks/${task.id}/attachments`, {
      rawBody: fileBody,
      headers: { 'content-type': fileType },
    }),
    201,
  );
  // An import planned (to apply or cancel), and one applied (to undo), its batches run here: a
  // header alone, so that it takes no task number (test/late-body.test.ts counts them).
  const planned = expectStatus(
    await uploadImport(owner.api, csvOf([['Title'], [`Imported ${listMarker}`]]), { source: 'csv' }),
    201,
  );
  const applied = expectStatus(await uploadImport(owner.api, csvOf([['Title']]), { source: 'csv' }), 201);
  expectStatus(await owner.api.post(`/v1/imports/${applied.id}/apply`), 200);
  await applyNow(server.store, team.id, applied.id);
  // Last, so that it holds everything above; ready, so that its file can be downloaded.
  const exported = await readyExport(owner.api);
  // Every key has been used once: later requests do not write its first `last used` time.
  for (const actor of [owner, mate, outsider, stranger]) expectStatus(await actor.api.get('/v1/me'), 200);

  return {
    team,
    teamId: team.id,
    owner,
    mate,
    outsider,
    stranger,
    listId: list.id,
    taskId: task.id,
    commentId: comment.id,
    entryId: created.id,
    statusId: status.id,
    labelId: label.id,
    defaultStatusId,
    invitationId: invitation.id,
    invitationToken: tokenOf(invitation.link),
    oauthClientId: await registeredOAuthClient(server),
    mcpResource: `${server.url}/mcp`,
    spareKeyId: spare.record.id,
    webhookId: webhook.id,
    deliveryId: delivery.id,
    viewId: view.id,
    notificationId: notification.id,
    attachmentId: attachment.id,
    exportId: exported.id,
    importId: planned.id,
    appliedImportId: applied.id,
    memberlessListId: memberless.id,
    listMarker,
    teamMarker,
  };
}

/** Where the world's OAuth client is sent back to (a loopback URI, as a native app's). */
export const WORLD_REDIRECT_URI = 'http://127.0.0.1:8765/callback';

async function registeredOAuthClient(server: TestServer): Promise<string> {
  const client = expectStatus(
    await server.client().post('/oauth/register', { client_name: 'World agent', redirect_uris: [WORLD_REDIRECT_URI] }),
    201,
  );
  return client.client_id;
}
