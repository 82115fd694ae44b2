/**
 * What the CLI suites share: `tasklane admin` run with stdin, environment (and, as a child
 * process, folder) of the test's choosing, and its output read the way an operator's script reads
 * it. A command runs in the suite's own process unless the test asks for a real one.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startTestServer, tempDatabase, type TempDatabase, type TestServer } from '../harness.js';
import { cliEnv, killAll, runCommand, type Run, type RunOptions } from '../processes.js';

/**
 * A temporary database with the server running on it in this process, for the suite (its before
 * and after hooks): admin processes change the database, HTTP shows the change, and the server's
 * store lets a test call a service directly, as the racing tests do. Its pool is large enough that
 * requests and those calls run side by side on PostgreSQL.
 */
export function serverOnTempDatabase(): { readonly db: TempDatabase; readonly server: TestServer } {
  const live = {} as { db: TempDatabase; server: TestServer };
  before(async () => {
    live.db = await tempDatabase();
    live.server = await startTestServer({ DATABASE_URL: live.db.url, DATABASE_POOL_SIZE: '8' });
  });
  after(async () => {
    killAll();
    await live.server?.close();
    await live.db?.remove();
  });
  return live;
}

export interface AdminOptions extends RunOptions {
  /** Variables to set; `undefined` removes one (DATABASE_URL, to use the default). */
  env?: Record<string, string | undefined>;
}

const describeRun = (args: string[], run: Run) =>
  `tasklane admin ${args.join(' ')} → exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;

/** Runs `tasklane admin <args>` on the database and returns what it did. */
export function runAdmin(databaseUrl: string, args: string[], options: AdminOptions = {}): Promise<Run> {
  const env = { ...cliEnv(databaseUrl), ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return runCommand(['admin', ...args], env, options);
}

/** Non-empty lines of an output. */
export const linesOf = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

/**
 * Runs a command that must succeed: exit 0 and exactly one JSON object on stdout. Returns it
 * with the lines printed on stderr.
 */
export async function adminOk(
  databaseUrl: string,
  args: string[],
  options: AdminOptions = {},
): Promise<{ value: any; stderr: string[] }> {
  const run = await runAdmin(databaseUrl, args, options);
  assert.equal(run.code, 0, describeRun(args, run));
  const lines = linesOf(run.stdout);
  assert.equal(lines.length, 1, `expected one line of JSON on stdout: ${describeRun(args, run)}`);
  const value = JSON.parse(lines[0]!);
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `not a JSON object: ${lines[0]}`);
  return { value, stderr: linesOf(run.stderr) };
}

/** Runs a command that must fail: non-zero exit, nothing on stdout, one line on stderr, which it returns. */
export async function adminRefuses(databaseUrl: string, args: string[], options: AdminOptions = {}): Promise<string> {
  const run = await runAdmin(databaseUrl, args, options);
  assert.notEqual(run.code, 0, describeRun(args, run));
  assert.equal(run.stdout.trim(), '', `stdout must stay empty on failure: ${describeRun(args, run)}`);
  const lines = linesOf(run.stderr);
  assert.equal(lines.length, 1, `expected a one-line reason on stderr: ${describeRun(args, run)}`);
  return lines[0]!;
}
