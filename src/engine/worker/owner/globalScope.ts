/**
 * The global store as its owner serves it on `global/engine.sock` (ARCHITECTURE.md "One owner,
 * many clients"): the engines of other projects reach the global memories here. Every call is
 * held to scope global — creates, lists, searches and counts are forced to it, and a memory of
 * the owner's project is "not found" — and nothing project-wide (pipeline, export, config) is served.
 */
import type { CallContext, MemoryEngine } from '../engine';
import { EngineError } from '../../errors';
import type { HandlerTable } from '../handlers';
import type { EngineMethod } from '../../protocol';

type AnyHandler = (e: MemoryEngine, p: never, c: CallContext) => unknown;

function globalMemory(e: MemoryEngine, id: unknown): void {
  const m = typeof id === 'string' ? e.memories.get(id, true) : null;
  if (!m || m.scope !== 'global') throw new EngineError('not_found', `No global memory with id ${String(id)}.`);
}

export function globalScopeHandlers(h: HandlerTable): HandlerTable {
  const refused = Object.fromEntries(
    (Object.keys(h) as EngineMethod[]).map((m) => [
      m,
      () => {
        throw new EngineError('invalid_input', `${m} is not served on the global store's socket.`);
      },
    ]),
  ) as unknown as HandlerTable;
  const checked =
    <
      M extends
        | 'memory.update'
        | 'memory.delete'
        | 'memory.restore'
        | 'memory.history'
        | 'memory.versions'
        | 'memory.restoreVersion'
        | 'memory.promote',
    >(
      m: M,
    ) =>
    (e: MemoryEngine, p: Parameters<HandlerTable[M]>[1], c: CallContext) => {
      globalMemory(e, p?.id);
      return (h[m] as AnyHandler)(e, p as never, c);
    };
  return {
    ...refused,
    'memory.create': (e, p, c) => h['memory.create'](e, { ...p, scope: 'global' }, c),
    'memory.get': (e, p) => {
      const m = e.memories.get(String(p?.id), !!p?.includeDeleted);
      return m && m.scope === 'global' ? m : null;
    },
    'memory.list': (e, p, c) => h['memory.list'](e, { ...p, scope: 'global' }, c),
    search: (e, p, c) => h.search(e, { ...p, scope: 'global' }, c),
    'memory.typeCounts': (e, _p, c) => h['memory.typeCounts'](e, { scope: 'global' }, c),
    'memory.tagCounts': (e, _p, c) => h['memory.tagCounts'](e, { scope: 'global' }, c),
    'memory.update': (e, p, c) => {
      if (p?.patch?.scope !== undefined && p.patch.scope !== 'global') {
        throw new EngineError('invalid_input', 'scope: a global memory cannot be moved into a project from another project.');
      }
      return checked('memory.update')(e, p, c) as ReturnType<HandlerTable['memory.update']>;
    },
    'memory.delete': (e, p, c) => checked('memory.delete')(e, p, c) as ReturnType<HandlerTable['memory.delete']>,
    'memory.restore': (e, p, c) => checked('memory.restore')(e, p, c) as ReturnType<HandlerTable['memory.restore']>,
    'memory.history': (e, p, c) => checked('memory.history')(e, p, c) as ReturnType<HandlerTable['memory.history']>,
    'memory.versions': (e, p, c) => checked('memory.versions')(e, p, c) as ReturnType<HandlerTable['memory.versions']>,
    'memory.restoreVersion': (e, p, c) => checked('memory.restoreVersion')(e, p, c) as ReturnType<HandlerTable['memory.restoreVersion']>,
    'memory.promote': (e, p, c) => checked('memory.promote')(e, p, c) as ReturnType<HandlerTable['memory.promote']>,
    stats: h.stats,
    // The global store's change feed (docs/changes.md): another project's engine reads it here.
    'events.since': (e, p, c) => h['events.since'](e, { ...p, store: 'global' }, c),
    'events.wait': (e, p, c) => h['events.wait'](e, { ...p, store: 'global' }, c),
    'engine.shutdown': () => ({ snapshotted: false }),
  };
}
