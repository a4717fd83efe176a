/** Starts the real engine worker thread (src/engine/worker/worker.ts through tsx) for the engine tests. */
import { Worker } from 'node:worker_threads';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineClient, type EngineClientOptions } from '../../src/engine/client/engineClient';
import type { EngineInit } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';

export const WORKER_TS = path.resolve(__dirname, '../../src/engine/worker/worker.ts');

export function spawnTsWorker(init: EngineInit): Worker {
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(WORKER_TS)});`, { eval: true, workerData: init });
}

export function engineDirs(): { storageDir: string; globalStorageDir: string; workspaceRoot: string } {
  const root = tmpDir('am-engine-');
  fs.mkdirSync(path.join(root, 'workspace'));
  return {
    storageDir: path.join(root, 'ws-storage'),
    globalStorageDir: path.join(root, 'global-storage'),
    workspaceRoot: path.join(root, 'workspace'),
  };
}

export function startClient(init: EngineInit, opts: Partial<EngineClientOptions> = {}): EngineClient {
  const logs: string[] = [];
  const client = new EngineClient({
    // The hash embedder unless a test asks for another: deterministic and light.
    init: { ...init, settings: { 'embedding.provider': 'hash', ...init.settings } },
    spawn: spawnTsWorker,
    backoff: { initialMs: 20, maxMs: 200, maxRestarts: 5, windowMs: 60_000 },
    log: (l) => logs.push(l),
    ...opts,
  });
  return client;
}
