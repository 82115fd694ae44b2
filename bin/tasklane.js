#!/usr/bin/env -S node --max-semi-space-size=4
// The `tasklane` command: runs the compiled CLI (built by `npm install`).
// The Node.js flags above are tasklane's defaults (`npm start` passes the same ones): a 4 MiB
// young generation keeps a busy server's peak RSS low at no measured CPU cost (BENCHMARKS.md).
import { main } from '../dist/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    if (typeof code === 'number') process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
