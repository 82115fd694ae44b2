#!/usr/bin/env node
/**
 * Runs the compiled test suite (`npm test` compiles the server with tsc first) once per store:
 * always on SQLite, then again on PostgreSQL when TEST_DATABASE_URL names a server.
 *
 * - The web build (`npm run build:web`) runs in the background while the server suites run, so
 *   they never wait for it; a run that selects no suite needing it does not build it at all. Only suites that need the built web app (web/dist) wait: *.web.test
 *   files and the browser tests (e2e/*.e2e.test). They start as soon as the build is done, one at
 *   a time beside the server suites, and their output is printed after them. A failed web build
 *   fails the run.
 * - *.pg.test files need PostgreSQL and run only in its pass; browser tests run once, on SQLite.
 * - Without TEST_DATABASE_URL the PostgreSQL pass is skipped with a visible notice, unless
 *   REQUIRE_POSTGRES=1 (set by .ci/run), which turns that skip into a failure.
 *
 * Suites are found from their sources (*.test.ts under src/, test/, e2e/), so a compiled file
 * left in dist/ by a suite since moved or deleted never runs. Arguments filter them by path:
 * `npm test -- events/ sessions/`.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith('.test.ts') ? [join('dist', path.replace(/\.ts$/, '.js'))] : [];
    })
    .sort();
}

/** Runs a command; resolves with whether it succeeded and, when `capture`, its output. */
function run(command, args, { env = process.env, capture = false, lowPriority = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (lowPriority && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10); // inherited by what it starts
      } catch {
        // not allowed here: it runs at normal priority
      }
    }
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.on('error', (error) => resolve({ ok: false, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ ok: code === 0, output }));
  });
}

/**
 * Runs suites on `store`, two files at a time. The web app's suites, which start while the server
 * suites are still running, go one at a time: with the browser tests they are the heaviest.
 */
function runSuites(store, files, { capture = false, concurrency = 2 } = {}) {
  // A captured run would pick the TAP reporter (its output is not a terminal): keep the one the
  // other runs show.
  const reporter = capture && process.stdout.isTTY ? ['--test-reporter=spec'] : [];
  return run(process.execPath, ['--test', `--test-concurrency=${concurrency}`, ...reporter, ...files], {
    env: { ...process.env, TASKLANE_TEST_STORE: store },
    capture,
  });
}

const needsWebApp = (file) => file.endsWith('.web.test.js') || file.endsWith('.e2e.test.js');
const header = (title, files) => `\n=== ${title} (${files.length} files) ===\n`;

const all = ['src', 'test', 'e2e'].flatMap((dir) => testFiles(dir));
const only = process.argv.slice(2);
const selected = only.length ? all.filter((f) => only.some((o) => f.includes(o))) : all;

/** Builds the web app in the background; resolves with whether it succeeded and how long it took. */
function buildWebApp() {
  const started = Date.now();
  // At low priority, so that on a busy machine the build takes the CPU the server suites leave,
  // rather than slowing timing-sensitive suites down.
  return run('npm', ['run', '--silent', 'build:web'], { capture: true, lowPriority: true }).then((result) => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (!result.ok)
      console.error(`\nFAIL: the web build (npm run build:web) failed after ${seconds} s:\n${result.output}`);
    return { ...result, seconds };
  });
}

const webBuild = selected.some(needsWebApp) ? buildWebApp() : null;

// SQLite: the server suites now, the ones that need the web app once it is built.
const sqliteFiles = selected.filter((f) => !f.endsWith('.pg.test.js'));
const serverFiles = sqliteFiles.filter((f) => !needsWebApp(f));
const webFiles = sqliteFiles.filter(needsWebApp);
console.log(header(`test suite on sqlite: server suites${webBuild ? ', while the web app builds' : ''}`, serverFiles));
const webSuites = webBuild?.then((build) =>
  build.ok && webFiles.length
    ? runSuites('sqlite', webFiles, { capture: true, concurrency: 1 })
    : { ok: build.ok, output: '' },
);
let ok = serverFiles.length ? (await runSuites('sqlite', serverFiles)).ok : true;
// Without a selected suite that needs it, the web app is neither built nor waited for.
const build = webBuild ? await webBuild : { ok: true };
if (!webBuild) {
  console.log('\nweb build: not needed by the selected suites');
} else if (build.ok) {
  console.log(`\nweb build: done in ${build.seconds} s`);
  console.log(header('test suite on sqlite: suites that need the built web app', webFiles));
  const web = await webSuites;
  process.stdout.write(web.output);
  ok = web.ok && ok;
} else {
  console.log(`\nweb build: FAILED in ${build.seconds} s`);
  console.error(`\nFAIL: not run without a web build: ${webFiles.join(' ') || 'none selected'}`);
  ok = false;
}

if (process.env.TEST_DATABASE_URL) {
  const pgFiles = selected.filter((f) => !f.endsWith('.e2e.test.js') && (build.ok || !needsWebApp(f)));
  console.log(header('test suite on postgres', pgFiles));
  ok = (await runSuites('postgres', pgFiles)).ok && ok;
} else if (process.env.REQUIRE_POSTGRES === '1') {
  console.error('\nFAIL: REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set, so the PostgreSQL suite cannot run.');
  ok = false;
} else {
  console.log(
    '\nNOTICE: PostgreSQL suite SKIPPED (set TEST_DATABASE_URL=postgres://user@host:5432/db to run every test on PostgreSQL too).',
  );
}

console.log(ok ? '\nall test passes succeeded' : '\nSOME TESTS FAILED');
process.exit(ok ? 0 : 1);
