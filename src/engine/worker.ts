/**
 * Entry of the engine worker thread (bundled to dist/engine.js). workerData is EngineInit;
 * it opens the MemoryEngine, posts `ready` (or `fatal` when the stores cannot be opened) and
 * serves requests over parentPort until `engine.shutdown`, after which the thread exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { MemoryEngine } from './engine';
import { toErrorPayload } from './errors';
import { createHandlers } from './handlers';
import { RpcServer, type Port } from './rpcServer';
import { PROTOCOL_VERSION, type EngineInit, type FromEngineMessage } from './protocol';

/** dist/engine.js finds sql-wasm.wasm and migrations/ next to itself (esbuild copies them). */
function besideBundle(name: string): string | undefined {
  const p = path.join(__dirname, name);
  return fs.existsSync(p) ? p : undefined;
}

async function main(): Promise<void> {
  if (!parentPort) throw new Error('src/engine/worker.ts must run in a worker thread');
  const port = parentPort as unknown as Port & { close(): void };
  const post = (m: FromEngineMessage) => parentPort!.postMessage(m);
  const init = workerData as EngineInit;
  let engine: MemoryEngine;
  try {
    const sqlWasmPath = init.sqlWasmPath ?? besideBundle('sql-wasm.wasm');
    const migrationsDir = init.migrationsDir ?? besideBundle('migrations');
    engine = await MemoryEngine.open({
      ...init,
      ...(sqlWasmPath ? { sqlWasmPath } : {}),
      ...(migrationsDir ? { migrationsDir } : {}),
      onEvent: (event) => post({ kind: 'event', event }),
    });
  } catch (e) {
    post({ kind: 'fatal', error: toErrorPayload(e) });
    return;
  }
  new RpcServer(port, engine, createHandlers({ allowDebug: !!init.allowDebug, exit: (code) => process.exit(code) }), () => {
    // Answered: let the thread end once the port has flushed.
    setImmediate(() => port.close());
  });
  post({ kind: 'ready', info: { protocolVersion: PROTOCOL_VERSION, projectId: engine.projectId, openMs: engine.openDurationMs, warnings: engine.startupWarnings } });
}

main().catch((e) => {
  parentPort?.postMessage({ kind: 'fatal', error: toErrorPayload(e) } satisfies FromEngineMessage);
});
