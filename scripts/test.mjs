#!/usr/bin/env node
/**
 * Runs the compiled test suite (`npm test` compiles the server with tsc first) once per store:
 * always on SQLite, then again on PostgreSQL when TEST_DATABASE_URL names a server.
 *
 * - The web build (`npm run build:web`) runs in the background while the server suites run, so
 *   they never wait for it; a run that selects no suite needing it does not build it at all.
 * - Only the suites that need the built web app (web/dist) wait for it: *.web.test files and the
 *   browser tests (e2e/*.e2e.test). They start as soon as the build is done, two at a time beside
 *   the server suites, on one Chromium that the browser suites share (each test still has browser
 *   contexts of its own), and their output is printed after the server suites'. A failed web
 *   build fails the run.
 * - Each pool starts its longest suites first (as long as they took last time, kept in
 *   dist/test-durations.json; on a fresh clone the largest source first), so that no long suite
 *   starts last and runs alone at the end.
 * - *.pg.test files need PostgreSQL and run only in its pass; browser tests run once, on SQLite.
 * - Without TEST_DATABASE_URL the PostgreSQL pass is skipped with a visible notice, unless
 *   REQUIRE_POSTGRES=1 (set by .ci/run), which turns that skip into a failure.
 *
 * TEST_PASSES=postgres (or sqlite) runs only that pass; both is the default.
 *
 * Suites are found from their sources (*.test.ts under src/, test/, e2e/), so a compiled file
 * left in dist/ by a suite since moved or deleted never runs. Arguments filter them by path:
 * `npm test -- events/ sessions/`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join, relative } from 'node:path';

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
 * Server suites at a time (TEST_CONCURRENCY overrides it). Two on a 2-core machine: three took
 * as long (433 s against 437 s for the same 104 suites, the suites are CPU-bound) and load the
 * machine more.
 */
const SERVER_CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 2);

/** How long each suite took when it last ran, by store and file (ms): dist/ is the build's own folder. */
const DURATIONS = join('dist', 'test-durations.json');
const durations = (() => {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8'));
  } catch {
    return {};
  }
})();

/** The tests that failed, by store, file and name, with the first lines of their error. */
const failures = [];

/**
 * The longest first; a suite with no time yet counts as long, so that it is measured early. With
 * no times at all (a fresh clone, as in CI), the largest source first: size predicts a suite's
 * time only loosely, but far better than the alphabet, which can leave a long suite to run last.
 */
function longestFirst(store, files) {
  const timed = files.some((file) => durations[`${store}:${file}`] !== undefined);
  const took = timed
    ? (file) => durations[`${store}:${file}`] ?? Infinity
    : (file) => statSync(file.replace(/^dist\//, '').replace(/\.js$/, '.ts')).size;
  return [...files].sort((a, b) => took(b) - took(a) || a.localeCompare(b));
}

/**
 * Runs suites on `store`, `concurrency` files at a time, the longest first, and records how long
 * each took. `env` adds variables (the shared browser's address).
 */
async function runSuites(store, files, { capture = false, concurrency = SERVER_CONCURRENCY, env = {} } = {}) {
  // Printed as the run would print by itself: spec on a terminal (also when captured), else TAP.
  const printer = process.stdout.isTTY ? 'spec' : 'tap';
  const scratch = mkdtempSync(join(tmpdir(), 'tasklane-durations-'));
  const timesFile = join(scratch, 'times.json');
  const result = await run(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${concurrency}`,
      `--test-reporter=${printer}`,
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/durations-reporter.mjs',
      `--test-reporter-destination=${timesFile}`,
      ...longestFirst(store, files),
    ],
    { env: { ...process.env, ...env, TASKLANE_TEST_STORE: store }, capture },
  );
  try {
    const record = JSON.parse(readFileSync(timesFile, 'utf8'));
    for (const [file, ms] of Object.entries(record.durations)) {
      durations[`${store}:${relative(process.cwd(), file)}`] = Math.round(ms);
    }
    writeFileSync(DURATIONS, `${JSON.stringify(durations, null, 1)}\n`);
    for (const failure of record.failures) failures.push({ store, ...failure });
  } catch {
    // No times (the run was cut short): the next run orders by the ones it has.
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return result;
}

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

/**
 * Runs the suites that need the built web app, two at a time. The browser suites share one
 * Chromium, started here (its start-up paid once, not once per suite); without Chromium each
 * suite skips or fails by itself, as REQUIRE_BROWSER says.
 */
async function runWebSuites(files) {
  const { missingBrowser, SHARED_BROWSER_ENV, startSharedBrowser } = await import('../dist/e2e/support/browser.js');
  const browser =
    files.some((f) => f.endsWith('.e2e.test.js')) && !missingBrowser() ? await startSharedBrowser() : null;
  try {
    const env = browser ? { [SHARED_BROWSER_ENV]: browser.wsEndpoint() } : {};
    return await runSuites('sqlite', files, { capture: true, concurrency: 2, env });
  } finally {
    await browser?.close();
  }
}

const needsWebApp = (file) => file.endsWith('.web.test.js') || file.endsWith('.e2e.test.js');
const header = (title, files) => `\n=== ${title} (${files.length} files) ===\n`;

const all = ['src', 'test', 'e2e'].flatMap((dir) => testFiles(dir));
const only = process.argv.slice(2);
const selected = only.length ? all.filter((f) => only.some((o) => f.includes(o))) : all;

const passes = (process.env.TEST_PASSES ?? 'sqlite,postgres').split(',');
const webBuild = selected.some(needsWebApp) ? buildWebApp() : null;

// SQLite: the server suites now, the ones that need the web app once it is built.
const sqliteFiles = passes.includes('sqlite') ? selected.filter((f) => !f.endsWith('.pg.test.js')) : [];
const serverFiles = sqliteFiles.filter((f) => !needsWebApp(f));
const webFiles = sqliteFiles.filter(needsWebApp);
console.log(header(`test suite on sqlite: server suites${webBuild ? ', while the web app builds' : ''}`, serverFiles));
const webSuites = webBuild?.then((build) =>
  build.ok && webFiles.length ? runWebSuites(webFiles) : { ok: build.ok, output: '' },
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

if (!passes.includes('postgres')) {
  console.log('\nPostgreSQL pass: not selected (TEST_PASSES)');
} else if (process.env.TEST_DATABASE_URL) {
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

// Again at the end, where a log that keeps only its tail still shows them.
if (failures.length > 0) {
  console.log(`\n=== ${failures.length} failed test(s) ===`);
  for (const { store, file, name, error } of failures) {
    console.log(`\n✖ [${store}] ${relative(process.cwd(), file)}: ${name}\n  ${error.replaceAll('\n', '\n  ')}`);
  }
}
console.log(ok ? '\nall test passes succeeded' : '\nSOME TESTS FAILED');
process.exit(ok ? 0 : 1);
