/** `tasklane serve | admin …`: the operator's entry point (bin/tasklane.js calls runAsProcess). */
import { printLine, processIo, type CliIo } from './io.js';

// Each command loads only its own modules: `admin` and `migrate-data` never load the HTTP
// server, which would double their start-up time (an operator's script may run dozens).

const USAGE = `usage:
  tasklane serve                 serve the API (docs/configuration.md: the environment)
  tasklane admin <command> …     administer the database named by DATABASE_URL
                                 (run "tasklane admin help" for the commands)
  tasklane migrate-data --from URL --to URL [--files-from STORE --files-to STORE]
                                 copy a whole database into an empty one (e.g. SQLite → PostgreSQL),
                                 and with --files-* the attachments' files (STORE: a folder, or an
                                 https:// S3 URL as ATTACHMENTS_S3_URL); without --to, only the files`;

/**
 * Runs one command with `io` (this process's streams and environment unless given); resolves to
 * the exit code. `serve` always runs as the process itself: it answers the process's signals.
 */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return (await import('./serve.js')).runServe();
    case 'admin':
      return (await import('./admin.js')).runAdmin(rest, io);
    case 'migrate-data':
      return (await import('./migrate-data.js')).runMigrateData(rest, io);
    case undefined:
    case 'help':
    case '--help':
      printLine(io.stdout, USAGE);
      return 0;
    default:
      printLine(io.stderr, `tasklane: unknown command "${command}"\n${USAGE}`);
      return 2;
  }
}

/** Runs one command as this whole process (bin/tasklane.js): its exit code becomes the process's. */
export function runAsProcess(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : String(error));
      process.exitCode = 1;
    },
  );
}
