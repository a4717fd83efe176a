/**
 * Consolidation suggestions of both stores (src/core/consolidation): listed with both memories,
 * accepted and rejected through each store's SmartStore (the same merge with or without
 * vectors), cleared, and the dedup scan that finds more.
 */
import { getSuggestion, listSuggestions } from '../../../core/consolidation';
import { resolveSuggestionInTx } from '../../../core/consolidation/records';
import { rowToSummary } from '../../../core/memory/rows';
import type { MemoryRecord } from '../../../core/memory/types';
import { errorMessage } from '../../../core/util/errors';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { Suggestion, SuggestionPreview } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';

export class SuggestionsService {
  private scanning: Promise<number> | undefined;

  constructor(private readonly ctx: EngineContext) {}

  /** Suggestions with both memories' summaries (project store first); pairs with a deleted side are left out. */
  list(status: Suggestion['status'] = 'pending', limit = 50): Suggestion[] {
    const out: Suggestion[] = [];
    for (const rt of this.ctx.stores.all()) out.push(...liveSuggestions(rt, status, limit - out.length));
    return out.slice(0, limit);
  }

  /** Pending suggestions of both stores. */
  pendingCount(): number {
    return this.ctx.stores
      .all()
      .reduce(
        (n, rt) =>
          n + Number(rt.store.get<{ n: number }>(`SELECT count(*) AS n FROM consolidation_suggestions WHERE status = 'pending'`)?.n ?? 0),
        0,
      );
  }

  async accept(id: string): Promise<MemoryRecord> {
    const rt = this.holder(id);
    const r = await this.ctx.write(rt, () => rt.accept(id));
    this.ctx.changed('merged', [r.memory.id, r.absorbed.id], rt.name);
    return r.memory;
  }

  /** What accepting would write into A, with both memories in full (nothing is written). */
  preview(id: string): SuggestionPreview {
    const rt = this.holder(id);
    const p = rt.smart.previewAccept(id);
    const similarity = getSuggestion(rt.store, id)?.similarity ?? 0;
    return { id, similarity, title: p.merged.title, content: p.merged.content, strategy: rt.smart.settings.mergeStrategy, a: p.a, b: p.b };
  }

  /** Undoes an accepted suggestion: both memories as they were, the suggestion pending again. */
  async undo(id: string): Promise<{ memory: MemoryRecord; restored: MemoryRecord }> {
    const rt = this.holder(id);
    const r = await this.ctx.write(rt, () => rt.smart.undoAccept(id, { by: 'user' }));
    this.ctx.changed('restored', [r.memory.id, r.restored.id], rt.name);
    return r;
  }

  reject(id: string): void {
    const rt = this.holder(id);
    this.ctx.write(rt, () => rt.reject(id));
    this.ctx.emit({ type: 'suggestions.changed', store: rt.name });
  }

  /** Rejects every pending suggestion of the writable stores; how many. */
  clear(): number {
    let n = 0;
    const iso = this.ctx.now().toISOString();
    for (const rt of this.ctx.stores.all()) {
      const ids = listSuggestions(rt.store, { status: 'pending', limit: 1_000_000 }).map((s) => s.id);
      if (!ids.length) continue;
      this.ctx.write(rt, () =>
        rt.store.transaction((tx) => {
          for (const sid of ids) resolveSuggestionInTx(tx, sid, 'rejected', 'user', iso);
        }),
      );
      n += ids.length;
      this.ctx.emit({ type: 'suggestions.changed', store: rt.name });
    }
    return n;
  }

  /**
   * One pass of the dedup scanner over every writable store; how many suggestions it created. One
   * pass at a time. A store that got new ones says so (suggestions.changed): the Suggestions view of
   * every window lists them when the pass ends, whether a person asked for it or the schedule did.
   */
  scan(): Promise<number> {
    if (this.ctx.closed || this.ctx.restricted) return Promise.resolve(0);
    this.scanning ??= this.scanAll().finally(() => {
      this.scanning = undefined;
    });
    return this.scanning;
  }

  /** The pass in progress (close waits for it). */
  get running(): Promise<number> | undefined {
    return this.scanning;
  }

  private async scanAll(): Promise<number> {
    let n = 0;
    for (const rt of this.ctx.stores.writable()) {
      try {
        const created = await rt.dedupScan();
        n += created;
        if (created) this.ctx.emit({ type: 'suggestions.changed', store: rt.name, created });
      } catch (e) {
        this.ctx.warn(`dedup scan failed: ${errorMessage(e)}`);
      }
    }
    return n;
  }

  private holder(id: string): StoreRuntime {
    const rt = this.ctx.stores.all().find((r) => getSuggestion(r.store, id));
    if (!rt) throw new EngineError('not_found', `No consolidation suggestion with id ${id}.`);
    return rt;
  }
}

function liveSuggestions(rt: StoreRuntime, status: Suggestion['status'], limit: number): Suggestion[] {
  const out: Suggestion[] = [];
  if (limit <= 0) return out;
  const live = (id: string) => rt.store.get('SELECT * FROM memories WHERE id = ? AND deleted_at IS NULL', [id]);
  // Paged: some pairs may have lost a memory since the suggestion was made.
  for (let offset = 0; out.length < limit; offset += limit * 2) {
    const page = listSuggestions(rt.store, { status, limit: limit * 2, offset });
    for (const s of page) {
      const a = live(s.memoryAId);
      const b = live(s.memoryBId);
      if (!a || !b) continue;
      out.push({ id: s.id, similarity: s.similarity, status: s.status, createdAt: s.createdAt, a: rowToSummary(a), b: rowToSummary(b) });
      if (out.length >= limit) break;
    }
    if (page.length < limit * 2) break;
  }
  return out;
}
