/** `admin backup`: a consistent copy of the SQLite database while servers write to it (storage/backup.ts). */
import { existsSync } from 'node:fs';
import { backupSqlite } from '../../storage/backup.js';
import { keyFilePath } from '../../webhooks/secret-key-file.js';
import { text, type CommandGroup } from './command.js';

export const backupCommands: CommandGroup = {
  title: 'Backups (SQLite; on PostgreSQL use pg_dump)',
  commands: {
    backup: {
      summary:
        'copies the SQLite database, as of one moment, to FILE, which must not exist, also while servers write to it, ' +
        'and checks the copy → {"file", "bytes", "integrity", "rows": {TABLE: N}, "seconds"}. The webhook key file ' +
        'beside the database is not in the copy: back it up separately',
      usage: '--to FILE',
      options: { to: { type: 'string' } },
      required: ['to'],
      async runOnDatabase(databaseUrl, o, io) {
        const summary = await backupSqlite(databaseUrl, text(o, 'to'));
        const keyFile = keyFilePath(databaseUrl);
        if (keyFile && existsSync(keyFile)) {
          io.note(
            `the webhook key file ${keyFile} is not in the backup: copy it too (it never changes), ` +
              'or webhook secrets cannot be used after a restore',
          );
        }
        return summary;
      },
    },
  },
};
