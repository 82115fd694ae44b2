/**
 * What a CLI command reads and writes. bin/tasklane.js gives it this process's own streams and
 * environment; the test suites run admin commands in-process with their own (runInProcess in
 * test/processes.ts), so no command reaches for process.stdout, process.stdin or process.env itself.
 */
import type { ProgressStream } from './progress.js';

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  /** Where a password is read from (password-input.ts): a terminal, a pipe, or nothing at all. */
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  /** The environment the command is configured from (DATABASE_URL, PUBLIC_URL, …). */
  env: NodeJS.ProcessEnv;
}

export const processIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** Writes `text` as one line, as console.log does. */
export function printLine(stream: ProgressStream, text: string): void {
  stream.write(`${text}\n`);
}
