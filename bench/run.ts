/**
 * `npm run bench [-- <name>…] [--quick] [--write]`: runs the benchmarks (all, or those named),
 * prints each one's Markdown section, and with --write records it in BENCHMARKS.md between the
 * section's markers. Exits 1 when a benchmark saw a problem (missed events, dropped streams…).
 *
 * A new benchmark is a module exporting a `Benchmark`, added to BENCHMARKS below.
 */
import { eventsBenchmark } from './events.js';
import { httpBenchmark } from './http.js';
import { signInBenchmark } from './sign-in.js';
import { runMain, writeSection, type Benchmark } from './support.js';
import { webhooksBenchmark } from './webhooks.js';

const BENCHMARKS: Benchmark[] = [eventsBenchmark, httpBenchmark, signInBenchmark, webhooksBenchmark];

/** Whatever happens, nothing outlives this run. */
const WATCHDOG_MS = 20 * 60_000;

function usage(): string {
  return [
    'usage: npm run bench [-- <name>…] [--quick] [--write]',
    '  --quick  smaller sizes only (a quick look, not a record)',
    '  --write  record the figures in BENCHMARKS.md',
    'benchmarks:',
    ...BENCHMARKS.map((b) => `  ${b.name.padEnd(8)} ${b.summary}`),
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('-')));
  const names = argv.filter((a) => !a.startsWith('-'));
  const unknownFlags = [...flags].filter((f) => !['--quick', '--write', '--help', '-h'].includes(f));
  const unknownNames = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (flags.has('--help') || flags.has('-h')) {
    console.log(usage());
    return 0;
  }
  if (unknownFlags.length > 0 || unknownNames.length > 0) {
    console.error(`unknown: ${[...unknownFlags, ...unknownNames].join(' ')}\n${usage()}`);
    return 2;
  }
  const selected = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  const options = {
    quick: flags.has('--quick'),
    command: ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' '),
  };

  let failed = false;
  for (const benchmark of selected) {
    const result = await benchmark.run(options);
    console.log(`${result.markdown.trim()}\n`);
    if (result.problems.length > 0) failed = true;
    if (flags.has('--write')) {
      writeSection(benchmark.name, result.markdown);
      console.error(`${benchmark.name}: recorded in BENCHMARKS.md`);
    }
  }
  return failed ? 1 : 0;
}

runMain('bench', () => main(process.argv.slice(2)), WATCHDOG_MS);
