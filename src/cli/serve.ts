import { ConfigError, loadConfig, type Config } from '../config.js';
import { startServer } from '../server.js';
import type { Bootstrap } from '../membership/accounts.service.js';
import {
  KeyFileError,
  removeCreatedKeyFile,
  resolveWebhookKey,
  type ResolvedKey,
} from '../webhooks/secret-key-file.js';

function printBootstrap(url: string, b: Bootstrap): void {
  console.log(
    [
      '',
      `Created the starter team "${b.teamName}". These secrets are shown only this once:`,
      `  web sign-in:  ${b.email} / ${b.password}`,
      `                (the first sign-in asks for the team's name, your name, email and a new password)`,
      `  API key:      ${b.key}`,
      `  try it:       curl -H 'x-api-key: ${b.key}' ${url}/v1/me`,
      '',
    ].join('\n'),
  );
}

/** `tasklane serve`: runs until SIGTERM or SIGINT, then shuts down gracefully and exits 0. */
export async function runServe(): Promise<number> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  let webhookKey: ResolvedKey;
  try {
    webhookKey = resolveWebhookKey(config);
  } catch (error) {
    if (!(error instanceof KeyFileError)) throw error;
    console.error(error.message);
    return 1;
  }
  let server;
  try {
    server = await startServer(webhookKey.config);
  } catch (error) {
    // A start that fails leaves no key file behind, as it leaves no starter team: the next start,
    // which makes it again, is the one that says so.
    removeCreatedKeyFile(webhookKey);
    const reason = cannotListen(error, config);
    if (!reason) throw error;
    console.error(reason);
    return 1;
  }
  // Listen for the signals before saying "listening": a supervisor may stop us the moment it reads
  // that line, and a signal with no listener yet would kill the process instead of closing it.
  const stopped = new Promise<number>((resolve) => {
    const stop = (signal: string) => {
      server.app.log.info(`${signal}: shutting down`);
      server.close().then(
        () => resolve(0),
        (error) => {
          console.error(`shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
          resolve(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  if (server.bootstrap) printBootstrap(server.url, server.bootstrap);
  if (webhookKey.startupLine) console.log(webhookKey.startupLine);
  console.log(`listening on ${server.url}`);

  const code = await stopped;
  // The shutdown is bounded and closes everything it opened, so the process ends by itself now.
  // Should anything still hold it (a bug), end it anyway rather than hang, and say so.
  setTimeout(() => {
    console.error('shutdown: something still held the process open after closing; exiting');
    process.exit(code);
  }, EXIT_GRACE_MS).unref();
  return code;
}

/**
 * Why the server could not listen, as the setting to change (no stack trace: the operator's
 * mistake, not ours), or undefined for any other failure.
 */
function cannotListen(error: unknown, config: Config): string | undefined {
  const { port, host } = config;
  switch ((error as { code?: unknown } | null)?.code) {
    case 'EADDRINUSE':
      return `Port ${port} on ${host} is already in use. Set PORT to another port, e.g. PORT=${port < 65535 ? port + 1 : 3000} npm start.`;
    case 'EACCES':
      return `Port ${port} on ${host} needs privileges this process does not have. Set PORT to 1024 or above, e.g. PORT=3000 npm start.`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine. Set HOST to one that is, e.g. HOST=127.0.0.1 (this machine only) or HOST=0.0.0.0 (every interface).`;
    default:
      return undefined;
  }
}

/** How long after a completed shutdown the process may take to end by itself. */
const EXIT_GRACE_MS = 2_000;
