/**
 * A Vite plugin that holds the app to a JavaScript budget: after bundling it gzips every JS
 * chunk, prints the sizes, and fails the build when the initial load (the entry chunk and
 * everything it imports statically) or the whole app is over budget.
 */
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';

interface Budget {
  /** Gzipped KiB the first page load may download. */
  initialGzipKiB: number;
  /** Gzipped KiB of all JavaScript, lazy chunks included. */
  totalGzipKiB: number;
}

interface ChunkLike {
  type: 'chunk' | 'asset';
  fileName: string;
  isEntry?: boolean;
  imports?: string[];
  code?: string;
}

const kib = (bytes: number) => (bytes / 1024).toFixed(1);

export function jsBudget(budget: Budget): Plugin {
  return {
    name: 'tasklane-js-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle as Record<string, ChunkLike>).filter((item) => item.type === 'chunk');
      const gzipped = new Map(chunks.map((chunk) => [chunk.fileName, gzipSync(chunk.code ?? '', { level: 9 }).length]));

      // The initial load: entry chunks and, transitively, their static imports.
      const initial = new Set<string>();
      const visit = (fileName: string) => {
        if (initial.has(fileName)) return;
        initial.add(fileName);
        for (const imported of chunks.find((chunk) => chunk.fileName === fileName)?.imports ?? []) visit(imported);
      };
      for (const chunk of chunks) if (chunk.isEntry) visit(chunk.fileName);

      const sum = (names: Iterable<string>) => [...names].reduce((total, name) => total + (gzipped.get(name) ?? 0), 0);
      const initialBytes = sum(initial);
      const totalBytes = sum(gzipped.keys());

      const lines = chunks.map(
        (chunk) =>
          `  ${chunk.fileName.padEnd(40)} ${kib(chunk.code?.length ?? 0).padStart(7)} KiB  ${kib(gzipped.get(chunk.fileName)!).padStart(6)} KiB gzip  ${initial.has(chunk.fileName) ? 'initial' : 'lazy'}`,
      );
      this.info(
        [
          'JS budget (gzip -9):',
          ...lines,
          `  initial load ${kib(initialBytes)} KiB of ${budget.initialGzipKiB} KiB; all JS ${kib(totalBytes)} KiB of ${budget.totalGzipKiB} KiB`,
        ].join('\n'),
      );
      if (initialBytes > budget.initialGzipKiB * 1024 || totalBytes > budget.totalGzipKiB * 1024) {
        this.error(
          `Over the JS budget: initial ${kib(initialBytes)} KiB (budget ${budget.initialGzipKiB}), ` +
            `all ${kib(totalBytes)} KiB (budget ${budget.totalGzipKiB}).`,
        );
      }
    },
  };
}
