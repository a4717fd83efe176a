/**
 * The handler table of an engine whose global store is another engine's (globalLink.ts): calls
 * on global memories go to that owner, calls on both stores combine this engine's project store
 * with the owner's global one, the rest stay local. The local read-only copy of `global/` is
 * only used when the owner cannot be reached (reads; writes then fail with a clear error).
 */
import type { CallContext, MemoryEngine } from '../engine';
import type { HandlerTable } from '../handlers';
import type { ListResult, SearchResponse } from '../protocol';
import type { GlobalLink } from './globalLink';

type IdMethod =
  'memory.update' | 'memory.delete' | 'memory.restore' | 'memory.history' | 'memory.versions' | 'memory.restoreVersion' | 'memory.promote';

/** A memory id that is not one of this engine's project memories is the global owner's to answer. */
function isLocalProject(e: MemoryEngine, id: unknown): boolean {
  const m = typeof id === 'string' ? e.memories.get(id, true) : null;
  return !!m && m.scope !== 'global';
}

export function globalForwardingHandlers(h: HandlerTable, link: GlobalLink): HandlerTable {
  const byId =
    <M extends IdMethod>(m: M) =>
    (e: MemoryEngine, p: Parameters<HandlerTable[M]>[1], c: CallContext): ReturnType<HandlerTable[M]> =>
      (isLocalProject(e, p?.id)
        ? (h[m] as (e: MemoryEngine, p: unknown, c: CallContext) => unknown)(e, p, c)
        : link.request(m, p as never)) as ReturnType<HandlerTable[M]>;
  return {
    ...h,
    'memory.create': (e, p, c) => (p?.scope === 'global' ? link.request('memory.create', p) : h['memory.create'](e, p, c)),
    'memory.get': (e, p, c) => (isLocalProject(e, p?.id) ? h['memory.get'](e, p, c) : link.request('memory.get', p)),
    'memory.update': byId('memory.update'),
    'memory.delete': byId('memory.delete'),
    'memory.restore': byId('memory.restore'),
    'memory.history': byId('memory.history'),
    'memory.versions': byId('memory.versions'),
    'memory.restoreVersion': byId('memory.restoreVersion'),
    'memory.promote': byId('memory.promote'),
    'memory.list': async (e, p, c) => {
      if (p?.scope === 'global') return link.request('memory.list', p);
      if (p?.scope === 'project') return h['memory.list'](e, p, c);
      return listBoth(
        await h['memory.list'](e, { ...p, scope: 'project' }, c),
        (offset, limit) => link.request('memory.list', { ...p, offset, limit }),
        p,
      );
    },
    search: async (e, p, c) => {
      if (p?.scope === 'global') return link.request('search', p);
      if (p?.scope === 'project') return h.search(e, p, c);
      const [local, remote] = await Promise.all([
        h.search(e, { ...p, scope: 'project' }, c),
        link.request('search', { ...p, scope: 'global' }),
      ]);
      return mergeSearch(local, remote, p.limit);
    },
    'memory.typeCounts': async (e, p, c) => {
      if (p?.scope === 'global') return link.request('memory.typeCounts', p);
      const local = await h['memory.typeCounts'](e, { scope: 'project' }, c);
      if (p?.scope === 'project') return local;
      const remote = await link.request('memory.typeCounts', { scope: 'global' });
      const out = { ...local };
      for (const [t, n] of Object.entries(remote)) out[t] = (out[t] ?? 0) + n;
      return out;
    },
    stats: async (e, p, c) => {
      const local = await h.stats(e, p, c);
      return { ...local, global: (await link.request('stats', {})).global };
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
