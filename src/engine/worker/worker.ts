/**
 * Entry of the engine worker thread (bundled to dist/engine.js). workerData is EngineInit;
 * it opens the MemoryEngine, posts `ready` (or `fatal` when the stores cannot be opened) and
 * serves requests over parentPort until `engine.shutdown`, after which the thread exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { MemoryEngine } from './engine';
import { toErrorPayload } from '../errors';
import { createHandlers, type HandlerTable } from './handlers';
import { EngineServer } from './owner/socketServer';
import { GlobalRoute } from './owner/globalRoute';
import { globalForwardingHandlers } from './owner/globalForwarding';
import { globalScopeHandlers } from './owner/globalScope';
import { RpcServer, type Port } from './requestDispatcher';
import { PROTOCOL_VERSION, type EngineInit, type FromEngineMessage, type ReadyInfo } from '../protocol';

/** dist/engine.js finds sql-wasm.wasm and migrations/ next to itself (esbuild copies them). */
function besideBundle(name: string): string | undefined {
  const p = path.join(__dirname, name);
  return fs.existsSync(p) ? p : undefined;
}

async function main(): Promise<void> {
  if (!parentPort) throw new Error('src/engine/worker/worker.ts must run in a worker thread');
  const port = parentPort as unknown as Port & { close(): void };
  const post = (m: FromEngineMessage) => parentPort!.postMessage(m);
  const init = workerData as EngineInit;
  // A request that embeds text waits while the stores open (PrepareMessage): the embedder loads meanwhile.
  let wanted!: () => void;
  const embedderWanted = new Promise<void>((resolve) => (wanted = resolve));
  const onPrepare = (m: unknown) => {
    if ((m as { kind?: unknown } | null)?.kind === 'prepare') wanted();
  };
  parentPort.on('message', onPrepare);
  let engine: MemoryEngine;
  // The store's socket server (init.serve) gets every event the owner's window gets; the global
  // store's server (this engine owns global/) only the global ones.
  let server: EngineServer | undefined;
  let globalServer: EngineServer | undefined;
  let route: GlobalRoute | undefined;
  try {
    const sqlWasmPath = init.sqlWasmPath ?? besideBundle('sql-wasm.wasm');
    const migrationsDir = init.migrationsDir ?? besideBundle('migrations');
    engine = await MemoryEngine.open({
      ...init,
      ...(sqlWasmPath ? { sqlWasmPath } : {}),
      ...(migrationsDir ? { migrationsDir } : {}),
      embedderWanted,
      onEvent: (event) => {
        post({ kind: 'event', event });
        server?.broadcast(event);
        if ((event.type === 'memory.changed' || event.type === 'suggestions.changed') && event.store !== 'project')
          globalServer?.broadcast(event);
      },
    });
  } catch (e) {
    post({ kind: 'fatal', error: toErrorPayload(e) });
    return;
  } finally {
    parentPort.off('message', onPrepare);
  }
  const local = createHandlers({ allowDebug: !!init.allowDebug, exit: (code) => process.exit(code) });
  const warn = (message: string) => post({ kind: 'event', event: { type: 'warning', message } });
  // Global memories: served to other projects when this engine owns global/, else reached through its owner.
  const { dir: globalDir, readOnly: globalReadOnly } = engine.diagnostics.location('global');
  if (init.serve && !globalReadOnly) globalServer = await serveGlobal(engine, local, info, warn);
  if (init.serve && globalReadOnly) {
    // Another project's engine owns global/: reach it there, and take it over when it goes away.
    route = await GlobalRoute.start({
      globalDir,
      client: `engine of ${engine.projectId}`,
      onEvent: (event) => {
        post({ kind: 'event', event });
        server?.broadcast(event);
      },
      takeOver: () => engine.takeOverGlobal(),
      becameOwner: async () => {
        globalServer = await serveGlobal(engine, local, info, warn);
      },
      log: warn,
    });
  }
  const handlers = route ? globalForwardingHandlers(local, route) : local;
  function info(): ReadyInfo {
    return {
      protocolVersion: PROTOCOL_VERSION,
      projectId: engine.projectId,
      openMs: engine.openDurationMs,
      warnings: engine.startupWarnings,
      config: engine.runningConfig(),
    };
  }
  // The owner's own shutdown stops serving first: no client starts a request on a closing engine
  // (they reconnect, and one of them takes the store over once the lock is released).
  const ownHandlers: HandlerTable = {
    ...handlers,
    'engine.shutdown': async (e, p, c) => {
      // On purpose: the clients hear it before their connection closes (a handover, not a crash).
      server?.broadcast({ type: 'owner.leaving', owner: init.purpose ?? 'another process', restarting: !!p.restarting });
      await Promise.all([server?.close(), globalServer?.close(), route?.close()]);
      return handlers['engine.shutdown'](e, p, c);
    },
  };
  new RpcServer(port, engine, ownHandlers, () => {
    // Answered: let the thread end once the port has flushed and the clients are told.
    void (server?.close() ?? Promise.resolve()).finally(() => setImmediate(() => port.close()));
  });
  if (init.serve) server = await serveStore(engine, handlers, info, warn);
  post({ kind: 'ready', info: info() });
}

/** The owner's socket (a failure leaves this window working alone, with a warning). */
async function serveStore(
  engine: MemoryEngine,
  handlers: HandlerTable,
  info: () => ReadyInfo,
  warn: (message: string) => void,
): Promise<EngineServer | undefined> {
  const storeDir = engine.diagnostics.location('project').dir;
  try {
    return await EngineServer.start({ storeDir, engine, handlers, info, log: warn });
  } catch (e) {
    warn(`other windows and agents cannot reach this store: serving it on its socket failed (${toErrorPayload(e).message})`);
    return undefined;
  }
}

/** global/engine.sock, held to scope global (server/globalScope.ts); a failure costs other projects' windows their global writes. */
async function serveGlobal(
  engine: MemoryEngine,
  handlers: HandlerTable,
  info: () => ReadyInfo,
  warn: (message: string) => void,
): Promise<EngineServer | undefined> {
  try {
    const storeDir = engine.diagnostics.location('global').dir;
    return await EngineServer.start({ storeDir, engine, handlers: globalScopeHandlers(handlers), info, log: warn });
  } catch (e) {
    warn(`other projects' windows cannot write global memories: serving the global store failed (${toErrorPayload(e).message})`);
    return undefined;
  }
}

main().catch((e) => {
  parentPort?.postMessage({ kind: 'fatal', error: toErrorPayload(e) } satisfies FromEngineMessage);
});
