/**
 * The handler table of an engine whose global store is another engine's (globalRoute.ts): calls
 * on global memories go to that owner, calls on both stores combine this engine's project store
 * with the owner's global one, the rest stay local. Once this engine has taken the global store
 * over, every call is local again (the same table as an owner's). A global call that meets the
 * switch half-way runs here with the owner's rules (globalScope.ts).
 */
import type { CallContext, MemoryEngine } from '../engine';
import type { AnyHandler, HandlerTable } from '../handlers';
import type { EngineMethod, ListResult, ParamsOf, ResultOf, SearchResponse } from '../../protocol';
import type { GlobalRoute } from './globalRoute';
import { globalScopeHandlers } from './globalScope';

type IdMethod =
  'memory.update' | 'memory.delete' | 'memory.restore' | 'memory.history' | 'memory.versions' | 'memory.restoreVersion' | 'memory.promote';
type Remote = <M extends EngineMethod>(method: M, params: ParamsOf<M>) => Promise<ResultOf<M>>;

/** A memory id that is not one of this engine's project memories is the global owner's to answer. */
function isLocalProject(e: MemoryEngine, id: unknown): boolean {
  const m = typeof id === 'string' ? e.memories.get(id, true) : null;
  return !!m && m.scope !== 'global';
}

export function globalForwardingHandlers(h: HandlerTable, route: GlobalRoute): HandlerTable {
  const scoped = globalScopeHandlers(h);
  const forwarded = forwardingTable(h);
  const out = { ...h } as Record<EngineMethod, AnyHandler>;
  for (const [m, handler] of Object.entries(forwarded) as [EngineMethod, ForwardingHandler][]) {
    out[m] = (e, p, c) => {
      if (route.local) return (h[m] as AnyHandler)(e, p, c);
      const remote: Remote = (method, params) =>
        route.request(method, params, (q) => Promise.resolve((scoped[method] as AnyHandler)(e, q, c) as ResultOf<typeof method>));
      return handler(e, p as never, c, remote);
    };
  }
  return out as unknown as HandlerTable;
}

type ForwardingHandler = (e: MemoryEngine, p: never, c: CallContext, remote: Remote) => unknown;

/** What each method does while another engine owns global/: `remote` reaches it. */
function forwardingTable(h: HandlerTable): Partial<Record<EngineMethod, ForwardingHandler>> {
  const byId =
    <M extends IdMethod>(m: M) =>
    (e: MemoryEngine, p: ParamsOf<M>, c: CallContext, remote: Remote) =>
      isLocalProject(e, p?.id) ? (h[m] as AnyHandler)(e, p, c) : remote(m, p);
  return {
    'memory.create': (e, p: ParamsOf<'memory.create'>, c, remote) =>
      p?.scope === 'global' ? remote('memory.create', p) : h['memory.create'](e, p, c),
    'memory.get': (e, p: ParamsOf<'memory.get'>, c, remote) =>
      isLocalProject(e, p?.id) ? h['memory.get'](e, p, c) : remote('memory.get', p),
    'memory.update': byId('memory.update'),
    'memory.delete': byId('memory.delete'),
    'memory.restore': byId('memory.restore'),
    'memory.history': byId('memory.history'),
    'memory.versions': byId('memory.versions'),
    'memory.restoreVersion': byId('memory.restoreVersion'),
    'memory.promote': byId('memory.promote'),
    'memory.list': async (e, p: ParamsOf<'memory.list'>, c, remote) => {
      if (p?.scope === 'global') return remote('memory.list', p);
      if (p?.scope === 'project') return h['memory.list'](e, p, c);
      return listBoth(
        await h['memory.list'](e, { ...p, scope: 'project' }, c),
        (offset, limit) => remote('memory.list', { ...p, offset, limit }),
        p,
      );
    },
    search: async (e, p: ParamsOf<'search'>, c, remote) => {
      if (p?.scope === 'global') return remote('search', p);
      if (p?.scope === 'project') return h.search(e, p, c);
      const [local, other] = await Promise.all([h.search(e, { ...p, scope: 'project' }, c), remote('search', { ...p, scope: 'global' })]);
      return mergeSearch(local, other, p.limit);
    },
    'memory.typeCounts': async (e, p: ParamsOf<'memory.typeCounts'>, c, remote) => {
      if (p?.scope === 'global') return remote('memory.typeCounts', p);
      const local = await h['memory.typeCounts'](e, { scope: 'project' }, c);
      if (p?.scope === 'project') return local;
      const other = await remote('memory.typeCounts', { scope: 'global' });
      const out = { ...local };
      for (const [t, n] of Object.entries(other)) out[t] = (out[t] ?? 0) + n;
      return out;
    },
    'events.since': (e, p: ParamsOf<'events.since'>, c, remote) =>
      p?.store === 'global' ? remote('events.since', p) : h['events.since'](e, p, c),
    'events.wait': (e, p: ParamsOf<'events.wait'>, c, remote) =>
      p?.store === 'global' ? remote('events.wait', p) : h['events.wait'](e, p, c),
    stats: async (e, p: ParamsOf<'stats'>, c, remote) => {
      const local = await h.stats(e, p, c);
      return { ...local, global: (await remote('stats', {})).global };
    },
  };
}

/** The project's page first, then the global store's (offsets past the project's items continue there). */
async function listBoth(
  project: ListResult,
  globalPage: (offset: number, limit: number) => Promise<ListResult>,
  p: { offset?: number; limit?: number } | undefined,
): Promise<ListResult> {
  const offset = p?.offset ?? project.offset;
  const limit = p?.limit ?? project.limit;
  const need = limit - project.items.length;
  const g = await globalPage(Math.max(0, offset - project.total), Math.max(1, need));
  return { items: [...project.items, ...(need > 0 ? g.items.slice(0, need) : [])], total: project.total + g.total, offset, limit };
}

/** Both stores' hits by score (as the engine ranks its two local stores), cut to the limit asked for. */
function mergeSearch(local: SearchResponse, remote: SearchResponse, limit: number | undefined): SearchResponse {
  const hits = [...local.hits, ...remote.hits]
    .sort((a, b) => b.score - a.score || b.memory.createdAt.localeCompare(a.memory.createdAt))
    .slice(0, limit ?? Math.max(local.hits.length, remote.hits.length));
  return {
    query: local.query,
    hits,
    legsUsed: [...new Set([...local.legsUsed, ...remote.legsUsed])],
    tookMs: Math.max(local.tookMs, remote.tookMs),
  };
}
