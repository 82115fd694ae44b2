/**
 * The web app's unit tests: each <module>.test.ts under web/src/, which sits beside the module it
 * tests. They are the app's own TypeScript, with its extensionless imports and `@contract`, so
 * they run here, in Node, through Vite's module runner (support/web-module.ts) rather than from
 * dist/. `npm test` finds this file like any suite, and runs it with the server suites (it needs
 * no web build); `npm test -- web-units` runs the web unit tests alone.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../test/processes.js';
import { importWebModule } from './support/web-module.js';

const suites = readdirSync(join(ROOT, 'web', 'src'), { recursive: true, encoding: 'utf8' })
  .filter((path) => path.endsWith('.test.ts'))
  .map((path) => `src/${path.split(sep).join('/')}`)
  .sort();

test('the web app has unit tests to run', () => assert.ok(suites.length > 0, 'no web/src/**/*.test.ts found'));

// One after another: each registers its tests with node:test as it loads.
for (const suite of suites) await importWebModule(suite);
