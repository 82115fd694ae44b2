/** `tasklane serve | admin …`: the operator's entry point (bin/tasklane.js calls this). */
import { runAdmin } from './admin.js';
import { runMigrateData } from './migrate-data.js';
import { runServe } from './serve.js';

const USAGE = `usage:
  tasklane serve                 serve the API (see README for the environment)
  tasklane admin <command> …     administer the database named by DATABASE_URL
                                 (run "tasklane admin help" for the commands)
  tasklane migrate-data --from URL --to URL
                                 copy a whole database into an empty one (e.g. SQLite → PostgreSQL)`;

/** Runs one command; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServe();
    case 'admin':
      return runAdmin(rest);
    case 'migrate-data':
      return runMigrateData(rest);
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return 0;
    default:
      console.error(`tasklane: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}
