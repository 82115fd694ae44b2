import { ConfigError, loadConfig } from '../config.js';
import { startServer } from '../server.js';
import type { Bootstrap } from '../teams/teams.service.js';

function printBootstrap(url: string, b: Bootstrap): void {
  console.log(
    [
      '',
      `Created the starter workspace "${b.teamName}". These secrets are shown only this once:`,
      `  web sign-in:  ${b.email} / ${b.password}`,
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
  const server = await startServer(config);
  if (server.bootstrap) printBootstrap(server.url, server.bootstrap);
  console.log(`listening on ${server.url}`);

  return new Promise((resolve) => {
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
}
