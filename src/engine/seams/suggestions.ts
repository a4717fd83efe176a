/**
 * SEAM (rewire to src/core/consolidation when it lands): consolidation suggestions of one
 * store (seed 003 "Memory Consolidation", table consolidation_suggestions). Listing and
 * rejecting are final; accepting merges with the `append` / `latest_wins` strategies here
 * (smart_merge falls back to append until the consolidation module provides it).
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../../core/store/store';
import type { MemoryService } from '../../core/memory/memoryService';
import { rowToSummary } from '../../core/memory/rows';
import type { MemoryRecord } from '../../core/memory/types';
import type { MergeStrategy } from '../../core/config/types';
import { EngineError } from '../errors';
import type { Suggestion } from '../protocol';

export function listSuggestions(store: Store, status: Suggestion['status'], limit: number): Suggestion[] {
  const rows = store.all(
    `SELECT s.id AS s_id, s.similarity AS s_similarity, s.status AS s_status, s.created_at AS s_created_at,
            s.memory_a_id AS a_id, s.memory_b_id AS b_id
       FROM consolidation_suggestions s
       JOIN memories a ON a.id = s.memory_a_id AND a.deleted_at IS NULL
       JOIN memories b ON b.id = s.memory_b_id AND b.deleted_at IS NULL
      WHERE s.status = ?
      ORDER BY s.similarity DESC, s.created_at DESC
      LIMIT ?`,
    [status, limit],
  );
  return rows.map((r) => ({
    id: String(r.s_id),
    similarity: Number(r.s_similarity),
    status: r.s_status as Suggestion['status'],
    createdAt: String(r.s_created_at),
    a: rowToSummary(store.get('SELECT * FROM memories WHERE id = ?', [String(r.a_id)])!),
    b: rowToSummary(store.get('SELECT * FROM memories WHERE id = ?', [String(r.b_id)])!),
  }));
}

function pendingSuggestion(store: Store, id: string): { a: string; b: string; similarity: number } {
  const row = store.get('SELECT * FROM consolidation_suggestions WHERE id = ?', [id]);
  if (!row) throw new EngineError('not_found', `No consolidation suggestion with id ${id}.`);
  if (row.status !== 'pending') throw new EngineError('invalid_input', `Suggestion ${id} is already ${String(row.status)}.`);
  return { a: String(row.memory_a_id), b: String(row.memory_b_id), similarity: Number(row.similarity) };
}

export function rejectSuggestion(store: Store, id: string, now: Date): void {
  pendingSuggestion(store, id);
  store.transaction((tx) =>
    tx.run(`UPDATE consolidation_suggestions SET status = 'rejected', resolved_at = ?, resolved_by = 'user' WHERE id = ?`, [now.toISOString(), id]),
  );
}

export function clearSuggestions(store: Store, now: Date): number {
  return store.transaction((tx) => {
    tx.run(`UPDATE consolidation_suggestions SET status = 'rejected', resolved_at = ?, resolved_by = 'user' WHERE status = 'pending'`, [now.toISOString()]);
    return tx.changes();
  });
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
