/**
 * Consolidation suggestions of one store (docs/consolidation.md) for the engine:
 * listing and clearing over src/core/consolidation (listSuggestions, getSuggestion,
 * resolveSuggestionInTx). Accept and reject go through the core SmartStore when the vector
 * side is open; the accept/reject here is only the fallback without it (append /
 * latest_wins merge; smart_merge falls back to append).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../core/store/store';
import type { MemoryService } from '../../core/memory/memoryService';
import { rowToSummary } from '../../core/memory/rows';
import { getSuggestion, listSuggestions as coreListSuggestions } from '../../core/consolidation';
import { resolveSuggestionInTx } from '../../core/consolidation/records';
import type { MemoryRecord } from '../../core/memory/types';
import type { MergeStrategy } from '../../core/config/types';
import { EngineError } from '../errors';
import type { Suggestion } from '../protocol';

/** Suggestions (core records) with both memories' summaries; pairs with a deleted side are left out. */
export function listSuggestions(store: Store, status: Suggestion['status'], limit: number): Suggestion[] {
  const out: Suggestion[] = [];
  const live = (id: string) => store.get('SELECT * FROM memories WHERE id = ? AND deleted_at IS NULL', [id]);
  // Paged: some pairs may have lost a memory since the suggestion was made.
  for (let offset = 0; out.length < limit; offset += limit * 2) {
    const page = coreListSuggestions(store, { status, limit: limit * 2, offset });
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

function pendingSuggestion(store: Store, id: string): { a: string; b: string; similarity: number } {
  const s = getSuggestion(store, id);
  if (!s) throw new EngineError('not_found', `No consolidation suggestion with id ${id}.`);
  if (s.status !== 'pending') throw new EngineError('invalid_input', `Suggestion ${id} is already ${s.status}.`);
  return { a: s.memoryAId, b: s.memoryBId, similarity: s.similarity };
}

export function rejectSuggestion(store: Store, id: string, now: Date): void {
  pendingSuggestion(store, id);
  store.transaction((tx) => resolveSuggestionInTx(tx, id, 'rejected', 'user', now.toISOString()));
}

/** Rejects every pending suggestion; how many. */
export function clearSuggestions(store: Store, now: Date): number {
  const ids = coreListSuggestions(store, { status: 'pending', limit: 1_000_000 }).map((s) => s.id);
  if (!ids.length) return 0;
  const iso = now.toISOString();
  store.transaction((tx) => { for (const id of ids) resolveSuggestionInTx(tx, id, 'rejected', 'user', iso); });
  return ids.length;
}

/** Merges memory b into memory a (a survives, b is soft-deleted with a SUPERSEDES link). */
export function acceptSuggestion(store: Store, svc: MemoryService, id: string, strategy: MergeStrategy, now: Date): MemoryRecord {
  const s = pendingSuggestion(store, id);
  const a = svc.get(s.a);
  const b = svc.get(s.b);
  if (!a || !b) throw new EngineError('not_found', 'One of the memories of this suggestion was deleted meanwhile.');
  const content = strategy === 'latest_wins' ? (b.updatedAt > a.updatedAt ? b.content : a.content) : `${a.content}\n\n${b.content}`;
  const iso = now.toISOString();
  return store.transaction((tx) => {
    const merged = svc.updateInTx(tx, a.id, {
      content, tags: [...new Set([...a.tags, ...b.tags])], importance: Math.max(a.importance, b.importance),
      why: `merged ${b.id} (suggestion ${id})`,
    });
    svc.deleteInTx(tx, b.id, { reason: `merged into ${a.id}` });
    tx.run(`UPDATE memories SET merged_from = ? WHERE id = ?`, [JSON.stringify([...a.mergedFrom, b.id]), a.id]);
    tx.run(`UPDATE memories SET replaced_by = ? WHERE id = ?`, [a.id, b.id]);
    tx.run(
      `INSERT OR IGNORE INTO memory_relationships (id, from_memory_id, to_memory_id, relationship, strength, context, created_at)
       VALUES (?, ?, ?, 'SUPERSEDES', 1.0, ?, ?)`,
      [randomUUID(), a.id, b.id, `suggestion ${id}`, iso],
    );
    tx.run(
      `INSERT INTO consolidation_log (id, target_id, source_ids, merge_strategy, similarity_score, content_before, content_after, performed_by, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'user', ?)`,
      [randomUUID(), a.id, JSON.stringify([b.id]), strategy === 'latest_wins' ? 'latest_wins' : 'append', s.similarity, a.content, merged.content, iso],
    );
    tx.run(`UPDATE consolidation_suggestions SET status = 'accepted', resolved_at = ?, resolved_by = 'user' WHERE id = ?`, [iso, id]);
    return { ...merged, mergedFrom: [...a.mergedFrom, b.id] };
  });
}
