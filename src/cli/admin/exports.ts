/**
 * `admin export`: the whole team as the export file of docs/export-format.md (scope `team`), read
 * from a read snapshot of the database (storage/snapshot.ts: also while servers write, and on
 * SQLite without taking the write lock), attachments' bytes from the configured file store.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createFileStore } from '../../attachments/storage/index.js';
import { writeExport } from '../../exports/export-writer.js';
import { teamName } from '../../exports/export-source.repository.js';
import { readSnapshot } from '../../storage/snapshot.js';
import { AdminError, text, uuidOption, type CommandGroup } from './command.js';

export const exportCommands: CommandGroup = {
  title: 'Exports (issue 32)',
  commands: {
    export: {
      summary:
        "writes the whole team (its members, statuses, labels, lists, tasks, comments, activity and attachments) as one gzip'd " +
        'JSON Lines file (docs/export-format.md) to FILE, which must not exist, also while servers write → ' +
        '{"file", "bytes", "sha256", "counts": {TYPE: N}}',
      usage: '--org TEAM_ID --to FILE',
      options: { org: { type: 'string' }, to: { type: 'string' } },
      required: ['org', 'to'],
      async runOnDatabase(databaseUrl, o, io) {
        const teamId = uuidOption(o, 'org');
        const file = resolve(text(o, 'to'));
        const files = createFileStore(io.config);
        return readSnapshot(databaseUrl, async (snapshot) => {
          if ((await teamName(snapshot.db, teamId)) === undefined) throw new AdminError(`team ${teamId} not found`);
          // `wx`: never overwrites; a file that exists already fails here, before anything is read.
          const out = createWriteStream(file, { flags: 'wx' });
          const opened = new Promise<void>((resolveOpen, reject) => {
            out.once('open', () => resolveOpen());
            out.once('error', reject);
          });
          try {
            await opened;
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code === 'EEXIST')
              throw new AdminError(`${file} exists already; export to a new file`);
            throw new AdminError(`cannot write ${file}: ${(error as Error).message}`);
          }
          try {
            const subject = { teamId, userId: null, scope: 'team' as const, exportedAt: new Date().toISOString() };
            const written = await writeExport(snapshot.db, files, subject, out);
            return { file, bytes: written.bytes, sha256: written.sha256, counts: written.counts };
          } catch (error) {
            // Half a file is no export: it goes.
            await rm(file, { force: true });
            throw error;
          }
        });
      },
    },
  },
};
