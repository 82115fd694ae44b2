/**
 * A Vite plugin that keeps server code out of the bundle. The web app takes its types from the
 * API contract in src/contract, and type-only imports vanish when TypeScript is stripped; the
 * one file from outside web/ that may be bundled is src/contract/enums.ts (plain constants, no
 * imports). Any other module from outside web/, or from one of the server's runtime packages
 * (package.json "dependencies": typebox, fastify…), fails the build and is named: a value
 * import of the contract's schemas would otherwise quietly ship typebox to every browser.
 *
 * The unit tests beside the app's modules (*.test.ts, and test-support.ts) never go in either.
 */
import { readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Plugin } from 'vite';

interface Options {
  /** The repository root, where package.json is. */
  root: string;
  /** Files outside web/ that may be bundled, relative to the root (forward slashes). */
  allow: string[];
}

interface ChunkLike {
  type: 'chunk' | 'asset';
  moduleIds?: string[];
}

/** What `id` brings into the bundle that may not be there (a file, or a whole package), or null. */
function refusal(id: string, { root, allow }: Options, serverPackages: ReadonlySet<string>): string | null {
  if (id.startsWith('\0')) return null; // Vite's own virtual helpers (preload, polyfills)
  const path = relative(root, id.split('?')[0]!).split(sep).join('/');
  const parts = path.split('/');
  const lastNodeModules = parts.lastIndexOf('node_modules');
  if (lastNodeModules >= 0) {
    const [scope, name] = parts.slice(lastNodeModules + 1);
    const pkg = scope?.startsWith('@') ? `${scope}/${name}` : scope;
    return pkg && serverPackages.has(pkg) ? `the server's package ${pkg}` : null;
  }
  if (/\.test\.tsx?$|\/test-support\.ts$/.test(path)) return `${path} (a unit test's)`;
  if (path.startsWith('web/') || allow.includes(path)) return null;
  return path;
}

export function serverCodeGuard(options: Options): Plugin {
  const manifest = JSON.parse(readFileSync(join(options.root, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const serverPackages = new Set(Object.keys(manifest.dependencies ?? {}));
  return {
    name: 'tasklane-server-code-guard',
    apply: 'build',
    generateBundle(_options, bundle) {
      const refused = Object.values(bundle as Record<string, ChunkLike>)
        .flatMap((item) => (item.type === 'chunk' ? (item.moduleIds ?? []) : []))
        .map((id) => refusal(id, options, serverPackages))
        .filter((reason): reason is string => reason !== null);
      if (refused.length > 0) {
        this.error(
          `Server or test code in the web bundle (import the contract with \`import type\`, ` +
            `enumerations from @contract/enums only, and no unit test):\n  ${[...new Set(refused)].join('\n  ')}`,
        );
      }
    },
  };
}
