/**
 * Running the `tasklane` command: as a real child process, the way an operator does (the built
 * bin/tasklane.js, or, when the suite runs from source, the same entry through tsx), or, where a
 * test is not about the process itself, in this process (main() with streams of its own), which
 * costs milliseconds rather than a Node.js start. Also tidies up whatever is left running.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { main } from '../src/cli/main.js';

/**
 * Whether the suite runs from its TypeScript sources through tsx (`npm run test:one`) rather than
 * compiled into dist/ (`npm test`): every path below the checkout and every child process follow it.
 */
export const FROM_SOURCE = import.meta.url.endsWith('.ts');
/** The checkout root: this file runs as dist/test/processes.js, or as test/processes.ts from source. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), FROM_SOURCE ? '..' : '../..');
export const BIN = join(ROOT, 'bin', 'tasklane.js');

/** The Node.js flags the `tasklane` command runs with: those of its `#!/usr/bin/env -S node …` line. */
export function commandNodeFlags(bin = BIN): string[] {
  const words = readFileSync(bin, 'utf8').split('\n', 1)[0]!.split(/\s+/);
  return words.slice(words.indexOf('node') + 1);
}

/**
 * The arguments of `node` that run `tasklane` from the checkout at `root`, with its Node.js flags:
 * its bin/tasklane.js, which runs the compiled CLI, or from source what that file does, through tsx
 * (resolved here, so that a child in another folder finds it too).
 */
export function tasklaneCommand(root = ROOT): string[] {
  const bin = join(root, 'bin', 'tasklane.js');
  if (!FROM_SOURCE || root !== ROOT) return [...commandNodeFlags(bin), bin];
  const entry = pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href;
  return [
    ...commandNodeFlags(bin),
    '--import',
    import.meta.resolve('tsx'),
    '--eval',
    `import(${JSON.stringify(entry)}).then((cli) => cli.runAsProcess(process.argv.slice(1)));`,
  ];
}
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const TIMEOUT = 60_000;

export function cliEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', ...extra };
  delete env.NODE_TEST_CONTEXT; // the child is not a test
  delete env.NODE_OPTIONS;
  return env;
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Every child started here, so cleanup can kill whatever is left. */
const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
}

export function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export interface RunOptions {
  /** Written to the command's stdin, which is otherwise empty. */
  input?: string;
  /** The folder it runs in (the checkout unless given); only a real process has a folder of its own. */
  cwd?: string;
  /** Runs it as a real child process: for what only a process shows (exit, signals, its stdin, its folder). */
  process?: boolean;
}

/** Runs `tasklane <args>` to completion: in this process, unless `options` ask for a real one. */
export function runCommand(args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<Run> {
  return options.process || options.cwd !== undefined ? runCli(args, env, options) : runInProcess(args, env, options);
}

/**
 * The in-process commands run one after another: on SQLite, two connections in one thread cannot
 * wait for each other (one's busy wait blocks the thread the other needs to finish). A test of
 * commands racing runs them as processes.
 */
let lastInProcess: Promise<unknown> = Promise.resolve();

/**
 * Runs `tasklane <args>` in this process: main() with `env` for its environment, `input` on its
 * stdin and its output captured. The result is what the child's would be, without a signal.
 */
export function runInProcess(args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<Run> {
  const run = lastInProcess.then(() => runHere(args, env, options));
  lastInProcess = run.catch(() => {});
  return run;
}

async function runHere(args: string[], env: NodeJS.ProcessEnv, options: RunOptions): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)], { objectMode: false }),
    env,
  });
  return { code, signal: null, stdout, stderr };
}

/**
 * Runs `tasklane <args>` as a child process to completion (killed after TIMEOUT), in `cwd` (the
 * checkout unless given), with `input` on its stdin (else no stdin at all).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, options: RunOptions = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const stdin = options.input === undefined ? 'ignore' : 'pipe';
    const child = track(
      spawn(process.execPath, [...tasklaneCommand(), ...args], {
        cwd: options.cwd ?? ROOT,
        env,
        stdio: [stdin, 'pipe', 'pipe'],
      }),
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`tasklane ${args.join(' ')} did not finish in ${TIMEOUT} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    }, TIMEOUT);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

const describeRun = (args: string[], run: Run) =>
  `tasklane ${args.join(' ')} → exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`;

/** Runs `tasklane admin <args>` (in this process), asserts exit 0 and exactly one JSON object on stdout, returns it. */
export async function admin(databaseUrl: string, ...args: string[]): Promise<any> {
  const run = await runInProcess(['admin', ...args], cliEnv(databaseUrl));
  assert.equal(run.code, 0, describeRun(args, run));
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `expected one line of JSON on stdout: ${describeRun(args, run)}`);
  const value = JSON.parse(lines[0]!);
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `not a JSON object: ${lines[0]}`);
  return value;
}

/** Runs `tasklane admin <args>` (in this process), asserts a non-zero exit, nothing on stdout and one line on stderr. */
export async function adminFails(databaseUrl: string, ...args: string[]): Promise<string> {
  const run = await runInProcess(['admin', ...args], cliEnv(databaseUrl));
  assert.notEqual(run.code, 0, describeRun(args, run));
  assert.equal(run.stdout.trim(), '', `stdout must stay empty on failure: ${describeRun(args, run)}`);
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  assert.equal(lines.length, 1, `expected a one-line reason on stderr: ${describeRun(args, run)}`);
  return lines[0]!;
}

export interface Serving {
  url: string;
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Sends SIGTERM and resolves to the exit code. */
  stop(): Promise<number | null>;
}

export const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:(\d+))$/m;

/**
 * Starts `tasklane serve` and resolves once it prints its `listening on` line. `root` names
 * another checkout to run instead of this one (a benchmark's baseline release).
 */
export function serve(databaseUrl: string, extra: Record<string, string> = {}, root = ROOT): Promise<Serving> {
  return new Promise((resolvePromise, reject) => {
    const child = track(
      spawn(process.execPath, [...tasklaneCommand(root), 'serve'], {
        cwd: root,
        env: cliEnv(databaseUrl, extra),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve printed no "listening on" line in ${TIMEOUT} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, TIMEOUT);
    child.on('error', reject);
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = LISTENING.exec(stdout);
      if (match && !started) {
        started = true;
        clearTimeout(timer);
        resolvePromise({
          url: match[1]!,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            const stopTimer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT);
            try {
              return await exited;
            } finally {
              clearTimeout(stopTimer);
            }
          },
        });
      }
    });
    void exited.then((code) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code} before listening\nstdout: ${stdout}\nstderr: ${stderr}`));
      }
    });
  });
}

/** The key printed on first start, taken from the ready curl line. */
export function printedKey(stdout: string): { key: string; curlLine: string } {
  const curlLine = stdout.split('\n').find((line) => /\bcurl\b/.test(line));
  assert.ok(curlLine, `no curl line in:\n${stdout}`);
  const match = /x-api-key:\s*([^\s'"]+)/i.exec(curlLine);
  assert.ok(match, `the curl line sends no x-api-key: ${curlLine}`);
  return { key: match[1]!, curlLine };
}
