/**
 * Builds the web app into web/dist, which `tasklane serve` serves at `/`.
 * `npm run build` runs `vite build web`; `npm run dev:web` serves it with hot reload and sends
 * API calls to a tasklane on 127.0.0.1:3000 (or TASKLANE_URL).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { jsBudget } from './build/js-budget.ts';
import { serverCodeGuard } from './build/server-code-guard.ts';

const apiTarget = process.env.TASKLANE_URL ?? 'http://127.0.0.1:3000';
const root = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `@contract` (web/tsconfig.json's `paths`): the API contract in src/contract. The guard below
  // keeps all but its enumerations out of the bundle.
  resolve: { tsconfigPaths: true },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Everything the page needs is in the bundle: no CDN, no web fonts.
    assetsInlineLimit: 0,
  },
  plugins: [
    // What the first screen downloads, and everything (the markdown chunk is loaded on demand).
    // 101: issue 28's first-start set-up, team rename and own email (about 1 KiB) came on top of
    // an app at 99.6 of 100. 105: issue 29 came on top of an app at 100.7 of 101: labels (chips,
    // picker, filter: 0.6 KiB of the first load; Settings → Labels, a 1.2 KiB chunk), the search
    // box and command palette (about 0.9 KiB), saved views and sortable column headers (1.1 KiB).
    // 110: issue 30 came on top of an app at 105.0 of 105: Settings → Notifications (1.1 KiB of
    // the first load) and the unsubscribe page (a 0.7 KiB chunk); the inbox and its bell are next.
    // 113: issue 31 came on top of an app at 109.97 of 110 (29 bytes left): a task's attachments
    // (2.3 KiB, in the chunk that holds the timeline, loaded when a task is opened; the composer's
    // drop and paste with it) make 112.2. The first load grew 2 bytes (35,768 of 35,840).
    // 116: issue 32's import screen came on top of an app at 112.87 of 113 (115,583 bytes): Settings
    // → Import and export (upload, plan, apply with its progress, undo, recent imports) is 2.9 KiB
    // in the export's chunk, loaded when Settings opens, making 115.75 (118,529 bytes). The first
    // load grew 12 bytes (35,435 of 35,840): Settings hands useLiveEvent to the chunk, which, had
    // it imported app/live itself, made the bundler split the first load in two, 0.5 KiB larger.
    // 118: issue 33's OAuth consent page came on top of an app at 115.8 of 116: a lazy chunk of its
    // own (1.3 KiB), loaded only at /oauth/authorize; the first load grew 0.1 KiB (its loader).
    // 120: then issue 33's Settings: API keys' access choices (presets, scopes with a line each,
    // lists), the MCP configurations and Agents' access. To pay for it, API keys left the first
    // load for a chunk of their own (with Agents' access: one chunk, not two sharing a third), so
    // the first load shrank 1.1 KiB (34.6 → 33.5).
    jsBudget({ initialGzipKiB: 35, totalGzipKiB: 120 }),
    serverCodeGuard({ root, allow: ['src/contract/enums.ts'] }),
  ],
  server: {
    proxy: Object.fromEntries(['/v1', '/auth', '/healthz'].map((path) => [path, { target: apiTarget }])),
  },
});
