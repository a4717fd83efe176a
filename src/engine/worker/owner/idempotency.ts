/**
 * Exactly-once creates across an owner's death (ARCHITECTURE.md "One owner, many clients").
 * The client's idempotency key is stored in the memory's metadata by the same transaction that
 * writes the memory, so it is durable exactly when the memory is. A create sent again after its
 * engine went away is marked (IDEMPOTENCY_RETRY, never stored); before it runs, the store is
 * asked whether a memory with the same text already carries its key:
 *
 * - a live one: the create was applied; it is answered as the original create (`created`, with
 *   the similar memories and merge suggestions that write recorded — a person's explicit save
 *   of a close duplicate is stored apart, docs/consolidation.md);
 * - a tombstone the smart store absorbed into another memory (an automatic write merged on
 *   write, docs/consolidation.md): the create was applied as a merge; it is answered as that
 *   merge (`duplicate`, action `merged`, the surviving memory and the similarity) instead of
 *   merging the text a second time.
 *
 * A first send costs nothing extra: if its text is already live with its key (a retry that was
 * not marked), the content-hash gate answers it and it is recognized afterwards.
 */
import type { CallContext, MemoryEngine } from '../engine';
import type { MemoryRecord } from '../../../core/memory/types';
import { consolidationLog, listSuggestions } from '../../../core/consolidation/records';
import { similarMemories } from '../../../core/consolidation/smartStore';
import type { StoreRuntime } from '../runtime/storeRuntime';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_RETRY, type CreateMemoryInput, type CreateMemoryResult } from '../../protocol';

/** How many of the newest deletions a retry searches for the tombstone of its merged create (it comes seconds after). */
const RECENT_DELETIONS = 5000;

export async function idempotentCreate(engine: MemoryEngine, given: CreateMemoryInput, _ctx?: CallContext): Promise<CreateMemoryResult> {
  const retry = given?.metadata?.[IDEMPOTENCY_RETRY] === true;
  const input = withoutRetryMark(given);
  const key = input?.metadata?.[IDEMPOTENCY_KEY];
  if (retry && typeof key === 'string' && typeof input.content === 'string') {
    const earlier = appliedBefore(engine.memories.runtimeFor(input), input.content, key);
    if (earlier) return earlier;
  }
  const result = await engine.memories.create(input);
  // The content-hash gate met a memory holding this key: the original create, answered as it was.
  if (typeof key === 'string' && result.status === 'duplicate' && result.memory.metadata?.[IDEMPOTENCY_KEY] === key) {
    return { ...asStored(engine.memories.runtimeFor(input), result.memory), warnings: result.warnings };
  }
  return result;
}

function withoutRetryMark(input: CreateMemoryInput): CreateMemoryInput {
  if (!input?.metadata || !(IDEMPOTENCY_RETRY in input.metadata)) return input;
  const { [IDEMPOTENCY_RETRY]: _mark, ...metadata } = input.metadata;
  return { ...input, metadata };
}

/** The answer to a create already applied with this key, or undefined when it was not. */
function appliedBefore(rt: StoreRuntime, content: string, key: string): CreateMemoryResult | undefined {
  const contentHash = rt.memory.contentHashOf(content); // the hash of the text as stored: after the secret guard
  const live = rt.store.get('SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
    rt.projectId,
    contentHash,
  ]);
  const liveRecord = live ? rt.memory.get(String(live.id)) : undefined;
  if (liveRecord && liveRecord.metadata?.[IDEMPOTENCY_KEY] === key) return asStored(rt, liveRecord);
  const tombstones = rt.store.all(
    `SELECT id FROM (SELECT id, project_id, content_hash FROM memories WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC LIMIT ?)
      WHERE project_id = ? AND content_hash = ?`,
    [RECENT_DELETIONS, rt.projectId, contentHash],
  );
  for (const row of tombstones) {
    const absorbed = rt.memory.get(String(row.id), { includeDeleted: true });
    if (!absorbed || absorbed.metadata?.[IDEMPOTENCY_KEY] !== key) continue;
    const survivor = survivorOf(rt, absorbed);
    // Applied, then deleted by someone since: still the original create, not a new one.
    if (!survivor) return asStored(rt, absorbed);
    const similarity = mergeSimilarity(rt, absorbed);
    return {
      status: 'duplicate',
      memory: survivor,
      warnings: [`merged into ${survivor.id}${similarity === undefined ? '' : ` (similarity ${similarity.toFixed(2)})`}`],
      action: 'merged',
      embedding: embeddingOf(survivor),
      suggestions: [],
      ...(similarity === undefined ? {} : { mergedSimilarity: similarity }),
    };
  }
  return undefined;
}

/** The answer of the create that stored `m`: with the suggestions that write recorded (B = m, made with it). */
function asStored(rt: StoreRuntime, m: MemoryRecord): CreateMemoryResult {
  const mine = listSuggestions(rt.store, { memoryId: m.id }).filter((s) => s.memoryBId === m.id && s.createdAt === m.createdAt);
  const similar = similarMemories(rt.memory, mine);
  return {
    status: 'created',
    memory: m,
    warnings: [],
    action: 'stored',
    embedding: embeddingOf(m),
    suggestions: mine.map((s) => s.id),
    ...(similar.length ? { similar } : {}),
  };
}

/** The similarity recorded when `absorbed` was merged on write (consolidation_log), if any. */
function mergeSimilarity(rt: StoreRuntime, absorbed: MemoryRecord): number | undefined {
  const entry = consolidationLog(rt.store, { targetId: absorbed.replacedBy ?? '', limit: 1000 }).find((e) =>
    e.sourceIds.includes(absorbed.id),
  );
  return entry?.similarityScore ?? undefined;
}

/** The live memory an absorbed one ended up in (following later merges), if any. */
function survivorOf(rt: StoreRuntime, absorbed: MemoryRecord): MemoryRecord | undefined {
  let next = absorbed.replacedBy;
  for (let hops = 0; next && hops < 20; hops++) {
    const m = rt.memory.get(next, { includeDeleted: true });
    if (!m) return undefined;
    if (!m.deletedAt) return m;
    next = m.replacedBy;
  }
  return undefined;
}

function embeddingOf(m: MemoryRecord): 'ready' | 'pending' {
  return m.embeddingStatus === 'ready' ? 'ready' : 'pending';
}
