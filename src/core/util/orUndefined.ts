/**
 * `fn()`, or undefined when it throws: for best-effort steps whose failure only means "not
 * available" (a cache file, an optional runtime feature), where the caller falls back anyway.
 * Kept apart from errors.ts so that small bundles (dist/cachedWorker.js) need nothing else.
 */
export function orUndefined<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
