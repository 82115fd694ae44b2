/**
 * A module of the web app (web/src/…) imported into a Node test as the app's build reads it:
 * TypeScript, and `@contract` through web/tsconfig.json's paths (Vite's module runner does
 * both). For the app's pure modules (sentences, times, how the timeline is put together): they
 * get unit tests without a browser. The test names the module's shape itself, since the
 * server's compiler cannot follow the app's `@contract` imports.
 */
import { join } from 'node:path';
import { runnerImport } from 'vite';
import { ROOT } from '../../test/processes.js';

const WEB = join(ROOT, 'web');

/** `path` is relative to web/, e.g. 'src/timeline/activity-text.ts'. */
export async function importWebModule<T>(path: string): Promise<T> {
  const { module } = await runnerImport<T>(join(WEB, path), {
    configFile: false,
    root: WEB,
    resolve: { tsconfigPaths: true },
    logLevel: 'silent',
  });
  return module;
}
