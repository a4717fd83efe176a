/** Rows of consolidation_log, consolidation_suggestions and SUPERSEDES relationships. */
import { randomUUID } from 'node:crypto';
import type { Row, Store, Tx } from '../store/store';
import type { MergeStrategy } from '../config/types';

export const SUGGESTION_STATUSES = ['pending', 'accepted', 'rejected'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

export interface Suggestion {
  id: string;
  /** The older memory (survives an accept). */
  memoryAId: string;
  /** The newer memory (absorbed on accept). */
  memoryBId: string;
  similarity: number;
  status: SuggestionStatus;
  projectId: string;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
}

export interface ConsolidationLogEntry {
  id: string;
  targetId: string;
  sourceIds: string[];
  mergeStrategy: MergeStrategy;
  similarityScore: number | null;
  contentBefore: string | null;
  contentAfter: string | null;
  performedBy: string | null;
  createdAt: string;
}

export function rowToSuggestion(r: Row): Suggestion {
  return {
    id: String(r.id),
    memoryAId: String(r.memory_a_id),
    memoryBId: String(r.memory_b_id),
    similarity: Number(r.similarity),
    status: String(r.status) as SuggestionStatus,
    projectId: String(r.project_id),
    createdAt: String(r.created_at),
    resolvedAt: r.resolved_at === null ? null : String(r.resolved_at),
    resolvedBy: r.resolved_by === null || r.resolved_by === undefined ? null : String(r.resolved_by),
  };
}

/** Two memories (ids) and their similarity. */
export interface SuggestedPair {
  a: string;
  b: string;
  similarity: number;
}

/**
 * Records a pending suggestion for the pair unless one exists for it (in either order).
 * Returns the new suggestion, or undefined when the pair was already suggested.
 */
export function suggestInTx(tx: Tx, pair: SuggestedPair, projectId: string, createdAt: string): Suggestion | undefined {
  const { a, b, similarity } = pair;
  if (a === b) return undefined;
  const existing = tx.get(
    'SELECT id FROM consolidation_suggestions WHERE (memory_a_id = ? AND memory_b_id = ?) OR (memory_a_id = ? AND memory_b_id = ?)',
    [a, b, b, a],
  );
  if (existing) return undefined;
  const s: Suggestion = {
    id: randomUUID(),
    memoryAId: a,
    memoryBId: b,
    similarity: round6(similarity),
    status: 'pending',
    projectId,
    createdAt,
    resolvedAt: null,
    resolvedBy: null,
  };
  tx.run(
    `INSERT INTO consolidation_suggestions (id, memory_a_id, memory_b_id, similarity, status, project_id, created_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
    [s.id, a, b, s.similarity, projectId, createdAt],
  );
  return s;
}

export function getSuggestion(store: Store, id: string): Suggestion | undefined {
  const r = store.get('SELECT * FROM consolidation_suggestions WHERE id = ?', [id]);
  return r ? rowToSuggestion(r) : undefined;
}

export function listSuggestions(
  store: Store,
  opts: { status?: SuggestionStatus; projectId?: string; memoryId?: string; limit?: number; offset?: number } = {},
): Suggestion[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (opts.status) {
    where.push('status = ?');
    params.push(opts.status);
  }
  if (opts.projectId) {
    where.push('project_id = ?');
    params.push(opts.projectId);
  }
  if (opts.memoryId) {
    where.push('(memory_a_id = ? OR memory_b_id = ?)');
    params.push(opts.memoryId, opts.memoryId);
  }
  const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
  return store
    .all(`SELECT * FROM consolidation_suggestions ${clause} ORDER BY similarity DESC, created_at, id LIMIT ? OFFSET ?`, [
      ...params,
      opts.limit ?? 100,
      opts.offset ?? 0,
    ])
    .map(rowToSuggestion);
}

export function resolveSuggestionInTx(tx: Tx, id: string, status: 'accepted' | 'rejected', by: string, at: string): void {
  tx.run("UPDATE consolidation_suggestions SET status = ?, resolved_at = ?, resolved_by = ? WHERE id = ? AND status = 'pending'", [
    status,
    at,
    by,
    id,
  ]);
}

export function logMergeInTx(tx: Tx, e: Omit<ConsolidationLogEntry, 'id'>): ConsolidationLogEntry {
  const entry: ConsolidationLogEntry = { id: randomUUID(), ...e };
  tx.run(
    `INSERT INTO consolidation_log (id, target_id, source_ids, merge_strategy, similarity_score, content_before, content_after, performed_by, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      entry.id,
      entry.targetId,
      JSON.stringify(entry.sourceIds),
      entry.mergeStrategy,
      entry.similarityScore === null ? null : round6(entry.similarityScore),
      entry.contentBefore,
      entry.contentAfter,
      entry.performedBy,
      entry.createdAt,
    ],
  );
  return entry;
}

export function consolidationLog(store: Store, opts: { targetId?: string; limit?: number } = {}): ConsolidationLogEntry[] {
  const rows = opts.targetId
    ? store.all('SELECT * FROM consolidation_log WHERE target_id = ? ORDER BY created_at DESC, id LIMIT ?', [
        opts.targetId,
        opts.limit ?? 100,
      ])
    : store.all('SELECT * FROM consolidation_log ORDER BY created_at DESC, id LIMIT ?', [opts.limit ?? 100]);
  return rows.map((r) => ({
    id: String(r.id),
    targetId: String(r.target_id),
    sourceIds: JSON.parse(String(r.source_ids)) as string[],
    mergeStrategy: String(r.merge_strategy) as MergeStrategy,
    similarityScore: r.similarity_score === null ? null : Number(r.similarity_score),
    contentBefore: r.content_before === null ? null : String(r.content_before),
    contentAfter: r.content_after === null ? null : String(r.content_after),
    performedBy: r.performed_by === null ? null : String(r.performed_by),
    createdAt: String(r.created_at),
  }));
}

/** The surviving memory SUPERSEDES the absorbed one (docs/consolidation.md). */
export interface Supersedes {
  survivorId: string;
  absorbedId: string;
  strength: number;
  context: string;
}

export function supersedesInTx(tx: Tx, link: Supersedes, createdAt: string): void {
  const { survivorId, absorbedId, strength, context } = link;
  tx.run(
    `INSERT OR IGNORE INTO memory_relationships (id, from_memory_id, to_memory_id, relationship, strength, context, created_at)
     VALUES (?, ?, ?, 'SUPERSEDES', ?, ?, ?)`,
    [randomUUID(), survivorId, absorbedId, Math.max(0, Math.min(1, strength)), context, createdAt],
  );
}

function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
