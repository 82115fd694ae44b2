/**
 * `tasklane migrate-data --from URL --to URL`: moves a whole workspace database to another store
 * (typically an embedded SQLite file to PostgreSQL). The target must be empty; it is migrated
 * first, filled in one transaction, and every table's row count is checked afterwards.
 */
import { parseArgs } from 'node:util';
import { copyDatabase } from '../storage/copy.js';
import { openStore, type Store } from '../storage/database.js';
import { migrateToLatest } from '../storage/migrate.js';

const USAGE = 'usage: tasklane migrate-data --from sqlite:./data/tasklane.db --to postgres://user@host:5432/db';

export async function runMigrateData(argv: string[]): Promise<number> {
  let from: string | undefined;
  let to: string | undefined;
  try {
    ({ from, to } = parseArgs({
      args: argv,
      options: { from: { type: 'string' }, to: { type: 'string' } },
      strict: true,
    }).values);
  } catch (error) {
    console.error(`${(error as Error).message.split('\n')[0]} (${USAGE})`);
    return 2;
  }
  if (!from || !to) {
    console.error(`missing --from or --to (${USAGE})`);
    return 2;
  }
  if (from === to) {
    console.error('--from and --to name the same database');
    return 2;
  }

  const stores: Store[] = [];
  try {
    const source = openStore(from);
    stores.push(source);
    const target = openStore(to);
    stores.push(target);
    await migrateToLatest(source);
    await migrateToLatest(target);
    const copied = await copyDatabase(source, target);
    console.log(JSON.stringify({ copied, verified: true }));
    return 0;
  } catch (error) {
    console.error(`migrate-data failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    for (const store of stores) await store.close();
  }
}
