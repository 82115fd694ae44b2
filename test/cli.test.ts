/**
 * The operator CLI, on a temporary database (SQLite, or PostgreSQL when the suite runs on it).
 * Covers every `admin` command of the README, its failures, and `serve`: first start, restart,
 * SIGTERM, and admin changes seen by a running server. Admin commands run in this process (main()
 * with streams of its own: a Node.js start each would cost a second); what only a process shows
 * runs `node bin/tasklane.js …` as one: exit codes and output (`admin as a process`), commands
 * started at once on a new database, and `serve`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { linesOf } from './cli/support.js';
import { Client, expectError, expectStatus, tempDatabase, type TempDatabase } from './harness.js';
import {
  admin,
  adminFails,
  cliEnv,
  killAll,
  printedKey,
  runCli,
  serve,
  TIMEOUT,
  UUID,
  type Run,
  type Serving,
} from './processes.js';

const show = (run: Run) => `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;

describe('tasklane admin', { timeout: 10 * TIMEOUT }, () => {
  let db: TempDatabase;
  let server: Serving;
  before(async () => {
    db = await tempDatabase();
    server = await serve(db.url);
  });
  after(async () => {
    await server?.stop();
    killAll();
    await db?.remove();
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

  test(
    'key create prints {id, key, expiresAt} and the key works against the running server',
    { timeout: TIMEOUT },
    async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Keyed');
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Kim');
      await admin(db.url, 'member', 'add', '--org', org.id, '--user', user.id, '--role', 'owner');
      const created = await admin(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--name', 'laptop');
      assert.deepEqual(Object.keys(created).sort(), ['expiresAt', 'id', 'key']);
      assert.equal(created.expiresAt, null, 'without --expires-* the key never expires');
      assert.equal(typeof created.key, 'string');
      assert.ok(created.key.length >= 20);
      assert.deepEqual(expectStatus(await new Client(server.url, created.key).get('/v1/me'), 200), {
        user: { id: user.id, name: 'Kim', email: user.email },
        team: { id: org.id, name: 'Keyed' },
        role: 'owner',
      });
    },
  );

  test(
    'key create with --preset, --scopes or --lists makes a key limited as a scoped key of the same request through the API is; a bad one creates no key',
    { timeout: TIMEOUT },
    async () => {
      const { org, user, api } = await orgWithMember('owner');
      const list = expectStatus(await api.post('/v1/lists', { name: 'Roadmap' }), 201);
      const other = expectStatus(await api.post('/v1/lists', { name: 'Elsewhere' }), 201);
      const hidden = expectStatus(await api.post('/v1/tasks', { title: 'Hidden', taskListIds: [other.id] }), 201);
      const create = (...extra: string[]) =>
        admin(db.url, 'key', 'create', '--org', org.id, '--user', user.id, ...extra);

      const reader = new Client(server.url, (await create('--preset', 'readOnly')).key);
      expectStatus(await reader.get('/v1/tasks'), 200);
      expectError(await reader.post('/v1/tasks', { title: 'No' }), 403, 'This API key lacks the scope tasks:write.');

      const limited = await create('--scopes', 'tasks:read, tasks:write', '--lists', String(list.id));
      const agent = new Client(server.url, limited.key);
      expectStatus(await agent.post('/v1/tasks', { title: 'Yes', taskListIds: [list.id] }), 201);
      expectError(await agent.get(`/v1/tasks/${hidden.id}`), 403, 'You do not have access to this task.');
      expectError(await agent.get('/v1/lists'), 403, 'This API key lacks the scope lists:read.');

      const before = (await admin(db.url, 'key', 'list', '--org', org.id, '--user', user.id)).keys;
      const shown = before.find((key: { id: string }) => key.id === limited.id);
      assert.deepEqual([shown.scopes, shown.listIds], [['tasks:read', 'tasks:write'], [list.id]]);
      const refusals = await Promise.all([
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--scopes', 'tasks:fly'),
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--preset', 'god'),
        adminFails(
          db.url,
          'key',
          'create',
          '--org',
          org.id,
          '--user',
          user.id,
          '--preset',
          'agent',
          '--scopes',
          'tasks:read',
        ),
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--lists', '999999'),
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id, '--lists', 'roadmap'),
      ]);
      assert.match(refusals[0], /"tasks:fly" is not a scope/);
      assert.match(refusals[1], /--preset must be readOnly or agent/);
      assert.match(refusals[2], /Give scopes or preset, not both/);
      assert.match(refusals[3], /999999 is not a list you are a member of/);
      assert.match(refusals[4], /--lists takes list ids/);
      const after = (await admin(db.url, 'key', 'list', '--org', org.id, '--user', user.id)).keys;
      assert.equal(after.length, before.length);
    },
  );

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
      // Independent refusals, run side by side to keep the suite short.
      await Promise.all([
        adminFails(db.url, 'member', 'add', '--org', randomUUID(), '--user', user.id),
        adminFails(db.url, 'member', 'add', '--org', 'no-such-org', '--user', user.id),
        adminFails(db.url, 'key', 'create', '--org', randomUUID(), '--user', user.id),
        adminFails(db.url, 'status', 'create', '--org', randomUUID(), '--name', 'X'),
      ]);
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
      await Promise.all([
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', outsider.id),
        adminFails(db.url, 'key', 'create', '--org', org.id, '--user', randomUUID()),
      ]);
    });

    test('a bad role', { timeout: TIMEOUT }, async () => {
      const org = await admin(db.url, 'org', 'create', '--name', 'Strict');
      const user = await admin(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`, '--name', 'Rolf');
      await Promise.all(
        ['superuser', 'Admin', ''].map((role) =>
          adminFails(db.url, 'member', 'add', '--org', org.id, '--user', user.id, '--role', role),
        ),
      );
      // Nothing was added: a key for them is still refused.
      await adminFails(db.url, 'key', 'create', '--org', org.id, '--user', user.id);
    });

    test('a missing or unknown option, and an unknown command', { timeout: TIMEOUT }, async () => {
      await Promise.all([
        adminFails(db.url, 'org', 'create'),
        adminFails(db.url, 'user', 'create', '--email', `${randomUUID()}@example.test`),
        adminFails(db.url, 'member', 'add', '--org', randomUUID()),
        adminFails(db.url, 'key', 'revoke'),
        adminFails(db.url, 'org', 'create', '--name', 'X', '--colour', 'red'),
        adminFails(db.url, 'org', 'explode', '--name', 'X'),
      ]);
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

describe('admin as a process', { timeout: 4 * TIMEOUT }, () => {
  let db: TempDatabase;
  before(async () => {
    db = await tempDatabase();
  });
  after(async () => {
    killAll();
    await db?.remove();
  });

  test('success: exit 0, one JSON object on stdout, the database on stderr', async () => {
    const run = await runCli(['admin', 'org', 'create', '--name', 'Process'], cliEnv(db.url));
    assert.equal(run.code, 0, show(run));
    const [line, ...more] = linesOf(run.stdout);
    assert.deepEqual(more, [], show(run));
    assert.deepEqual(Object.keys(JSON.parse(line!)).sort(), ['id', 'name'], show(run));
    assert.match(run.stderr, /^database: /, show(run));
  });

  test('a refusal exits 1 and a usage error or an unknown command 2, each with one line on stderr and nothing on stdout', async () => {
    const cases: [string[], number][] = [
      [['admin', 'member', 'add', '--org', randomUUID(), '--user', randomUUID()], 1],
      [['admin', 'org', 'create'], 2],
      [['admin', 'org', 'explode'], 2],
    ];
    // Side by side: each is a process of its own.
    const runs = await Promise.all(cases.map(([args]) => runCli(args, cliEnv(db.url))));
    for (const [i, run] of runs.entries()) {
      const [args, code] = cases[i]!;
      assert.equal(run.code, code, `${args.join(' ')}: ${show(run)}`);
      assert.equal(run.stdout, '', show(run));
      assert.equal(linesOf(run.stderr).length, 1, show(run));
    }
    const unknown = await runCli(['explode'], cliEnv(db.url));
    assert.equal(unknown.code, 2, show(unknown));
    assert.match(unknown.stderr, /^tasklane: unknown command "explode"/, show(unknown));
  });
});

describe('migrations', () => {
  test(
    'admin processes started at once on a new database all succeed: the first migrates, the rest wait',
    {
      timeout: 2 * TIMEOUT,
    },
    async () => {
      // Before migrations took SQLite's write lock, about one run in three failed with "table already exists".
      for (let round = 0; round < 3; round++) {
        const fresh = await tempDatabase();
        try {
          const runs = await Promise.all(
            [1, 2, 3, 4].map((n) => runCli(['admin', 'org', 'create', '--name', `T${n}`], cliEnv(fresh.url))),
          );
          for (const run of runs) assert.equal(run.code, 0, show(run));
          assert.equal(new Set(runs.map((run) => JSON.parse(run.stdout).id)).size, 4);
        } finally {
          await fresh.remove();
        }
      }
    },
  );
});

describe('tasklane serve', { timeout: 10 * TIMEOUT }, () => {
  const databases: TempDatabase[] = [];
  after(async () => {
    killAll();
    for (const db of databases) await db.remove();
  });
  const newDb = async () => {
    const db = await tempDatabase();
    databases.push(db);
    return db;
  };

  test(
    'first start on an empty database prints a working key and a curl line; a restart prints no secret; SIGTERM exits 0',
    { timeout: 4 * TIMEOUT },
    async () => {
      const db = await newDb();
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
    const db = await newDb();
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
      const db = await newDb();
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
