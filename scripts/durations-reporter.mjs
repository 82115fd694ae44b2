/**
 * A node:test reporter beside the one that prints: it writes, as one JSON object, how long each
 * test file's top-level tests took (ms). scripts/test.mjs keeps these from run to run and starts
 * the longest suites first, so that no long suite starts last and runs alone at the end.
 */
export default async function* durations(source) {
  const byFile = {};
  for await (const event of source) {
    const { type, data } = event;
    // By the file a top-level test was declared in: a suite declared by a shared helper (the
    // browser suites' describeInBrowser) has no time of its own, and counts as long.
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file?.endsWith('.test.js')) {
      byFile[data.file] = (byFile[data.file] ?? 0) + (data.details?.duration_ms ?? 0);
    }
  }
  yield JSON.stringify(byFile);
}
