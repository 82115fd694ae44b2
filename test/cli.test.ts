/**
 * The operator CLI as a user runs it: `node bin/tasklane.js …` in a child process (compiled code
 * from dist/), on a temporary SQLite database. Covers every `admin` command of CONTRACT.md, its
 * failures, and `serve`: first start, restart, SIGTERM, and admin changes seen by a running server.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client, expectError, expectStatus } from './harness.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The checkout root: this file runs as dist/test/cli.test.js. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'bin', 'tasklane.js');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIMEOUT = 60_000;

/** A temporary folder holding one database file; `url` is its DATABASE_URL. */
function tempDb(): { url: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tasklane-cli-'));
  return { url: `sqlite:${join(dir, 'x.db')}`, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', ...extra };
  delete env.NODE_TEST_CONTEXT; // the child is not a test
  delete env.NODE_OPTIONS;
  return env;
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Every child started here, so cleanup can kill whatever is left. */
const children = new Set<ChildProcess>();

function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Runs `tasklane <args>` to completion (killed after TIMEOUT). */
function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = track(spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] }));
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`tasklane ${args.join(' ')} did not finish in ${TIMEOUT} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, TIMEOUT);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

const describeRun = (args: string[], run: Run) =>
  `tasklane ${args.join(' ')} → exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;

/** Runs `tasklane admin <args>`, asserts exit 0 and exactly one JSON object on stdout, returns it. */
async function admin(databaseUrl: string, ...args: string[]): Promise<any> {
  const run = await runCli(['admin', ...args], cliEnv(databaseUrl));
  assert.equal(run.code, 0, describeRun(args, run));
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `expected one line of JSON on stdout: ${describeRun(args, run)}`);
  const value = JSON.parse(lines[0]!);
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `not a JSON object: ${lines[0]}`);
  return value;
}

/** Runs `tasklane admin <args>`, asserts a non-zero exit, nothing on stdout and one line on stderr. */
async function adminFails(databaseUrl: string, ...args: string[]): Promise<string> {
  const run = await runCli(['admin', ...args], cliEnv(databaseUrl));
  assert.notEqual(run.code, 0, describeRun(args, run));
  assert.equal(run.stdout.trim(), '', `stdout must stay empty on failure: ${describeRun(args, run)}`);
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `expected a one-line reason on stderr: ${describeRun(args, run)}`);
  return lines[0]!;
}

interface Serving {
  url: string;
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves to the exit code. */
  stop(): Promise<number | null>;
}

const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

/** Starts `tasklane serve` and resolves once it prints its `listening on` line. */
function serve(databaseUrl: string, extra: Record<string, string> = {}): Promise<Serving> {
  return new Promise((resolvePromise, reject) => {
    const child = track(
      spawn(process.execPath, [BIN, 'serve'], {
        cwd: ROOT,
        env: cliEnv(databaseUrl, extra),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no "listening on" line in ${TIMEOUT} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, TIMEOUT);
    child.on('error', reject);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = LISTENING.exec(stdout);
      if (match && !started) {
        started = true;
        clearTimeout(timer);
        resolvePromise({
          url: match[1]!,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const stopTimer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT);
            try {
              return await exited;
            } finally {
              clearTimeout(stopTimer);
            }
          },
        });
      }
    });
    void exited.then((code) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code} before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
  });
}

/** The key printed on first start, taken from the ready curl line. */
function printedKey(stdout: string): { key: string; curlLine: string } {
  const curlLine = stdout.split('\n').find((line) => /\bcurl\b/.test(line));
  assert.ok(curlLine, `no curl line in:\n${stdout}`);
  const match = /x-api-key:\s*([^\s'"]+)/i.exec(curlLine);
  assert.ok(match, `the curl line sends no x-api-key: ${curlLine}`);
  return { key: match[1]!, curlLine };
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('tasklane admin', { timeout: 10 * TIMEOUT }, () => {
  let db: { url: string; remove(): void };
  let server: Serving;
  before(async () => {
    db = tempDb();
    server = await serve(db.url);
  });
  after(async () => {
    await server?.stop();
    killAll();
    db?.remove();
  });

  /** An org with one member who has a working key. */
  async function orgWithMember(role?: string) {
    const org = await admin(db.url, 'org', 'create', '--name', `Org ${randomUUID().slice(0, 6)}`);
    const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Pat');
    await admin(db.url, 'member', 'add', '--org', org.id, '--user', user.id, ...(role ? ['--role', role] : []));
    const key = await admin(db.url, 'key', 'create', '--org', org.id, '--user', user.id);
    return { org, user, key, api: new Client(server.url, key.key) };
  }

  test(
    'org create prints {id, name} and the org gets one default and a completed status',
    { timeout: TIMEOUT },
    async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Acme');
      assert.deepEqual(Object.keys(org).sort(), ['id', 'name']);
      assert.equal(org.name, 'Acme');
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Ann');
      await admin(db.url, 'member', 'add', '--org', org.id, '--user', user.id);
      const { key } = await admin(db.url, 'key', 'create', '--org', org.id, '--user', user.id);
      const statuses = expectStatus(await new Client(server.url, key).get('/v1/task-statuses'), 200);
      assert.equal(statuses.filter((s: { isDefault: boolean }) => s.isDefault).length, 1);
      assert.ok(statuses.some((s: { isCompleted: boolean }) => s.isCompleted));
    },
  );

  test(
    'user create prints {id, email, name} with a UUID id, with and without --password',
    { timeout: TIMEOUT },
    async () => {
      const email = `${randomUUID()}@example.test`;
      const plain = await admin(db.url, 'user', 'create', '--email', email, '--name', 'No Password');
      assert.deepEqual(Object.keys(plain).sort(), ['email', 'id', 'name']);
      assert.match(plain.id, UUID);
      assert.equal(plain.email, email);
      assert.equal(plain.name, 'No Password');

      const withPassword = await admin(
        db.url,
        'user',
        'create',
        '--email',
        `${randomUUID()}@example.test`,
        '--name',
        'Has Password',
        '--password',
        'correct horse battery',
      );
      assert.deepEqual(Object.keys(withPassword).sort(), ['email', 'id', 'name']);
      assert.match(withPassword.id, UUID);
      assert.notEqual(withPassword.id, plain.id);
      assert.ok(!JSON.stringify(withPassword).includes('correct horse'), 'the password is echoed');
    },
  );

  test(
    'member add prints {orgId, userId, role}: member by default, admin with --role admin',
    { timeout: TIMEOUT },
    async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Roles');
      const a = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Default');
      const b = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Boss');
      assert.deepEqual(await admin(db.url, 'member', 'add', '--org', org.id, '--user', a.id), {
        orgId: org.id,
        userId: a.id,
        role: 'member',
      });
      assert.deepEqual(await admin(db.url, 'member', 'add', '--org', org.id, '--user', b.id, '--role', 'admin'), {
        orgId: org.id,
        userId: b.id,
        role: 'admin',
      });
      const { key } = await admin(db.url, 'key', 'create', '--org', org.id, '--user', b.id);
      const me = expectStatus(await new Client(server.url, key).get('/v1/me'), 200);
      assert.equal(me.role, 'admin');
      const users = expectStatus(await new Client(server.url, key).get('/v1/users'), 200);
      assert.deepEqual(
        users.map((u: { id: string; role: string }) => [u.id, u.role]).sort(),
        [
          [a.id, 'member'],
          [b.id, 'admin'],
        ].sort(),
      );
    },
  );

  test('key create prints {id, key} and the key works against the running server', { timeout: TIMEOUT }, async () => {
    const org = await admin(db.url, 'org', 'create', '--name', 'Keyed');
    const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Kim');
    await admin(db.url, 'member', 'add', '--org', org.id, '--user', user.id, '--role', 'owner');
    const created = await admin(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--name', 'laptop');
    assert.deepEqual(Object.keys(created).sort(), ['id', 'key']);
    assert.equal(typeof created.key, 'string');
    assert.ok(created.key.length >= 20);
    assert.deepEqual(expectStatus(await new Client(server.url, created.key).get('/v1/me'), 200), {
      user: { id: user.id, name: 'Kim', email: user.email },
      team: { id: org.id, name: 'Keyed' },
      role: 'owner',
    });
  });

  test(
    'key revoke prints {revoked: true} and the running server refuses the key on its next request',
    { timeout: TIMEOUT },
    async () => {
      const { key, api } = await orgWithMember();
      expectStatus(await api.get('/v1/me'), 200);
      assert.deepEqual(await admin(db.url, 'key', 'revoke', '--id', key.id), { revoked: true });
      expectError(await api.get('/v1/me'), 401);
      expectError(await api.get('/v1/lists'), 401);
    },
  );

  test(
    'member remove prints {removed: true}; the running server answers 404 on /v1/me and 401/403 elsewhere',
    { timeout: TIMEOUT },
    async () => {
      const { org, user, api } = await orgWithMember();
      expectStatus(await api.get('/v1/lists'), 200);
      assert.deepEqual(await admin(db.url, 'member', 'remove', '--org', org.id, '--user', user.id), { removed: true });
      expectError(await api.get('/v1/me'), 404, 'Membership not found.');
      const res = await api.get('/v1/lists');
      assert.ok(res.status === 401 || res.status === 403, `expected 401 or 403, got ${res.status} ${res.text}`);
    },
  );

  test(
    'list-member add prints {listId, userId} and grants access; remove prints {removed: true} and takes it away',
    { timeout: TIMEOUT },
    async () => {
      const { org, api: ownerApi } = await orgWithMember('owner');
      const mate = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Mate');
      await admin(db.url, 'member', 'add', '--org', org.id, '--user', mate.id);
      const mateKey = await admin(db.url, 'key', 'create', '--org', org.id, '--user', mate.id);
      const mateApi = new Client(server.url, mateKey.key);

      const list = expectStatus(await ownerApi.post('/v1/lists', { name: 'Ops' }), 201);
      expectError(await mateApi.get(`/v1/lists/${list.id}`), 403);

      const added = await admin(db.url, 'list-member', 'add', '--list', String(list.id), '--user', mate.id);
      assert.deepEqual(added, { listId: list.id, userId: mate.id });
      assert.equal(expectStatus(await mateApi.get(`/v1/lists/${list.id}`), 200).name, 'Ops');
      assert.deepEqual(
        expectStatus(await mateApi.get('/v1/lists'), 200).map((l: { id: number }) => l.id),
        [list.id],
      );

      // IDs are accepted back as printed.
      assert.deepEqual(
        await admin(db.url, 'list-member', 'remove', '--list', String(added.listId), '--user', added.userId),
        {
          removed: true,
        },
      );
      expectError(await mateApi.get(`/v1/lists/${list.id}`), 403);
      assert.deepEqual(expectStatus(await mateApi.get('/v1/lists'), 200), []);
    },
  );

  test('status create prints the status; --default makes it the only default', { timeout: TIMEOUT }, async () => {
    const { org, api } = await orgWithMember();
    const review = await admin(
      db.url,
      'status',
      'create',
      '--org',
      org.id,
      '--name',
      'Review',
      '--color',
      '#AA00FF',
      '--order',
      '5',
    );
    assert.deepEqual(Object.keys(review).sort(), ['color', 'id', 'isCompleted', 'isDefault', 'name', 'order']);
    assert.deepEqual(
      { ...review, id: 0 },
      { id: 0, name: 'Review', color: '#AA00FF', isDefault: false, isCompleted: false, order: 5 },
    );
    assert.equal(typeof review.id, 'number');

    const shipped = await admin(db.url, 'status', 'create', '--org', org.id, '--name', 'Shipped', '--completed');
    assert.equal(shipped.isCompleted, true);
    assert.equal(shipped.color, null);

    const backlog = await admin(
      db.url,
      'status',
      'create',
      '--org',
      org.id,
      '--name',
      'Backlog',
      '--default',
      '--order=-1',
    );
    assert.equal(backlog.isDefault, true);
    const statuses = expectStatus(await api.get('/v1/task-statuses'), 200);
    assert.deepEqual(
      statuses.filter((s: { isDefault: boolean }) => s.isDefault).map((s: { id: number }) => s.id),
      [backlog.id],
    );
    assert.deepEqual(statuses[0], backlog);
    assert.ok(statuses.some((s: { id: number }) => s.id === review.id));
    // New tasks get the new default.
    const task = expectStatus(await api.post('/v1/tasks', { title: 'Fresh' }), 201);
    const [summary] = expectStatus(await api.get('/v1/tasks'), 200);
    assert.equal(summary.id, task.id);
    assert.equal(summary.status.id, backlog.id);
  });

  describe('failures print one line on stderr and exit non-zero', () => {
    test('unknown org', { timeout: TIMEOUT }, async () => {
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Lost');
      await adminFails(db.url, 'member', 'add', '--org', randomUUID(), '--user', user.id);
      await adminFails(db.url, 'member', 'add', '--org', 'no-such-org', '--user', user.id);
      await adminFails(db.url, 'key', 'create', '--org', randomUUID(), '--user', user.id);
      await adminFails(db.url, 'status', 'create', '--org', randomUUID(), '--name', 'X');
    });

    test('key create for a user who is not a member of the org creates no key', { timeout: TIMEOUT }, async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Closed');
      const outsider = await admin(
        db.url,
        'user',
        'create',
        '--email',
        `${randomUUID()}@example.test`,
        '--name',
        'Out',
      );
      await adminFails(db.url, 'key', 'create', '--org', org.id, '--user', outsider.id);
      await adminFails(db.url, 'key', 'create', '--org', org.id, '--user', randomUUID());
    });

    test('a bad role', { timeout: TIMEOUT }, async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Strict');
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Rolf');
      for (const role of ['superuser', 'Admin', '']) {
        await adminFails(db.url, 'member', 'add', '--org', org.id, '--user', user.id, '--role', role);
      }
      // Nothing was added: a key for them is still refused.
      await adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id);
    });

    test('a missing or unknown option, and an unknown command', { timeout: TIMEOUT }, async () => {
      await adminFails(db.url, 'org', 'create');
      await adminFails(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`);
      await adminFails(db.url, 'member', 'add', '--org', randomUUID());
      await adminFails(db.url, 'key', 'revoke');
      await adminFails(db.url, 'org', 'create', '--name', 'X', '--colour', 'red');
      await adminFails(db.url, 'org', 'explode', '--name', 'X');
    });

    test('revoking an unknown or already revoked key, removing a non-member', { timeout: TIMEOUT }, async () => {
      const { org, key } = await orgWithMember();
      await adminFails(db.url, 'key', 'revoke', '--id', randomUUID());
      await admin(db.url, 'key', 'revoke', '--id', key.id);
      await adminFails(db.url, 'key', 'revoke', '--id', key.id);
      const stranger = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'S');
      await adminFails(db.url, 'member', 'remove', '--org', org.id, '--user', stranger.id);
    });
  });
});

describe('tasklane serve', { timeout: 10 * TIMEOUT }, () => {
  const databases: { url: string; remove(): void }[] = [];
  after(() => {
    killAll();
    for (const db of databases) db.remove();
  });
  const newDb = () => {
    const db = tempDb();
    databases.push(db);
    return db;
  };

  test(
    'first start on an empty database prints a working key and a curl line; a restart prints no secret; SIGTERM exits 0',
    { timeout: 4 * TIMEOUT },
    async () => {
      const db = newDb();
      const first = await serve(db.url);
      const firstOut = first.stdout();
      assert.match(firstOut, /^listening on http:\/\/127\.0\.0\.1:\d+$/m);
      const { key, curlLine } = printedKey(firstOut);
      assert.ok(curlLine.includes(`${first.url}/v1/me`), `the curl line does not call ${first.url}/v1/me: ${curlLine}`);
      assert.ok(firstOut.split('\n').filter((line) => line.includes(key)).length >= 1);

      const api = new Client(first.url, key);
      const me = expectStatus(await api.get('/v1/me'), 200);
      assert.equal(me.role, 'owner');
      const statuses = expectStatus(await api.get('/v1/task-statuses'), 200);
      assert.equal(statuses.filter((s: { isDefault: boolean }) => s.isDefault).length, 1);
      assert.ok(statuses.some((s: { isCompleted: boolean }) => s.isCompleted));
      expectStatus(await api.post('/v1/lists', { name: 'Survives restarts' }), 201);
      assert.deepEqual(expectStatus(await new Client(first.url).get('/healthz'), 200), { status: 'ok' });
      assert.equal(await first.stop(), 0, `stderr: ${first.stderr()}`);

      const second = await serve(db.url);
      const api2 = new Client(second.url, key);
      assert.equal(expectStatus(await api2.get('/v1/lists'), 200)[0].name, 'Survives restarts');
      assert.equal(await second.stop(), 0, `stderr: ${second.stderr()}`);
      const secondOut = second.stdout() + second.stderr();
      assert.ok(!secondOut.includes(key), `the second start printed the key again:\n${secondOut}`);
      assert.doesNotMatch(secondOut, /curl|x-api-key|password/i, `the second start printed a secret:\n${secondOut}`);
      assert.match(second.stdout(), /^listening on http:\/\/127\.0\.0\.1:\d+$/m);
    },
  );

  test('SIGINT also shuts down with exit code 0, and the port stops answering', { timeout: 2 * TIMEOUT }, async () => {
    const db = newDb();
    const running = await serve(db.url);
    const { key } = printedKey(running.stdout());
    expectStatus(await new Client(running.url, key).get('/v1/me'), 200);
    running.child.kill('SIGINT');
    assert.equal(await running.stop(), 0, `stderr: ${running.stderr()}`);
    await assert.rejects(fetch(`${running.url}/healthz`), 'the server still answers after exiting');
  });

  test(
    'admin commands against the database of a running server take effect on its next request',
    { timeout: 2 * TIMEOUT },
    async () => {
      const db = newDb();
      const running = await serve(db.url);
      try {
        const { key } = printedKey(running.stdout());
        const owner = new Client(running.url, key);
        const me = expectStatus(await owner.get('/v1/me'), 200);

        // A new teammate with a key, created while the server runs, works at once.
        const mate = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Live');
        await admin(db.url, 'member', 'add', '--org', me.team.id, '--user', mate.id);
        const mateKey = await admin(db.url, 'key', 'create', '--org', me.team.id, '--user', mate.id);
        const mateApi = new Client(running.url, mateKey.key);
        expectStatus(await mateApi.get('/v1/me'), 200);
        assert.equal(expectStatus(await owner.get('/v1/users'), 200).length, 2);

        // Revoked → the very next request is a 401.
        assert.deepEqual(await admin(db.url, 'key', 'revoke', '--id', mateKey.id), { revoked: true });
        expectError(await mateApi.get('/v1/me'), 401);

        // A second key of the owner, then the owner's original key keeps working.
        const ownerKey2 = await admin(db.url, 'key', 'create', '--org', me.team.id, '--user', me.user.id);
        expectStatus(await new Client(running.url, ownerKey2.key).get('/v1/me'), 200);
        await admin(db.url, 'key', 'revoke', '--id', ownerKey2.id);
        expectError(await new Client(running.url, ownerKey2.key).get('/v1/me'), 401);
        expectStatus(await owner.get('/v1/me'), 200);
      } finally {
        assert.equal(await running.stop(), 0, `stderr: ${running.stderr()}`);
      }
    },
  );
});
