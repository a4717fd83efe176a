/**
 * The CLI's and MCP server's way to the engine: the same EngineClient as a VS Code window,
 * through SharedTransport, so it is a client of the store's owner (a window, another agent)
 * or, when nobody owns the store, its owner for as long as it runs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineClient } from '../engine/client/engineClient';
import { ENGINE_WORKER_LIMITS } from '../core/util/workerHeap';
import { userCodeCacheDir } from './codeCache';
import type { EngineInit } from '../engine/protocol';
import { resolveStoreHome } from '../engine/storeLocation';
import { RESTARTING_OWNER_WAIT_MS, SharedTransport } from '../engine/client/sharedTransport';
import type { EngineTransport } from '../engine/client/transport';

export interface ConnectOptions {
  workspace: string;
  home?: string;
  /** Log lines (stderr with --verbose; never stdout, which carries the --json answer). */
  log?: (line: string) => void;
  /** Engine settings (dotted agent.yaml keys) when this process becomes the owner. */
  settings?: Record<string, unknown>;
  client: string;
  /** false: a short command that, as the owner, runs no schedule that is due (EngineInit.runSchedules). */
  runSchedules?: boolean;
  /** false: as the owner, start no background work at all (EngineInit.backgroundWork): a hook. */
  backgroundWork?: boolean;
  /** Called when this process starts the engine's thread (it owns the store), before the thread runs. */
  onWorkerSpawned?: () => void;
}

/**
 * dist/cli.js starts dist/engine.js, through dist/cachedWorker.js: with the V8 code cache of the
 * user's cache folder (codeCache.ts; AGENT_MEMORY_CODE_CACHE=0 turns it off). Run from the
 * sources (tsx): src/engine/worker/worker.ts.
 */
function spawnEngineWorker(init: EngineInit): EngineTransport {
  const bundled = path.join(__dirname, 'engine.js');
  const cached = path.join(__dirname, 'cachedWorker.js');
  const cacheDir = userCodeCacheDir();
  const options = { workerData: init, resourceLimits: ENGINE_WORKER_LIMITS };
  if (fs.existsSync(bundled) && cacheDir && fs.existsSync(cached)) return new Worker(cached, { ...options, argv: [bundled, cacheDir] });
  if (fs.existsSync(bundled)) return new Worker(bundled, options);
  const source = path.resolve(__dirname, '../engine/worker/worker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(source)});`, { ...options, eval: true });
}

export function connectEngine(opts: ConnectOptions): EngineClient {
  const init: EngineInit = {
    home: resolveStoreHome(opts.home),
    workspaceRoot: path.resolve(opts.workspace),
    purpose: `${opts.client} (pid ${process.pid})`,
    // One agent's process: the built-in model on the engine's thread (EngineInit.modelThread).
    modelThread: 'engine',
    ...(opts.runSchedules === false ? { runSchedules: false } : {}),
    ...(opts.backgroundWork === false ? { backgroundWork: false } : {}),
    ...(opts.settings ? { settings: opts.settings } : {}),
  };
  const client = new EngineClient({
    init,
    // As a VS Code window (engineHost.ts): an owner that restarts its engine keeps the store; this
    // process waits for its socket instead of racing it for the lock.
    spawn: (i, hint) =>
      new SharedTransport({
        init: i,
        spawnWorker: (w) => {
          const worker = spawnEngineWorker(w);
          opts.onWorkerSpawned?.();
          return worker;
        },
        client: opts.client,
        ...(hint?.ownerRestarting ? { waitForOwnerMs: RESTARTING_OWNER_WAIT_MS } : {}),
        ...(opts.log ? { log: opts.log } : {}),
      }),
    ...(opts.log ? { log: opts.log } : {}),
  });
  const log = opts.log;
  if (log) client.onEvent((e) => e.type === 'log' && log(`engine: ${e.message}`));
  return client;
}
