/**
 * A module of the web app (web/src/…) imported into Node as the app's build reads it: TypeScript,
 * extensionless imports, and `@contract` (Vite's module runner does all three). It runs the web
 * app's unit tests (e2e/web-units.test.ts), so the paths are web/tsconfig.test.json's: Vite
 * follows a tsconfig's paths only in the files it includes, and web/tsconfig.json leaves the
 * tests out.
 */
import { join } from 'node:path';
import { runnerImport } from 'vite';
import { ROOT } from '../../test/processes.js';

const WEB = join(ROOT, 'web');

/** `path` is relative to web/, e.g. 'src/timeline/activity-text.test.ts'. */
export async function importWebModule<T>(path: string): Promise<T> {
  const { module } = await runnerImport<T>(join(WEB, path), {
    configFile: false,
    root: WEB,
    tsconfig: 'tsconfig.test.json',
    resolve: { tsconfigPaths: true },
    logLevel: 'silent',
  });
  return module;
}
