#!/usr/bin/env node
/**
 * The inner loop: runs test files straight from their TypeScript sources through tsx, which only
 * strips the types (no type check, no dist/), so one suite starts in about a second.
 *
 *   npm run test:one -- test/keys.test.ts [more files or folders]
 *   npm run test:one -- --pg test/keys.test.ts      on PostgreSQL (TEST_DATABASE_URL, else the local one)
 *   npm run test:one -- --watch test/keys.test.ts   again on every change of a file it imports
 *
 * The suites find their way from source themselves (test/processes.ts, FROM_SOURCE): a CLI process
 * a test starts runs src/cli/main.ts through tsx too. Types are checked by `npx tsc --noEmit` and by
 * `npm test`, which runs the compiled suite.
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const args = process.argv.slice(2);
const flags = new Set(args.filter((arg) => arg.startsWith('--')));
const files = args.filter((arg) => !arg.startsWith('--'));
const unknown = [...flags].filter((flag) => flag !== '--pg' && flag !== '--watch');
if (files.length === 0 || unknown.length > 0) {
  console.error('usage: npm run test:one -- [--pg] [--watch] <file.test.ts | folder>…');
  process.exit(2);
}

/** A folder as its *.test.ts files, however deep: node --test looks only for .js test files in one. */
const suitesIn = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path)
        .sort()
        .flatMap((name) => {
          const inner = join(path, name);
          return statSync(inner).isDirectory() || name.endsWith('.test.ts') ? suitesIn(inner) : [];
        })
    : [path];

const env = { ...process.env, TASKLANE_TEST_STORE: flags.has('--pg') ? 'postgres' : 'sqlite' };
if (flags.has('--pg')) env.TEST_DATABASE_URL ??= LOCAL_POSTGRES;
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', ...(flags.has('--watch') ? ['--watch'] : []), ...files.flatMap(suitesIn)],
  { env, stdio: 'inherit' },
);
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
