/** `tasklane admin export` (issue 32): the same file as an owner's export, and never over an existing file. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestTeam, type Team } from '../factories.js';
import { expectStatus, startTestServer, tempDatabase, type TempDatabase, type TestServer } from '../harness.js';
import { cliEnv, runInProcess } from '../processes.js';
import { upload } from '../attachments/support.js';
import { downloadExport, parseExport, readyExport, shapeOf } from './support.js';

describe('admin export', () => {
  let database: TempDatabase;
  let server: TestServer;
  let team: Team;
  let dir: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    database = await tempDatabase();
    dir = mkdtempSync(join(tmpdir(), 'tasklane-export-cli-'));
    const attachments = join(dir, 'attachments');
    server = await startTestServer({ DATABASE_URL: database.url, ATTACHMENTS_DIR: attachments });
    env = cliEnv(database.url, { ATTACHMENTS_DIR: attachments });
    team = await createTestTeam(server);
    const mate = await team.member({ name: 'Mo Mate' });
    const list = expectStatus(await team.owner.api.post('/v1/lists', { name: 'CLI list' }), 201);
    const task = expectStatus(
      await team.owner.api.post('/v1/tasks', { title: 'Exported', taskListIds: [list.id], assigneeIds: [mate.userId] }),
      201,
    );
    expectStatus(await mate.api.post(`/v1/tasks/${task.id}/comments`, { body: 'from the mate' }), 201);
    expectStatus(await upload(team.owner.api, task.id, Buffer.from('a file for the CLI'), 'cli.txt'), 201);
  });
  after(async () => {
    await server.close();
    await database.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the same content as an owner's export, and prints the file's size, SHA-256 and counts", async () => {
    const to = join(dir, 'team.jsonl.gz');
    const run = await runInProcess(['admin', 'export', '--org', team.id, '--to', to], env);
    assert.equal(run.code, 0, run.stderr);
    const printed = JSON.parse(run.stdout.trim());
    assert.deepEqual(Object.keys(printed).sort(), ['bytes', 'counts', 'file', 'sha256']);
    const bytes = readFileSync(to);
    assert.equal(printed.file, to);
    assert.equal(printed.bytes, bytes.length);
    assert.equal(printed.sha256, createHash('sha256').update(bytes).digest('hex'));

    const fromCli = parseExport(bytes);
    const shown = await readyExport(team.owner.api);
    const fromApi = parseExport((await downloadExport(team.owner.api, shown.id)).bytes);
    assert.deepEqual(printed.counts, fromCli[fromCli.length - 1].counts);
    assert.deepEqual(printed.counts, shown.counts);
    // The header differs only in when, and in who: the operator is nobody of the team.
    const cliHeader = shapeOf(fromCli[0], 'exportedAt', 'exportedBy');
    const apiHeader = shapeOf(fromApi[0], 'exportedAt', 'exportedBy');
    assert.equal(fromCli[0].exportedBy, null);
    assert.equal(fromApi[0].exportedBy.id, team.owner.userId);
    assert.deepEqual(cliHeader, apiHeader);
    assert.equal(cliHeader.scope, 'team');
    assert.deepEqual(fromCli.slice(1), fromApi.slice(1));
    assert.ok(fromCli.some((line) => line.type === 'attachmentData'));
  });

  it('refuses to overwrite a file (exit non-zero, one line on stderr, the file untouched)', async () => {
    const to = join(dir, 'exists.jsonl.gz');
    writeFileSync(to, 'keep me');
    const run = await runInProcess(['admin', 'export', '--org', team.id, '--to', to], env);
    assert.notEqual(run.code, 0);
    assert.equal(run.stdout.trim(), '');
    const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0]!, /exists already/);
    assert.equal(readFileSync(to, 'utf8'), 'keep me');
  });

  it('refuses a team that does not exist', async () => {
    const to = join(dir, 'nobody.jsonl.gz');
    const run = await runInProcess(
      ['admin', 'export', '--org', '00000000-0000-4000-8000-000000000001', '--to', to],
      env,
    );
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /team 00000000-0000-4000-8000-000000000001 not found/);
    assert.throws(() => readFileSync(to));
  });
});
