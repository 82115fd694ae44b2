// Makes a benchmark dataset (bench/generate.ts) and keeps it, for the experiments here:
//   node bench/experiments/dataset.mjs postgres 100000   → a database scratch_ds_100000
//   node bench/experiments/dataset.mjs sqlite 10000      → ./ds-10000.db
// and writes its metadata beside it (ds-<size>.json in the current folder). Prints DB=… DB_META=….
import fs from 'node:fs';
import { resolve } from 'node:path';
import { generateDataset } from '../../dist/bench/generate.js';
import { createPostgresDatabase } from '../../dist/test/harness.js';

const [engine, sizeText] = process.argv.slice(2);
const size = Number(sizeText);
const url =
  engine === 'postgres'
    ? (await createPostgresDatabase('postgres://postgres@127.0.0.1:5432/postgres', `scratch_ds_${size}`)).url
    : `sqlite:${resolve(`ds-${size}.db`)}`;
const meta = resolve(`ds-${engine}-${size}.json`);
fs.writeFileSync(meta, JSON.stringify(await generateDataset(url, size)));
console.log(`DB=${url} DB_META=${meta}`);
process.exit(0);
