/** Attachments (issue 31): upload, list, read, download, delete; sniffing, headers, access. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Team } from '../factories.js';
import { expectError, expectStatus, startTestServer, type TestServer } from '../harness.js';
import { ATTACHMENT_KEYS, newTask, PNG, storedFiles, upload } from './support.js';

describe('attachments', () => {
  let server: TestServer;
  let team: Team;

  before(async () => {
    server = await startTestServer();
    team = await createTestTeam(server);
  });
  after(() => server.close());

  it('uploads, lists, reads, downloads and deletes a file', async () => {
    const task = await newTask(team.owner);
    const bytes = Buffer.from('hello, attachments\n');
    const created = expectStatus(await upload(team.owner.api, task.id, bytes, 'notes.txt', { type: 'image/png' }), 201);
    assert.deepEqual(Object.keys(created).sort(), ATTACHMENT_KEYS);
    assert.equal(created.name, 'notes.txt');
    assert.equal(created.size, bytes.length);
    assert.equal(created.contentType, 'text/plain', "the client's type is never taken");
    assert.equal(created.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.deepEqual(created.uploadedBy, { id: team.owner.userId, name: team.owner.name });
    assert.equal(created.taskId, task.id);

    const second = expectStatus(await upload(team.owner.api, task.id, Buffer.from('two'), 'b.txt'), 201);
    const list = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/attachments`), 200);
    assert.deepEqual(
      list.map((a: { id: number }) => a.id),
      [created.id, second.id],
      'oldest first',
    );
    assert.deepEqual(expectStatus(await team.owner.api.get(`/v1/attachments/${created.id}`), 200), created);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).attachmentCount, 2);

    const download = await team.owner.api.get(`/v1/attachments/${created.id}/content`);
    assert.equal(download.status, 200);
    assert.equal(download.text, bytes.toString());
    assert.equal(download.headers.get('content-type'), 'text/plain');
    assert.equal(download.headers.get('content-length'), String(bytes.length));
    assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(download.headers.get('content-security-policy'), "sandbox; default-src 'none'");
    assert.equal(
      download.headers.get('content-disposition'),
      `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`,
    );
    assert.equal(download.headers.get('etag'), `"${created.sha256}"`);
    const again = await team.owner.api.get(`/v1/attachments/${created.id}/content`, {
      'if-none-match': `"${created.sha256}"`,
    });
    assert.equal(again.status, 304);

    const deleted = expectStatus(await team.owner.api.delete(`/v1/attachments/${created.id}`), 200);
    assert.deepEqual(deleted, { id: created.id, taskId: task.id, deleted: true });
    expectError(await team.owner.api.get(`/v1/attachments/${created.id}`), 404, `Attachment ${created.id} not found.`);
    expectError(await team.owner.api.get(`/v1/attachments/${created.id}/content`), 404);
    expectError(await team.owner.api.delete(`/v1/attachments/${created.id}`), 404);
    assert.equal(expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}`), 200).attachmentCount, 1);
    assert.equal(storedFiles(server.attachmentsDir).filter((f) => !f.includes(second.sha256)).length >= 1, true);
  });

  it('finds the type from the bytes: a PNG named .txt is a PNG, shown inline; SVG and HTML are downloads', async () => {
    const task = await newTask(team.owner);
    const png = expectStatus(await upload(team.owner.api, task.id, PNG, 'photo.txt', { type: 'text/plain' }), 201);
    assert.equal(png.contentType, 'image/png');
    const shown = await team.owner.api.get(`/v1/attachments/${png.id}/content`);
    assert.equal(shown.headers.get('content-type'), 'image/png');
    assert.match(shown.headers.get('content-disposition')!, /^inline; /);

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const svgFile = expectStatus(await upload(team.owner.api, task.id, svg, 'x.svg', { type: 'image/svg+xml' }), 201);
    const svgDownload = await team.owner.api.get(`/v1/attachments/${svgFile.id}/content`);
    assert.match(svgDownload.headers.get('content-disposition')!, /^attachment; /);
    assert.equal(svgDownload.headers.get('content-security-policy'), "sandbox; default-src 'none'");

    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    const htmlFile = expectStatus(await upload(team.owner.api, task.id, html, 'page.html', { type: 'text/html' }), 201);
    assert.notEqual(htmlFile.contentType, 'text/html');
    const htmlDownload = await team.owner.api.get(`/v1/attachments/${htmlFile.id}/content`);
    assert.match(htmlDownload.headers.get('content-disposition')!, /^attachment; /);

    const binary = Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 0]);
    const bin = expectStatus(await upload(team.owner.api, task.id, binary, 'blob'), 201);
    assert.equal(bin.contentType, 'application/octet-stream');
  });

  it('keeps a display name, never a path', async () => {
    const task = await newTask(team.owner);
    const evil = expectStatus(await upload(team.owner.api, task.id, Buffer.from('x'), '../../etc/pa\u202esswd'), 201);
    assert.equal(evil.name, 'passwd', 'the path is dropped, the direction override too');
    const long = expectStatus(await upload(team.owner.api, task.id, Buffer.from('x'), `${'é'.repeat(300)}.txt`), 201);
    assert.equal([...long.name].length, 255);
    const download = await team.owner.api.get(`/v1/attachments/${long.id}/content`);
    assert.match(download.headers.get('content-disposition')!, /filename\*=UTF-8''%C3%A9/);
    for (const file of storedFiles(server.attachmentsDir)) assert.doesNotMatch(file, /passwd|é/);
  });

  it('follows the task-access rule: 401 without a key, 404 in another team, 403 without access; refusals change nothing', async () => {
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'Private' }), 201);
    const task = await newTask(team.owner, { taskListIds: [list.id] });
    const file = expectStatus(await upload(team.owner.api, task.id, Buffer.from('secret'), 's.txt'), 201);
    const outsider = await team.member();
    const other = await createTestTeam(server);
    const filesBefore = storedFiles(server.attachmentsDir).length;

    expectError(await outsider.api.get(`/v1/tasks/${task.id}/attachments`), 403);
    expectError(await outsider.api.get(`/v1/attachments/${file.id}`), 403);
    expectError(await outsider.api.get(`/v1/attachments/${file.id}/content`), 403);
    expectError(await outsider.api.delete(`/v1/attachments/${file.id}`), 403);
    expectError(await upload(outsider.api, task.id, Buffer.from('x'), 'x.txt'), 403);

    expectError(await other.owner.api.get(`/v1/tasks/${task.id}/attachments`), 404);
    expectError(await other.owner.api.get(`/v1/attachments/${file.id}`), 404);
    expectError(await other.owner.api.get(`/v1/attachments/${file.id}/content`), 404);
    expectError(await other.owner.api.delete(`/v1/attachments/${file.id}`), 404);
    expectError(await upload(other.owner.api, task.id, Buffer.from('x'), 'x.txt'), 404);

    const anonymous = server.client();
    expectError(await anonymous.get(`/v1/attachments/${file.id}/content`), 401);
    expectError(await upload(anonymous, task.id, Buffer.from('x'), 'x.txt'), 401);

    assert.equal(storedFiles(server.attachmentsDir).length, filesBefore);
    const list2 = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/attachments`), 200);
    assert.deepEqual(list2, [file]);
  });

  it('lets the uploader delete, and the owners and admins, no one else', async () => {
    const uploader = await team.member();
    const bystander = await team.member();
    const admin = await team.member({ role: 'admin' });
    const shared = expectStatus(await team.owner.api.post('/v1/lists', { name: 'All', sharedWithTeam: true }), 201);
    const task = await newTask(team.owner, { taskListIds: [shared.id] });
    const a = expectStatus(await upload(uploader.api, task.id, Buffer.from('a'), 'a.txt'), 201);
    const b = expectStatus(await upload(uploader.api, task.id, Buffer.from('b'), 'b.txt'), 201);
    expectError(
      await bystander.api.delete(`/v1/attachments/${a.id}`),
      403,
      "Only its uploader, or the team's owners and admins, may delete an attachment.",
    );
    expectStatus(await uploader.api.delete(`/v1/attachments/${a.id}`), 200);
    expectStatus(await admin.api.delete(`/v1/attachments/${b.id}`), 200);
  });

  it('refuses a body that is not a file in the field "file"', async () => {
    const task = await newTask(team.owner);
    expectError(await team.owner.api.post(`/v1/tasks/${task.id}/attachments`, { file: 'x' }), 415);
    expectError(await upload(team.owner.api, task.id, Buffer.from('x'), 'x.txt', { field: 'other' }), 400);
    const garbage = await team.owner.api.request('POST', `/v1/tasks/${task.id}/attachments`, {
      rawBody: 'not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
    });
    assert.ok(garbage.status >= 400 && garbage.status < 500, `${garbage.status} ${garbage.text}`);
    assert.deepEqual(Object.keys(garbage.body), ['error']);
  });

  it('records attachment.created and attachment.deleted with activity entries naming the file', async () => {
    const task = await newTask(team.owner);
    const file = expectStatus(await upload(team.owner.api, task.id, Buffer.from('x'), 'plan.txt'), 201);
    expectStatus(await team.owner.api.delete(`/v1/attachments/${file.id}`), 200);
    const activity = expectStatus(await team.owner.api.get(`/v1/tasks/${task.id}/activity`), 200);
    const entries = activity;
    const kinds = entries.map((e: { kind: string }) => e.kind);
    assert.deepEqual(kinds.slice(0, 2), ['attachment.removed', 'attachment.added']);
    assert.deepEqual(entries[1].changes, { attachment: { from: null, to: { id: file.id, name: 'plan.txt' } } });
    assert.deepEqual(entries[0].changes, { attachment: { from: { id: file.id, name: 'plan.txt' }, to: null } });
    const events = await server.store.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('team_id', '=', team.id)
      .where('type', 'like', 'attachment.%')
      .orderBy('id')
      .execute();
    const mine = events.filter((e) => JSON.parse(e.data).attachmentId === file.id);
    assert.deepEqual(
      mine.map((e) => [e.type, JSON.parse(e.data)]),
      [
        ['attachment.created', { taskId: task.id, attachmentId: file.id }],
        ['attachment.deleted', { taskId: task.id, attachmentId: file.id }],
      ],
    );
  });
});
