// A node:test reporter that adds, after the spec reporter's output, the files that took longest
// (to see where a tier's time goes) and the one summary line CI reads: `N passed, N failed`.
import { relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

export default async function* summary(source) {
  const started = Date.now();
  const byFile = new Map();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details, skip, todo } = event.data;
    // Top-level entries (tests and suites) add up to their file's time.
    if (nesting === 0 && file) {
      const rel = relative(root, file);
      byFile.set(rel, (byFile.get(rel) ?? 0) + (details?.duration_ms ?? 0));
    }
    // Tests are counted, not the suites around them (as node's own "ℹ tests" line does).
    if (details?.type === 'suite') continue;
    if (event.type === 'test:fail') failed++;
    else if (skip || todo) skipped++;
    else passed++;
  }
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 10);
  if (slowest.length) {
    yield '\nslowest files:\n';
    for (const [file, ms] of slowest) yield `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`;
  }
  const tier = process.env.TEST_TIER ? ` (${process.env.TEST_TIER})` : '';
  yield `\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''} in ${((Date.now() - started) / 1000).toFixed(0)} s${tier}\n`;
}
