/**
 * Memories across both stores: create (the store's smart store), read, list, update (a scope
 * change moves the memory between stores), delete, restore (deleted or expired), the recently
 * removed list (src/core/lifecycle/removed.ts), deliberate accesses (opened, cited), history,
 * manual promote (src/core/lifecycle/promote.ts) and the counts the memory tree shows.
 */
import type {
  CreateMemoryInput,
  ListOptions,
  ListResult,
  MemoryRecord,
  MemoryScope,
  UpdatedMemory,
  UpdateMemoryInput,
} from '../../../core/memory/types';
import { promoteMemory } from '../../../core/lifecycle/promote';
import { countRemoved, listRemoved, type RemovedReason } from '../../../core/lifecycle/removed';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { CreateMemoryResult, RemovedList, StoreName } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';
import { tagCounts, type TagCounts } from './tagGroups';

export class MemoriesService {
  constructor(private readonly ctx: EngineContext) {}

  async create(input: CreateMemoryInput): Promise<CreateMemoryResult> {
    const rt = this.runtimeFor(input);
    const result = await this.ctx.write(rt, () => rt.create(input));
    if (result.status === 'created') this.ctx.changed('created', [result.memory.id], rt.name);
    return result;
  }

  /** The store a create goes to (server/idempotency.ts looks a retried create up there first). */
  runtimeFor(input: CreateMemoryInput): StoreRuntime {
    return this.ctx.stores.runtime(input.scope === 'global' ? 'global' : 'project');
  }

  get(id: string, includeDeleted = false): MemoryRecord | null {
    return this.ctx.stores.locate(id, includeDeleted)?.record ?? null;
  }

  /** Both stores, project first then global, paged as one list when no scope is given. */
  list(opts: ListOptions = {}): ListResult {
    return this.ctx.stores.list(opts);
  }

  listUntagged(offset: number, limit: number): ListResult {
    return this.ctx.stores.listUntagged(offset, limit);
  }

  /** Live memories per type over both stores (or one). */
  typeCounts(scope?: MemoryScope): Record<string, number> {
    const out: Record<string, number> = {};
    for (const rt of this.ctx.stores.forScope(scope)) {
      for (const [type, n] of Object.entries(countByType(rt))) out[type] = (out[type] ?? 0) + n;
    }
    return out;
  }

  /** Live memories per tag over both stores (or one), and how many have no tag. */
  tagCounts(scope?: MemoryScope): TagCounts {
    const out: TagCounts = { tags: {}, untagged: 0 };
    for (const rt of this.ctx.stores.forScope(scope)) {
      const c = tagCounts(rt.store, rt.projectId);
      for (const [tag, n] of Object.entries(c.tags)) out.tags[tag] = (out.tags[tag] ?? 0) + n;
      out.untagged += c.untagged;
    }
    return out;
  }

  async update(id: string, patch: UpdateMemoryInput): Promise<UpdatedMemory> {
    const found = this.ctx.stores.mustLocate(id);
    if (!patch || typeof patch !== 'object') throw new EngineError('invalid_input', 'patch: must be an object');
    const target: StoreName | undefined = patch.scope === 'global' || patch.scope === 'project' ? patch.scope : undefined;
    if (target && target !== found.runtime.name) return this.move(found.runtime, found.record, target, patch);
    const rt = found.runtime;
    const rec = await this.ctx.write(rt, () => rt.update(id, patch));
    this.ctx.changed('updated', [id], rt.name);
    return rec;
  }

  /** Soft delete; `who` is recorded as the one who deleted it (default "user"). */
  delete(id: string, reason?: string, who?: string): MemoryRecord {
    const { runtime: rt } = this.ctx.stores.mustLocate(id);
    const rec = this.ctx.write(rt, () => rt.memory.delete(id, { ...(reason ? { reason } : {}), ...(who ? { who } : {}) }));
    this.ctx.changed('deleted', [id], rt.name);
    return rec;
  }

  restore(id: string): MemoryRecord {
    const { runtime: rt } = this.ctx.stores.mustLocate(id, true);
    const rec = this.ctx.write(rt, () => rt.memory.restore(id));
    this.ctx.changed('restored', [id], rt.name);
    return rec;
  }

  /**
   * Recently deleted and expired memories of both stores, most recently removed first: each
   * store's first offset + limit, merged by removal time, then the page.
   */
  listRemoved(reason: RemovedReason | undefined, offset: number, limit: number): RemovedList {
    const tombstoneRetentionMs = this.ctx.config.memory.pipelineV2.tombstoneRetentionMs;
    let total = 0;
    const all = this.ctx.stores.all().flatMap((rt) => {
      const opts = { ...(reason ? { reason } : {}), offset: 0, limit: offset + limit, projectId: rt.projectId, tombstoneRetentionMs };
      total += countRemoved(rt.store, opts);
      return listRemoved(rt.store, opts);
    });
    all.sort((a, b) => (a.removedAt < b.removedAt ? 1 : a.removedAt > b.removedAt ? -1 : 0));
    return { items: all.slice(offset, offset + limit), total, offset, limit, restorableForMs: tombstoneRetentionMs };
  }

  /**
   * A deliberate use of memories (a person opened them, an answer cited them): one access each,
   * written by the access tracker's next flush (at most one per memory per hour counts). Ids
   * that are not live memories are ignored.
   */
  recordAccess(ids: readonly string[]): { recorded: number } {
    let recorded = 0;
    for (const rt of this.ctx.stores.all()) {
      if (!rt.access) continue;
      const rids = ids.map((id) => rt.memory.get(id)?.rid).filter((rid): rid is number => rid !== undefined);
      rt.access.record(rids);
      recorded += rids.length;
    }
    return { recorded };
  }

  history(id: string) {
    return this.ctx.stores.mustLocate(id, true).runtime.memory.history(id);
  }

  /** Manual promote: the TTL is removed (permanent) and a `promoted` history event says who. */
  promote(id: string): MemoryRecord {
    const { runtime: rt } = this.ctx.stores.mustLocate(id);
    this.ctx.write(rt, () => promoteMemory(rt.store, id, { who: 'user', now: this.ctx.now() }));
    this.ctx.changed('promoted', [id], rt.name);
    return rt.memory.get(id)!;
  }

  /** Scope change = a move between stores: create in the target first, then delete, so nothing is lost. */
  private move(from: StoreRuntime, rec: MemoryRecord, to: StoreName, patch: UpdateMemoryInput): UpdatedMemory {
    if (patch.expectedVersion !== undefined && patch.expectedVersion !== rec.version) {
      throw new EngineError(
        'version_conflict',
        `Memory ${rec.id} changed meanwhile (expected version ${patch.expectedVersion}, found ${rec.version}). Reload and try again.`,
      );
    }
    const target = this.ctx.stores.runtime(to);
    const input = movedInput(from.name, rec, to, patch);
    const created = this.ctx.write(target, () => target.memory.create(input));
    if (created.status === 'skipped') throw new EngineError('invalid_input', `Cannot move memory ${rec.id}: ${created.detail}`);
    this.ctx.write(from, () => from.memory.delete(rec.id, { reason: `moved to the ${to} store as ${created.memory.id}` }));
    this.ctx.changed('deleted', [rec.id], from.name);
    this.ctx.changed('created', [created.memory.id], to);
    target.kickBackfill(); // the moved memory gets its vector in the target's space
    return created.redacted?.length ? { ...created.memory, redacted: created.redacted } : created.memory;
  }
}

/** The memory `rec` of store `from` as created in store `to`, with `patch` applied. */
function movedInput(from: StoreName, rec: MemoryRecord, to: StoreName, patch: UpdateMemoryInput): CreateMemoryInput {
  return {
    content: patch.content ?? rec.content,
    title: patch.title ?? rec.title,
    type: patch.type ?? rec.type,
    scope: to,
    tags: patch.tags ?? rec.tags,
    importance: patch.importance ?? rec.importance,
    decisions: patch.decisions ?? rec.decisions,
    rationale: patch.rationale ?? rec.rationale,
    metadata: { ...(patch.metadata ?? rec.metadata), movedFrom: rec.id },
    allowNearDuplicate: true,
    fromRecall: true,
    who: patch.who ?? 'user',
    why: patch.why ?? `moved from the ${from} store`,
    ...(rec.summary ? { summary: rec.summary } : {}),
    ...(rec.source ? { source: rec.source } : {}),
  };
}

/** Live memories per type of one store. */
export function countByType(rt: StoreRuntime): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rt.store.all('SELECT type, count(*) AS n FROM memories WHERE deleted_at IS NULL GROUP BY type'))
    out[String(r.type)] = Number(r.n);
  return out;
}
