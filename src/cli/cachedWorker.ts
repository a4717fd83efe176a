/**
 * Entry of a worker thread that runs a bundle with a code cache (codeCache.ts): the CLI starts its
 * engine as `new Worker(dist/cachedWorker.js, { argv: [dist/engine.js, cacheDir], workerData })`.
 * Bundled to dist/cachedWorker.js.
 */
import { runWithCodeCache } from './codeCache';

const [target, cacheDir] = process.argv.slice(2);
if (!target) throw new Error('cachedWorker: no bundle to run');
runWithCodeCache(target, cacheDir || undefined);
