/**
 * The soak's PostgreSQL: by default a throwaway cluster of its own (initdb into a temp folder,
 * a free port on 127.0.0.1, trust auth), because the soak restarts it and restarting a shared
 * server would break everyone else's work. With SOAK_DATABASE_URL (a server to create the soak's
 * database on) and SOAK_RESTART_COMMAND (a shell command that restarts that server) it uses an
 * existing server instead; the soak never guesses how to restart someone else's server.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { createPostgresDatabase } from '../../test/harness.js';
import { sleep } from '../support.js';

const run = promisify(execFile);

export interface SoakPostgres {
  /** The soak's database (a fresh one, dropped at the end). */
  url: string;
  /** For the report: what server this is and how it is restarted. */
  description: string;
  /** Restarts the server; resolves once it accepts connections again. */
  restart(): Promise<void>;
  /** Drops the database, and for a throwaway cluster stops it and removes its folder. */
  remove(): Promise<void>;
  /** The same, synchronously and as far as it goes: for Ctrl-C and other sudden ends. */
  removeNow(): void;
}

const READY_TIMEOUT_MS = 60_000;
const DATABASE = 'tasklane_soak';

/** The throwaway cluster, or the server named by SOAK_DATABASE_URL (which then needs SOAK_RESTART_COMMAND). */
export async function soakPostgres(env: NodeJS.ProcessEnv): Promise<SoakPostgres> {
  if (env.SOAK_DATABASE_URL) {
    if (!env.SOAK_RESTART_COMMAND) {
      throw new Error(
        'SOAK_DATABASE_URL needs SOAK_RESTART_COMMAND too (a shell command that restarts that server): ' +
          'the soak restarts PostgreSQL once and never guesses how',
      );
    }
    return existingServer(env.SOAK_DATABASE_URL, env.SOAK_RESTART_COMMAND);
  }
  return throwawayCluster(env.SOAK_PG_BIN);
}

async function existingServer(serverUrl: string, restartCommand: string): Promise<SoakPostgres> {
  const database = await createPostgresDatabase(serverUrl, DATABASE);
  const version = await serverVersion(database.url);
  return {
    url: database.url,
    description: `an existing PostgreSQL ${version} server (SOAK_DATABASE_URL), restarted with SOAK_RESTART_COMMAND`,
    restart: async () => {
      await run('sh', ['-c', restartCommand], { timeout: READY_TIMEOUT_MS });
      await waitUntilReady(database.url);
    },
    remove: () => database.remove(),
    removeNow: () => {}, // dropping needs a connection; an interrupted run leaves tasklane_soak behind
  };
}

/** The newest /usr/lib/postgresql/<version>/bin that has initdb, unless SOAK_PG_BIN names one. */
function binDirectory(given: string | undefined): string {
  if (given) {
    if (!existsSync(join(given, 'initdb'))) throw new Error(`SOAK_PG_BIN=${given} has no initdb`);
    return given;
  }
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      `no PostgreSQL binaries in ${root}/<version>/bin: install the server package, set SOAK_PG_BIN to a folder ` +
        'with initdb and pg_ctl, or point SOAK_DATABASE_URL and SOAK_RESTART_COMMAND at a server',
    );
  }
  return join(root, versions[0]!, 'bin');
}

/** A port nobody listens on right now (there is a small race until PostgreSQL binds it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function throwawayCluster(given: string | undefined): Promise<SoakPostgres> {
  const bin = binDirectory(given);
  // PostgreSQL refuses to run as root: as root, run its programs as the postgres user, who must own the folder.
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(os.tmpdir(), 'tasklane-soak-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
  const pgCtl = async (...args: string[]) => {
    // -l: the server's output goes to the log file, never to a pipe this process would wait on.
    const [file, argv] = command('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '60', ...args]);
    await run(file, argv, { cwd: dir, timeout: READY_TIMEOUT_MS + 10_000 });
  };
  let started = false;
  const removeNow = () => {
    if (started) {
      try {
        const [file, argv] = command('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        execFileSync(file, argv, { cwd: dir, stdio: 'ignore', timeout: 30_000 });
      } catch {
        // already stopped
      }
      started = false;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [initdb, initArgs] = command('initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync', // only the initial files; the server itself runs with fsync on, as in production
    ]);
    await run(initdb, initArgs, { cwd: dir, timeout: 120_000 });
    const port = await freePort();
    started = true;
    await pgCtl('-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, 'start');
    const serverUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitUntilReady(serverUrl);
    const database = await createPostgresDatabase(serverUrl, DATABASE);
    const version = await serverVersion(database.url);
    return {
      url: database.url,
      description:
        `a throwaway PostgreSQL ${version} cluster (initdb in a temp folder, default settings, fsync on), ` +
        'restarted with `pg_ctl restart -m fast`',
      restart: async () => {
        await pgCtl('-m', 'fast', 'restart');
        await waitUntilReady(database.url);
      },
      remove: async () => removeNow(),
      removeNow,
    };
  } catch (error) {
    removeNow();
    throw error;
  }
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('show server_version');
    return rows[0]!.server_version.split(' ')[0]!;
  } finally {
    await client.end();
  }
}

/** Resolves once a connection to `url` succeeds; throws after READY_TIMEOUT_MS. */
async function waitUntilReady(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL at ${url} not ready after ${READY_TIMEOUT_MS} ms: ${error}`);
      await sleep(200);
    }
  }
}
