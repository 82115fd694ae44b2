import { sql } from 'kysely';
import { openStore } from './src/storage/database.js';
import { fieldMatches } from './src/storage/full-text.js';
import { canAccess } from './src/tasks/access.js';
import { readFileSync } from 'node:fs';
const d = JSON.parse(readFileSync('/tmp/tasklane-search-bench/100000.json', 'utf8'));
const store = openStore(d.databaseUrl);
for (const field of ['title', 'description', 'comment'] as const) {
  const m = fieldMatches(store.db, field, { words: ['invoice'], prefix: false });
  const q = m.query.where('t.team_id', '=', d.teamA.teamId).where((eb: any) => canAccess(eb, d.userId))
    .select([sql.ref(m.order).as('id'), 't.id as task_id', 't.number', 't.title']).select(m.snippet.as('snippet'))
    .orderBy(sql.ref(m.order), 'desc').limit(21);
  const c = q.compile();
  const plan = await sql.raw(`explain query plan ${c.sql}`).execute(store.db).catch(e => e);
  // parameters
  const db = (store as any);
  const rows = await (sql as any)`select 1`.execute(store.db);
  console.log(field, c.sql.slice(0, 300));
  const t = performance.now(); for (let i = 0; i < 10; i++) await q.execute(); console.log('ms', (performance.now() - t) / 10);
}
await store.close();
