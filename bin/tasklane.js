#!/usr/bin/env -S node --max-semi-space-size=4
// The `tasklane` command: runs the compiled CLI (built by `npm install`).
// The Node.js flags above are tasklane's defaults (`npm start` passes the same ones): a 4 MiB
// young generation keeps a busy server's peak RSS low at no measured CPU cost (BENCHMARKS.md).
import { runAsProcess } from '../dist/src/cli/main.js';

runAsProcess(process.argv.slice(2));
