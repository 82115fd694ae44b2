/** readerFor: every import source has its reader. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readerFor } from './index.js';
import { readCsv } from './csv.js';
import { IMPORT_SOURCES } from './source-items.js';
import { readTasklane } from './tasklane.js';
import { readTodoist } from './todoist.js';
import { readTrello } from './trello.js';

test('each import source has its own reader', () => {
  assert.deepEqual(
    IMPORT_SOURCES.map((source) => readerFor(source)),
    [readTasklane, readTrello, readTodoist, readCsv],
  );
});
