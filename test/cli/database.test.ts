/**
 * Which database `tasklane admin` opens, and when it may create one. An operator who runs admin
 * in the wrong folder must see which database it used, and must not find an empty new one made
 * there: only `org create` may create a database, and it says so.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { TEST_STORE, tempDatabase } from '../harness.js';
import { killAll, TIMEOUT } from '../processes.js';
import { adminOk, adminRefuses, linesOf, runAdmin } from './support.js';

const folders: string[] = [];
/** An empty folder to run admin in, removed after the suite. */
function emptyFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tasklane-cli-'));
  folders.push(folder);
  return folder;
}

after(() => {
  killAll();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const id = randomUUID();
/** Every command but `org create`, with options that would do something on a real database. */
const REFUSING: Record<string, string[]> = {
  'org list': [],
  'org rename': ['--org', id, '--name', 'Renamed'],
  'member add': ['--org', id, '--user', id],
  'member remove': ['--org', id, '--user', id],
  'member list': ['--org', id],
  'user create': ['--email', 'ada@example.test', '--name', 'Ada'],
  'user list': [],
  'user set-password': ['--user', id],
  'user set-email': ['--user', id, '--email', 'ada@example.test'],
  'key create': ['--org', id, '--user', id],
  'key list': ['--org', id, '--user', id],
  'key revoke': ['--id', id],
  'list-member add': ['--list', '1', '--user', id],
  'list-member remove': ['--list', '1', '--user', id],
  'list share': ['--list', '1'],
  'mail status': [],
  'jobs status': [],
  'invitation create': ['--org', id, '--role', 'member'],
  'invitation list': ['--org', id],
  'invitation revoke': ['--id', id],
  'status list': ['--org', id],
  'status create': ['--org', id, '--name', 'Review'],
  'status update': ['--id', '1', '--name', 'Review'],
  'status delete': ['--id', '2', '--move-to', '1'],
  'webhook list': ['--org', id],
  'webhook delete': ['--id', id],
  backup: ['--to', 'backup.db'],
  export: ['--org', id, '--to', 'team.jsonl.gz'],
};

describe('the database admin opens', { skip: TEST_STORE !== 'sqlite' && 'SQLite files only' }, () => {
  test('the table of refusing commands names every command of "admin help" but org create', async () => {
    const help = await runAdmin('sqlite:/nowhere/never-opened.db', ['help']);
    const commands = linesOf(help.stdout)
      .map((line) => /^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?)\b/.exec(line)?.[1])
      .filter((name) => name !== undefined);
    assert.deepEqual(commands.filter((name) => name !== 'org create').sort(), Object.keys(REFUSING).sort());
  });

  test(
    'in a folder without a database, every command but org create refuses, names the file it looked for and creates nothing, not even ./data',
    { timeout: TIMEOUT },
    async () => {
      const folder = emptyFolder();
      const expected = `there is no database at ${join(folder, 'data', 'tasklane.db')}`;
      // Side by side: each is a process of its own, and none may create what another then finds.
      await Promise.all(
        Object.entries(REFUSING).map(async ([name, options]) => {
          const line = await adminRefuses('', [...name.split(' '), ...options], {
            cwd: folder,
            env: { DATABASE_URL: undefined },
            input: 'a long enough password\n',
          });
          assert.ok(line.startsWith(expected), `admin ${name}: ${line}`);
          assert.match(line, /set DATABASE_URL to the server's database/);
        }),
      );
      assert.deepEqual(readdirSync(folder), [], 'a refusing command left something behind');
    },
  );

  test('org create creates the missing database and says so on stderr; the next command opens it', async () => {
    const folder = emptyFolder();
    const file = join(folder, 'data', 'tasklane.db');
    const options = { cwd: folder, env: { DATABASE_URL: undefined } };
    const created = await adminOk('', ['org', 'create', '--name', 'First'], options);
    assert.deepEqual(created.stderr, [`database: ${file} (a new database, created now)`]);
    const listed = await adminOk('', ['org', 'list'], options);
    assert.deepEqual(listed.value, { orgs: [created.value] });
    assert.deepEqual(listed.stderr, [`database: ${file}`]);
  });

  test('a relative sqlite: path is printed made absolute, on success and in the one line of a failure', async () => {
    const folder = emptyFolder();
    const options = { cwd: folder, env: { DATABASE_URL: 'sqlite:./nested/../team.db' } };
    const file = join(folder, 'team.db');
    await adminOk('', ['org', 'create', '--name', 'Relative'], options);
    assert.deepEqual((await adminOk('', ['user', 'list'], options)).stderr, [`database: ${file}`]);
    const line = await adminRefuses('', ['member', 'list', '--org', randomUUID()], options);
    assert.match(line, / not found \(database: (.+)\)$/);
    assert.ok(line.endsWith(`(database: ${file})`), line);
  });
});

describe('the PostgreSQL database admin opens', { skip: TEST_STORE !== 'postgres' && 'PostgreSQL only' }, () => {
  test('admin prints the database URL on stderr without its password, whether in the URL or its query', async () => {
    const database = await tempDatabase();
    try {
      const url = new URL(database.url);
      url.password = 'not-shown-1';
      url.searchParams.set('password', 'not-shown-2');
      const { stderr } = await adminOk(url.toString(), ['org', 'create', '--name', 'Hidden']);
      assert.equal(stderr.length, 1, stderr.join('\n'));
      assert.doesNotMatch(stderr[0]!, /not-shown/);
      const shown = new URL(stderr[0]!.replace(/^database: /, ''));
      assert.equal(`${shown.host}${shown.pathname}`, `${url.host}${url.pathname}`);
      assert.equal(shown.username, url.username);
      const line = await adminRefuses(url.toString(), ['member', 'list', '--org', randomUUID()]);
      assert.doesNotMatch(line, /not-shown/);
      assert.ok(line.endsWith(`(database: ${shown.toString()})`), line);
    } finally {
      await database.remove();
    }
  });
});
