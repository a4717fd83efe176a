/**
 * The method table: protocol method → MemoryEngine call. Params are checked for shape here
 * (the engine and the core check values); a missing or mistyped param is an invalid_input
 * error naming it, never a crash.
 */
import type { CallContext, MemoryEngine } from './engine';
import { EngineError } from './errors';
import { idempotentCreate } from './server/idempotency';
import type { EngineMethod, EngineMethods, ParamsOf, ResultOf } from './protocol';

type Handler<M extends EngineMethod> = (engine: MemoryEngine, params: ParamsOf<M>, ctx: CallContext) => ResultOf<M> | Promise<ResultOf<M>>;
export type HandlerTable = { [M in EngineMethod]: Handler<M> };

function str(params: unknown, key: string): string {
  const v = (params as Record<string, unknown> | undefined)?.[key];
  if (typeof v !== 'string' || v === '') throw new EngineError('invalid_input', `${key}: must be a non-empty string`);
  return v;
}

/** An optional limit: absent, or a whole number from 1 to 1000. */
function optLimit(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 1000) throw new EngineError('invalid_input', `limit: must be a whole number from 1 to 1000, got ${JSON.stringify(v)}`);
  return v;
}

export function createHandlers(opts: { allowDebug: boolean; exit: (code: number) => void }): HandlerTable {
  const debugOnly = () => {
    if (!opts.allowDebug) throw new EngineError('unknown_method', 'Debug methods are disabled.');
  };
  return {
    // A retried create (same idempotency key) answers with the memory it already made.
    'memory.create': (e, p) => idempotentCreate(e, p),
    'memory.get': (e, p) => e.get(str(p, 'id'), !!p.includeDeleted),
    'memory.list': (e, p) => e.list(p ?? {}),
    'memory.update': (e, p) => e.update(str(p, 'id'), p.patch),
    'memory.delete': (e, p) => e.delete(str(p, 'id'), p.reason),
    'memory.restore': (e, p) => e.restore(str(p, 'id')),
    'memory.history': (e, p) => e.history(str(p, 'id')),
    'memory.promote': (e, p) => e.promote(str(p, 'id')),
    'memory.typeCounts': (e, p) => e.typeCounts(p?.scope),
    'memory.tagCounts': (e, p) => e.tagCounts(p?.scope),
    'memory.listUntagged': (e, p) => e.listUntagged(p?.offset ?? 0, p?.limit ?? 50),
    'search': (e, p) => e.search(p),
    'suggestions.list': (e, p) => e.suggestions(p?.status, p?.limit),
    'suggestions.accept': (e, p) => e.acceptSuggestion(str(p, 'id')),
    'suggestions.reject': (e, p) => {
      const id = str(p, 'id');
      e.rejectSuggestion(id);
      return { id };
    },
    'suggestions.clear': (e) => ({ cleared: e.clearSuggestions() }),
    'suggestions.scan': async (e) => ({ created: await e.scanDuplicates() }),
    'graph.query': (e, p) => e.graphView(p ?? {}),
    'graph.entityMemories': (e, p) => e.entityMemories(str(p, 'entityId'), typeof p.limit === 'number' ? p.limit : undefined),
    'stats': (e) => e.stats(),
    'diagnostics': (e) => e.diagnostics(),
    'pipeline.status': (e) => e.pipelineStatus(),
    'pipeline.pause': (e) => e.pausePipeline(),
    'pipeline.resume': (e) => e.resumePipeline(),
    'pipeline.setMode': (e, p) => e.setPipelineMode(str(p, 'mode') as ParamsOf<'pipeline.setMode'>['mode']),
    'pipeline.diagnostics': (e) => e.pipelineDiagnostics(),
    'reviews.list': (e, p) => e.reviews(optLimit(p?.limit)),
    'reviews.approve': (e, p) => e.approveReview(str(p, 'id')),
    'reviews.reject': (e, p) => {
      const id = str(p, 'id');
      e.rejectReview(id);
      return { id };
    },
    'history.pipelineChanges': (e, p) => e.pipelineChanges(optLimit(p?.limit)),
    'history.undo': (e, p) => e.undoHistory(str(p, 'historyId')),
    'documents.ingest': (e, p, ctx) => {
      if (p.title !== undefined && typeof p.title !== 'string') throw new EngineError('invalid_input', 'title: must be a string');
      return e.ingestDocument(str(p, 'path'), p.title || undefined, p.wait !== false, ctx);
    },
    'index.rebuild': (e) => ({ memories: e.rebuildIndex() }),
    'embeddings.reembed': (e) => ({ queued: e.reembed() }),
    'export': (e, p) => e.exportTo(str(p, 'path'), p.scope, p.format),
    'import': (e, p, ctx) => e.importFile(str(p, 'path'), ctx),
    'config.reload': (e, p) => e.reloadConfig(p?.settings),
    'engine.snapshot': (e) => e.snapshotNow(),
    'engine.shutdown': async (e) => {
      const snapshotted = await e.close();
      return { snapshotted };
    },
    'debug.crash': (_e, p) => {
      debugOnly();
      if (p.how === 'exit') opts.exit(3);
      // Thrown outside the request's promise chain: an uncaught exception kills the thread.
      setImmediate(() => {
        throw new Error('debug.crash: deliberate crash of the engine thread');
      });
      return new Promise<never>(() => undefined);
    },
    'debug.hang': (_e, _p, ctx) => {
      debugOnly();
      return new Promise((resolve) => {
        if (ctx.signal.aborted) resolve({ cancelled: true });
        ctx.signal.addEventListener('abort', () => resolve({ cancelled: true }), { once: true });
      });
    },
  } satisfies { [M in keyof EngineMethods]: Handler<M> };
}
