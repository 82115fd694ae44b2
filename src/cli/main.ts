/** `tasklane serve | admin …`: the operator's entry point (bin/tasklane.js calls runAsProcess). */
// Each command loads only its own modules: `admin` and `migrate-data` never load the HTTP
// server, which would double their start-up time (an operator's script may run dozens).

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
      return (await import('./serve.js')).runServe();
    case 'admin':
      return (await import('./admin.js')).runAdmin(rest);
    case 'migrate-data':
      return (await import('./migrate-data.js')).runMigrateData(rest);
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
