/**
 * Entry of `agent-memory` (bundled to dist/cli.js, package.json's bin): runs the CLI itself
 * (src/cli/main.ts, bundled to dist/cliMain.js) with the V8 code cache of the user's cache folder
 * (codeCache.ts; AGENT_MEMORY_CODE_CACHE=0 turns it off).
 *
 * Why: an agent spawns `node dist/cli.js mcp`, and the engine's thread, which answers its first
 * recall, starts only once this thread has compiled the CLI's bundle (1.2 MB: ~50 ms). From a
 * cache it is read instead: the first answer came 0.89–0.93× as late (bench/RESULTS-recall.md "Stop 38").
 * This file stays small: it is compiled without a cache on every start.
 */
import * as path from 'node:path';
import { runWithCodeCache, userCodeCacheDir } from './codeCache';

const cli = runWithCodeCache(path.join(__dirname, 'cliMain.js'), userCodeCacheDir());
(cli.exports as { main(): void }).main();
