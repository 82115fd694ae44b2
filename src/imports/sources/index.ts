/** The reader of each import source (issue 32). */
import { readCsv } from './csv.js';
import type { ImportSourceName, SourceReader } from './source-items.js';
import { readTasklane } from './tasklane.js';
import { readTodoist } from './todoist.js';
import { readTrello } from './trello.js';

const READERS: Record<ImportSourceName, SourceReader> = {
  tasklane: readTasklane,
  trello: readTrello,
  todoist: readTodoist,
  csv: readCsv,
};

/** The reader of a source's files. */
export const readerFor = (source: ImportSourceName): SourceReader => READERS[source];
