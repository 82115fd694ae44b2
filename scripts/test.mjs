#!/usr/bin/env node
/**
 * Runs the compiled test suite once per store: always on SQLite, then again on PostgreSQL when
 * TEST_DATABASE_URL names a server. Files named *.pg.test.js need PostgreSQL and run only in
 * that pass; browser tests (*.e2e.test.js) run once, in the SQLite pass. Without
 * TEST_DATABASE_URL the PostgreSQL pass is skipped with a visible notice, unless
 * REQUIRE_POSTGRES=1 (set by .ci/run), which turns that skip into a failure.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return testFiles(path);
      return entry.name.endsWith('.test.js') ? [path] : [];
    })
    .sort();
}

function run(store, files) {
  console.log(`\n=== test suite on ${store} (${files.length} files) ===\n`);
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], {
    stdio: 'inherit',
    env: { ...process.env, TASKLANE_TEST_STORE: store },
  });
  return result.status === 0;
}

const all = testFiles('dist');
const only = process.argv.slice(2);
const selected = only.length ? all.filter((f) => only.some((o) => f.includes(o))) : all;

let ok = run(
  'sqlite',
  selected.filter((f) => !f.endsWith('.pg.test.js')),
);

if (process.env.TEST_DATABASE_URL) {
  ok =
    run(
      'postgres',
      selected.filter((f) => !f.endsWith('.e2e.test.js')),
    ) && ok;
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
