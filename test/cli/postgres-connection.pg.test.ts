/**
 * A PostgreSQL that refuses tasklane at start (no such role, no such database, nothing listening)
 * reads as a connection error naming host, database and user, never the password, and never as a
 * failed migration: for `serve` (exit 1, one line on stderr) and for `tasklane admin`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import { cliEnv, killAll, runCli, runCommand, TIMEOUT } from '../processes.js';

after(killAll);

/** The test server's PostgreSQL, with `change` applied to its URL (another user, database, port). */
function postgresUrl(change: (url: URL) => void): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  change(url);
  return url.toString();
}

/** A TCP port on loopback that nothing listens on (taken, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** `tasklane serve` as a process on `databaseUrl`: it must fail to start, with one line on stderr. */
async function failedServe(databaseUrl: string): Promise<string> {
  const run = await runCli(['serve'], cliEnv(databaseUrl));
  assert.equal(run.code, 1, `serve exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  assert.equal(run.stdout, '', 'a start that cannot connect prints nothing on stdout');
  const lines = run.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `one line on stderr, not a stack trace:\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /migration/i);
  return lines[0]!;
}

test(
  'serve with a role that does not exist says it cannot connect, naming host, database and user (never the password), and how to create the role',
  { timeout: TIMEOUT },
  async () => {
    const role = `no_such_role_${randomBytes(4).toString('hex')}`;
    const url = postgresUrl((u) => {
      u.username = role;
      u.password = 'hunter2-secret';
    });
    const { host, port, pathname } = new URL(url);
    const line = await failedServe(url);
    assert.equal(
      line,
      `Cannot connect to PostgreSQL at ${host.replace(/:\d+$/, '')}:${port || 5432}, database "${pathname.slice(1)}", ` +
        `user "${role}": role "${role}" does not exist. Create it as the postgres user: sudo -u postgres createuser ${role}`,
    );
    assert.doesNotMatch(line, /hunter2/);
  },
);

test(
  'tasklane admin with a database that does not exist says it cannot connect, and how to create it',
  { timeout: TIMEOUT },
  async () => {
    const database = `no_such_db_${randomBytes(4).toString('hex')}`;
    const url = postgresUrl((u) => (u.pathname = `/${database}`));
    const run = await runCommand(['admin', 'org', 'list'], cliEnv(url));
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      new RegExp(
        `^Cannot connect to PostgreSQL at [^,]+, database "${database}", user "[^"]+": database "${database}" does not exist\\. ` +
          `Create it as the postgres user: sudo -u postgres createdb --owner \\S+ ${database} \\(database: postgres://`,
      ),
    );
    assert.doesNotMatch(run.stderr, /migration/i);
  },
);

test(
  'serve against a port nothing listens on says the connection was refused and asks whether PostgreSQL runs there',
  {
    timeout: TIMEOUT,
  },
  async () => {
    const port = await freePort();
    const url = postgresUrl((u) => {
      u.hostname = '127.0.0.1';
      u.port = String(port);
    });
    const line = await failedServe(url);
    assert.match(
      line,
      new RegExp(`^Cannot connect to PostgreSQL at 127\\.0\\.0\\.1:${port}, database "[^"]+", user "[^"]+": `),
    );
    assert.match(line, new RegExp(`ECONNREFUSED.*Is PostgreSQL running and listening on 127\\.0\\.0\\.1:${port}\\?$`));
  },
);
