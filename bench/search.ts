/**
 * GET /v1/search's cost at 10k, 100k and 1M tasks per team (issue 29): the service call, in
 * process (no HTTP, no authentication), timed over the generated teams of bench/generate.ts, which
 * hold comments too. Each query's answer is bounded whatever the size, so "flat" means something:
 * a word with the same number of hits at every size, first pages (top 20) of common words, and
 * a word found nowhere; then prefixes (words as typed), whose cost grows with the matches.
 *
 *   nice node --import tsx bench/search.ts
 *
 * Environment: SEARCH_SIZES (tasks per team, default 10000,100000,1000000), SEARCH_ENGINES
 * (sqlite,postgres; default sqlite), SEARCH_DIR (where datasets' metadata, and SQLite's files, are kept
 * for reuse; a PostgreSQL dataset stays in its database; default /tmp/tasklane-search-bench), BENCH_PG_URL (as bench/http.ts),
 * SEARCH_SECONDS (per query, default 3).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Caller } from '../src/caller.js';
import { search } from '../src/search/search.service.js';
import { openStore } from '../src/storage/database.js';
import { migrateToLatest } from '../src/storage/migrate.js';
import { createPostgresDatabase } from '../test/harness.js';
import { generateDataset, RARE_TITLES, RARE_WORD, SEARCH_WORD, type Dataset } from './generate.js';

const sizes = (process.env.SEARCH_SIZES ?? '10000,100000,1000000').split(',').map(Number);
const engines = (process.env.SEARCH_ENGINES ?? 'sqlite').split(',');
const dir = process.env.SEARCH_DIR ?? '/tmp/tasklane-search-bench';
const seconds = Number(process.env.SEARCH_SECONDS ?? 3);
const pgServer = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The queries, each with who asks: the owner (member of every list) or member 1 (of 20 lists of 200). */
const QUERIES: { name: string; q: string; limit: number; asMember?: boolean }[] = [
  { name: `rare word (${3 * RARE_TITLES} hits at every size)`, q: `${RARE_WORD} `, limit: 50 },
  { name: 'common word, top 20', q: `${SEARCH_WORD} `, limit: 20 },
  { name: 'common word, top 20, as a member of 20 lists', q: `${SEARCH_WORD} `, limit: 20, asMember: true },
  { name: 'two words, top 20', q: `review ${SEARCH_WORD} `, limit: 20 },
  { name: 'a word found nowhere', q: 'quixotic ', limit: 20 },
  // As typed (no space after the last word): a prefix, which reads every match of its words.
  { name: 'rare word as a prefix', q: RARE_WORD, limit: 50 },
  { name: 'common word as a prefix, top 20', q: SEARCH_WORD, limit: 20 },
  { name: 'common prefix "inv", top 20', q: 'inv', limit: 20 },
];

async function dataset(engine: string, size: number): Promise<Dataset> {
  mkdirSync(dir, { recursive: true });
  const meta = join(dir, `${engine}-${size}.json`);
  if (existsSync(meta)) return JSON.parse(readFileSync(meta, 'utf8')) as Dataset;
  const url =
    engine === 'postgres'
      ? (await createPostgresDatabase(pgServer, `search_bench_${size}_${Date.now()}`)).url
      : `sqlite:${join(dir, `${size}.db`)}`;
  const made = await generateDataset(url, size, (done) => {
    if (done % 200_000 === 0) console.error(`search bench: ${engine} ${size}: ${done} tasks`);
  });
  writeFileSync(meta, JSON.stringify(made));
  return made;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * Each query runs at every size in turn, ROUNDS times over, so a shared machine's load falls on
 * every size alike; wall time per search, and this process's CPU time per search (user + system),
 * which a busy machine disturbs less.
 */
const ROUNDS = 10;

async function main(): Promise<void> {
  console.log(`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, load average ${loadAverage()} at start\n`);
  console.log('| engine | tasks per team | query | hits | median ms | p95 ms | CPU ms / search | runs |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const engine of engines) {
    const teams = [];
    for (const size of sizes) {
      const d = await dataset(engine, size);
      const store = openStore(d.databaseUrl, { statementTimeoutMs: 600_000 });
      await migrateToLatest(store);
      if (engine === 'postgres') await sql`analyze`.execute(store.db);
      teams.push({ size, d, store });
    }
    for (const query of QUERIES) {
      const results = teams.map(({ size, d, store }) => {
        const userId = query.asMember ? d.teamA.memberIds[1]! : d.userId;
        const caller: Caller = {
          userId,
          teamId: d.teamA.teamId,
          role: 'owner',
          credential: { kind: 'key', id: 'bench' },
        };
        const ask = () => search(store, caller, { q: query.q, limit: String(query.limit) });
        return { size, ask, hits: 0, times: [] as number[], cpuMs: 0 };
      });
      for (const r of results) for (let i = 0; i < 5; i++) r.hits = (await r.ask()).items.length;
      for (let round = 0; round < ROUNDS; round++) {
        for (const r of results) {
          const end = performance.now() + (seconds * 1000) / ROUNDS;
          const cpu = process.cpuUsage();
          do {
            const start = performance.now();
            await r.ask();
            r.times.push(performance.now() - start);
          } while (performance.now() < end);
          const used = process.cpuUsage(cpu);
          r.cpuMs += (used.user + used.system) / 1000;
        }
      }
      for (const r of results) {
        const sorted = [...r.times].sort((a, b) => a - b);
        console.log(
          `| ${engine} | ${r.size.toLocaleString('en-US')} | ${query.name} | ${r.hits} | ${percentile(sorted, 0.5).toFixed(2)} | ` +
            `${percentile(sorted, 0.95).toFixed(2)} | ${(r.cpuMs / sorted.length).toFixed(2)} | ${sorted.length} |`,
        );
      }
    }
    for (const { store } of teams) await store.close();
  }
  console.log(`\nLoad average ${loadAverage()} at the end.`);
}

await main();
