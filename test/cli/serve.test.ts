/**
 * `tasklane serve` when it cannot listen: the operator reads which setting to change, not a stack
 * trace, and the failed start does not make the starter team whose secrets it could never print.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { tempDatabase, type TempDatabase } from '../harness.js';
import {
  BIN,
  cliEnv,
  commandNodeFlags,
  FROM_SOURCE,
  killAll,
  LISTENING,
  printedKey,
  ROOT,
  runCli,
  serve,
  TIMEOUT,
  track,
} from '../processes.js';
import { adminOk } from './support.js';

const databases: TempDatabase[] = [];
after(async () => {
  killAll();
  for (const database of databases) await database.remove();
});
const newDatabase = async () => {
  const database = await tempDatabase();
  databases.push(database);
  return database;
};

test(
  'serve on a port another server holds exits 1 with one line naming PORT and no stack trace; it makes no starter team, so the next start prints its secrets',
  { timeout: 2 * TIMEOUT },
  async () => {
    const holder = await serve((await newDatabase()).url);
    try {
      const port = Number(new URL(holder.url).port);
      const fresh = await newDatabase();
      const refused = await runCli(['serve'], cliEnv(fresh.url, { PORT: String(port) }));
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(refused.stdout, '', 'it printed something on stdout (secrets, or "listening")');
      assert.equal(
        refused.stderr,
        `Port ${port} on 127.0.0.1 is already in use. Set PORT to another port, e.g. PORT=${port + 1} npm start.\n`,
      );

      // Nothing was bootstrapped: the next start on a free port makes the starter team and prints its key.
      assert.deepEqual((await adminOk(fresh.url, ['org', 'list'])).value, { orgs: [] });
      const started = await serve(fresh.url);
      try {
        printedKey(started.stdout());
      } finally {
        assert.equal(await started.stop(), 0);
      }
    } finally {
      await holder.stop();
    }
  },
);

test(
  'tasklane serve and npm start run Node.js with a 4 MiB young generation, which holds peak RSS down',
  {
    skip: FROM_SOURCE && 'runs the built bin/tasklane.js itself: run it after a build (npm test)',
  },
  async () => {
    assert.deepEqual(commandNodeFlags(), ['--max-semi-space-size=4']);
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.equal(scripts.start, `node ${commandNodeFlags().join(' ')} bin/tasklane.js serve`);

    // Run as an installed command runs: the file itself, through its #! line.
    const database = await newDatabase();
    const child = track(spawn(BIN, ['serve'], { env: cliEnv(database.url), stdio: ['ignore', 'pipe', 'pipe'] }));
    try {
      let stdout = '';
      child.stdout!.setEncoding('utf8');
      for await (const chunk of child.stdout!) {
        stdout += chunk;
        if (LISTENING.test(stdout)) break;
      }
      const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      assert.ok(argv.includes('--max-semi-space-size=4'), `the server runs as: ${argv.join(' ')}`);
    } finally {
      child.kill('SIGTERM');
    }
  },
);
