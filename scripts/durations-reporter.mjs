/**
 * A node:test reporter beside the one that prints: it writes, as one JSON object, how long each
 * test file's top-level tests took (ms, `durations`) and which tests failed (`failures`).
 * scripts/test.mjs keeps the durations from run to run and starts the longest suites first, so
 * that no long suite starts last and runs alone at the end; it lists the failures again at the
 * end of the run, where a CI log that keeps only its tail still shows them.
 */
export default async function* durations(source) {
  const byFile = {};
  const failures = [];
  for await (const event of source) {
    const { type, data } = event;
    // By the file a top-level test was declared in: a suite declared by a shared helper (the
    // browser suites' describeInBrowser) has no time of its own, and counts as long.
    if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && data.file?.endsWith('.test.js')) {
      byFile[data.file] = (byFile[data.file] ?? 0) + (data.details?.duration_ms ?? 0);
    }
    // A test's own failure, not a suite's "n subtests failed".
    if (type === 'test:fail' && data.details?.type !== 'suite') {
      const error = data.details?.error;
      const message = String(error?.cause?.message ?? error?.message ?? error ?? '');
      failures.push({ file: data.file ?? '', name: data.name, error: message.split('\n').slice(0, 6).join('\n') });
    }
  }
  yield JSON.stringify({ durations: byFile, failures });
}
