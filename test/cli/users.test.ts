/**
 * `tasklane admin user …`: passwords come from a prompt without echo or from stdin, never from
 * the command line; emails stay valid and unique, also when two writers race for one (the
 * concurrent case is the PostgreSQL one: SQLite runs writers one at a time). A running server
 * on the same database shows each change on its next request.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { AppError } from '../../src/http/errors.js';
import { createUser, setEmail } from '../../src/team/team.service.js';
import { expectSignInRefused, signIn, WRONG_CREDENTIALS } from '../browser.js';
import { Client, expectError, expectStatus } from '../harness.js';
import { cliEnv, ROOT, tasklaneCommand, TIMEOUT, track } from '../processes.js';
import { adminOk, adminRefuses, runAdmin, serverOnTempDatabase } from './support.js';

const live = serverOnTempDatabase();

const newEmail = () => `${randomUUID()}@example.test`;

/** A user who is a member of a new team with an API key, made with the CLI. */
async function member(name = 'Pat') {
  const org = (await adminOk(live.db.url, ['org', 'create', '--name', `Team ${randomUUID().slice(0, 6)}`])).value;
  const user = (await adminOk(live.db.url, ['user', 'create', '--email', newEmail(), '--name', name])).value;
  await adminOk(live.db.url, ['member', 'add', '--org', org.id, '--user', user.id]);
  const key = (await adminOk(live.db.url, ['key', 'create', '--org', org.id, '--user', user.id])).value;
  return { org, user, api: new Client(live.server.url, key.key) };
}

const setPassword = (userId: string, input: string) =>
  adminOk(live.db.url, ['user', 'set-password', '--user', userId], { input });

describe('admin user set-password', { timeout: 4 * TIMEOUT }, () => {
  test('reads the first line of stdin; the user signs in with it; a later change ends their web sessions and keeps their API keys', async () => {
    const { user, api } = await member();
    const first = await setPassword(user.id, 'the first password\nnot this line\n');
    assert.deepEqual(first.value, { passwordSet: true, sessionsEnded: 0 });
    const { browser } = await signIn(live.server, user.email, 'the first password');
    const other = (await signIn(live.server, user.email, 'the first password')).browser;
    expectStatus(await browser.get('/auth/session'), 200);

    const second = await setPassword(user.id, 'the second password\r\n');
    assert.deepEqual(second.value, { passwordSet: true, sessionsEnded: 2 });
    for (const ended of [browser, other]) expectError(await ended.get('/auth/session'), 401);
    await expectSignInRefused(
      live.server,
      { email: user.email, password: 'the first password' },
      401,
      WRONG_CREDENTIALS,
    );
    await signIn(live.server, user.email, 'the second password');
    expectStatus(await api.get('/v1/me'), 200);
  });

  test('never takes the password from the command line, and refuses an empty stdin or a length outside 8 to 200, changing nothing', async () => {
    const { user } = await member();
    await setPassword(user.id, 'the kept password\n');
    const refusals = await Promise.all([
      adminRefuses(live.db.url, ['user', 'set-password', '--user', user.id, '--password', 'on the command line']),
      adminRefuses(live.db.url, ['user', 'set-password', '--user', user.id]),
      adminRefuses(live.db.url, ['user', 'set-password', '--user', user.id], { input: '\n' }),
      adminRefuses(live.db.url, ['user', 'set-password', '--user', user.id], { input: 'short\n' }),
      adminRefuses(live.db.url, ['user', 'set-password', '--user', user.id], { input: `${'x'.repeat(201)}\n` }),
      adminRefuses(live.db.url, ['user', 'set-password', '--user', randomUUID()], { input: 'a fine password\n' }),
    ]);
    assert.match(refusals[0]!, /Unknown option '--password'/);
    assert.match(refusals[1]!, /^no password on stdin/);
    assert.match(refusals[2]!, /^no password on stdin/);
    assert.match(refusals[3]!, /^password must be 8 to 200 characters long/);
    assert.match(refusals[4]!, /^password must be 8 to 200 characters long/);
    assert.match(refusals[5]!, /^user [0-9a-f-]+ not found/);
    await signIn(live.server, user.email, 'the kept password');
  });

  test(
    'on a terminal it asks twice and shows none of what is typed; two different entries change nothing',
    { skip: !existsSync('/usr/bin/script') && 'needs script(1) for a terminal' },
    async () => {
      const { user } = await member();
      const typed = await onTerminal(
        ['admin', 'user', 'set-password', '--user', user.id],
        ['typed secret 1', 'typed secret 1'],
      );
      assert.equal(typed.code, 0, typed.screen);
      assert.match(typed.screen, new RegExp(`Setting the password of ${user.email} \\(database: `));
      assert.match(typed.screen, /New password: [\s\S]*Repeat it: /);
      assert.match(typed.screen, /\{"passwordSet":true,"sessionsEnded":0\}/);
      assert.doesNotMatch(typed.screen, /typed secret/, `the password was echoed:\n${typed.screen}`);
      await signIn(live.server, user.email, 'typed secret 1');

      const differ = await onTerminal(
        ['admin', 'user', 'set-password', '--user', user.id],
        ['typed secret 2', 'typed secret 3'],
      );
      assert.notEqual(differ.code, 0, differ.screen);
      assert.match(differ.screen, /the two passwords differ; nothing was changed/);
      await signIn(live.server, user.email, 'typed secret 1');
    },
  );
});

/**
 * Runs `tasklane <args>` on a terminal of its own (script(1) makes one), typing each line once the
 * screen shows a prompt for it. Resolves to the exit code and everything the terminal showed.
 */
function onTerminal(args: string[], lines: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, ...tasklaneCommand(), ...args].map((word) => `'${word}'`).join(' ');
  const child = track(
    spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: cliEnv(live.db.url),
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  );
  let screen = '';
  let prompts = 0;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
    const seen = (screen.match(/(New password|Repeat it): /g) ?? []).length;
    for (; prompts < seen && prompts < lines.length; prompts++) child.stdin!.write(`${lines[prompts]}\r`);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no exit on the terminal in ${TIMEOUT} ms:\n${screen}`));
    }, TIMEOUT);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, screen });
    });
  });
}

describe('admin user create', { timeout: 2 * TIMEOUT }, () => {
  test('--password still works but warns on stderr without repeating it; --password-stdin reads it instead; both at once is refused', async () => {
    const viaArgv = await adminOk(live.db.url, [
      'user',
      'create',
      '--email',
      newEmail(),
      '--name',
      'Old',
      '--password',
      'an argv password',
    ]);
    assert.equal(viaArgv.stderr.length, 2, viaArgv.stderr.join('\n'));
    assert.match(viaArgv.stderr[0]!, /^database: /);
    assert.match(
      viaArgv.stderr[1]!,
      /^warning: --password shows the password .* use --password-stdin, or "admin user set-password", instead$/,
    );
    assert.doesNotMatch(viaArgv.stderr.join('\n'), /an argv password/);

    const viaStdin = await adminOk(
      live.db.url,
      ['user', 'create', '--email', newEmail(), '--name', 'New', '--password-stdin'],
      {
        input: 'a piped password\n',
      },
    );
    assert.deepEqual(Object.keys(viaStdin.value).sort(), ['email', 'id', 'name']);
    assert.equal(viaStdin.stderr.length, 1, viaStdin.stderr.join('\n'));
    const org = (await adminOk(live.db.url, ['org', 'create', '--name', 'Sign-in'])).value;
    for (const [created, password] of [
      [viaArgv.value, 'an argv password'],
      [viaStdin.value, 'a piped password'],
    ] as const) {
      await adminOk(live.db.url, ['member', 'add', '--org', org.id, '--user', created.id]);
      const me = expectStatus(
        await (await signIn(live.server, created.email, password)).browser.get('/auth/session'),
        200,
      );
      assert.equal(me.user.id, created.id);
    }

    const email = newEmail();
    await adminRefuses(
      live.db.url,
      ['user', 'create', '--email', email, '--name', 'Both', '--password-stdin', '--password', 'x'.repeat(12)],
      {
        input: 'y'.repeat(12),
      },
    );
    assert.equal(
      (await adminOk(live.db.url, ['user', 'list'])).value.users.filter((u: { email: string }) => u.email === email)
        .length,
      0,
    );
  });

  test('without a password option it reads nothing and the user has no web sign-in', async () => {
    const org = (await adminOk(live.db.url, ['org', 'create', '--name', 'Keys only'])).value;
    const created = await adminOk(live.db.url, ['user', 'create', '--email', newEmail(), '--name', 'Keys only'], {
      input: 'not a password for anyone\n',
    });
    await adminOk(live.db.url, ['member', 'add', '--org', org.id, '--user', created.value.id]);
    await expectSignInRefused(
      live.server,
      { email: created.value.email, password: 'not a password for anyone' },
      401,
      WRONG_CREDENTIALS,
    );
  });
});

describe('admin user set-email', { timeout: 2 * TIMEOUT }, () => {
  test('changes the email the user signs in with and the one GET /v1/me shows', async () => {
    const { user, api } = await member('Mover');
    await setPassword(user.id, 'moving password\n');
    const email = newEmail();
    const changed = await adminOk(live.db.url, [
      'user',
      'set-email',
      '--user',
      user.id.toUpperCase(),
      '--email',
      ` ${email.toUpperCase()} `,
    ]);
    assert.deepEqual(changed.value, { id: user.id, email, name: 'Mover' });
    assert.equal(expectStatus(await api.get('/v1/me'), 200).user.email, email);
    await signIn(live.server, email, 'moving password');
    await expectSignInRefused(live.server, { email: user.email, password: 'moving password' }, 401, WRONG_CREDENTIALS);
  });

  test('refuses a malformed email, one another user has (in any case) and an unknown user, changing nothing', async () => {
    const { user } = await member();
    const { user: other } = await member();
    const lines = await Promise.all([
      adminRefuses(live.db.url, ['user', 'set-email', '--user', user.id, '--email', 'not an email']),
      adminRefuses(live.db.url, ['user', 'set-email', '--user', user.id, '--email', `${'a'.repeat(320)}@example.test`]),
      adminRefuses(live.db.url, ['user', 'set-email', '--user', user.id, '--email', other.email.toUpperCase()]),
      adminRefuses(live.db.url, ['user', 'set-email', '--user', randomUUID(), '--email', newEmail()]),
    ]);
    assert.match(lines[0]!, /^"not an email" is not an email address/);
    assert.match(lines[1]!, /is not an email address/);
    assert.match(lines[2]!, new RegExp(`^a user with email ${other.email.toUpperCase()} already exists`));
    assert.match(lines[3]!, /^user [0-9a-f-]+ not found/);
    const users = (await adminOk(live.db.url, ['user', 'list'])).value.users as { id: string; email: string }[];
    assert.equal(users.find((u) => u.id === user.id)?.email, user.email);
  });

  test('setting the email a user already has (in another case) keeps it', async () => {
    const { user } = await member();
    const same = await adminOk(live.db.url, [
      'user',
      'set-email',
      '--user',
      user.id,
      '--email',
      user.email.toUpperCase(),
    ]);
    assert.equal(same.value.email, user.email);
  });
});

describe('two writers racing for one email', { timeout: 4 * TIMEOUT }, () => {
  /** Asserts that exactly one of the settled writes won and every other got the duplicate error. */
  function oneWinner(results: PromiseSettledResult<unknown>[], email: string) {
    const lost = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    assert.equal(results.length - lost.length, 1, `winners among ${results.length}: ${lost.map(String).join('; ')}`);
    for (const reason of lost) {
      assert.ok(reason instanceof AppError, `not the duplicate error: ${reason?.stack ?? reason}`);
      assert.equal(reason.message, `a user with email ${email} already exists`);
      assert.equal(reason.status, 409);
    }
  }

  test('user create: eight at once in the service, exactly one is created and the rest get the duplicate error', async () => {
    for (let round = 0; round < 5; round++) {
      const email = newEmail();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => createUser(live.server.store, { email, name: `Racer ${i}` })),
      );
      oneWinner(results, email);
    }
  });

  test('user set-email: eight users at once in the service, exactly one gets the email', async () => {
    const users = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createUser(live.server.store, { email: newEmail(), name: `Setter ${i}` })),
    );
    for (let round = 0; round < 5; round++) {
      const email = newEmail();
      oneWinner(await Promise.allSettled(users.map((u) => setEmail(live.server.store, u.id, email))), email);
    }
  });

  test('user create: processes started together print one user and, for the rest, the duplicate error on one line', async () => {
    const email = newEmail();
    const runs = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        runAdmin(live.db.url, ['user', 'create', '--email', email, '--name', `P${i}`], { process: true }),
      ),
    );
    assert.equal(runs.filter((run) => run.code === 0).length, 1, runs.map((r) => r.stderr).join('\n'));
    for (const run of runs.filter((r) => r.code !== 0)) {
      assert.equal(run.stdout, '');
      assert.match(run.stderr, new RegExp(`^a user with email ${email} already exists \\(database: .+\\)\\n$`));
    }
  });
});
