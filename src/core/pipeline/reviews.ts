/**
 * Destructive proposals the contradiction detector flagged (reviewNeeded): not applied, kept
 * in pipeline_reviews until a person approves (then applied like a full-mode decision) or
 * rejects them. Each resolution is recorded in memory_history too.
 */
import { randomUUID } from 'node:crypto';
import type { Row, Store, Tx } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import { UserFacingError } from '../util/errors';
import type { Proposal } from './decision';
import type { FactType } from './extraction';
import { applyDestructive } from './destructive';
import { writeProposalAudit } from './audit';
import type { PendingReview } from './reviewTypes';

export type { PendingReview } from './reviewTypes';

/** Where a review comes from: the audit row, the memory the fact was extracted from, the detector's reason. */
export interface ReviewOrigin {
  historyId: string;
  sourceMemoryId: string | null;
  conflict: string | null;
  iso: string;
}

export function insertReview(tx: Tx, p: Proposal, origin: ReviewOrigin): string {
  const { historyId, sourceMemoryId, conflict, iso } = origin;
  const id = randomUUID();
  tx.run(
    `INSERT INTO pipeline_reviews (id, history_id, action, target_id, source_memory_id, fact_content, fact_type, confidence, reason, conflict, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
    [id, historyId, p.action, p.targetId!, sourceMemoryId, p.fact.content, p.fact.type, p.confidence, p.reason, conflict, iso],
  );
  return id;
}

/** A nullable text column: null stays null, a number becomes its decimal text, a blob is written as String() wrote it. */
function optText(v: Row[string] | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return v.join(',');
}

function toReview(r: Row): PendingReview {
  return {
    id: String(r.id),
    historyId: String(r.history_id),
    action: String(r.action) as 'UPDATE' | 'DELETE',
    targetId: String(r.target_id),
    targetContent: optText(r.target_content),
    sourceMemoryId: optText(r.source_memory_id),
    factContent: String(r.fact_content),
    factType: String(r.fact_type),
    confidence: Number(r.confidence),
    reason: String(r.reason),
    conflict: optText(r.conflict),
    status: String(r.status) as PendingReview['status'],
    createdAt: String(r.created_at),
  };
}

export function listPendingReviews(store: Store, limit = 100): PendingReview[] {
  return store
    .all(
      `SELECT r.*, m.content AS target_content FROM pipeline_reviews r LEFT JOIN memories m ON m.id = r.target_id
       WHERE r.status = 'pending' ORDER BY r.created_at, r.rowid LIMIT ?`,
      [Math.max(1, Math.min(limit, 1000))],
    )
    .map(toReview);
}

export class ReviewError extends UserFacingError {
  constructor(message: string) {
    super(message, 'review_invalid');
  }
}

function pending(store: Store, id: string): PendingReview {
  const r = store.get(
    `SELECT r.*, m.content AS target_content FROM pipeline_reviews r LEFT JOIN memories m ON m.id = r.target_id WHERE r.id = ?`,
    [id],
  );
  if (!r) throw new ReviewError(`No pipeline review with id ${id}.`);
  const rev = toReview(r);
  if (rev.status !== 'pending') throw new ReviewError(`Review ${id} is already ${rev.status}.`);
  return rev;
}

/**
 * Apply the reviewed UPDATE/DELETE now (written with `extract: false`, like every pipeline write).
 * Returns the memory API's history row of the change (undo-able), or why nothing was applied
 * (target gone or already holding that content: the review is marked stale).
 */
export function approveReview(
  store: Store,
  memory: MemoryService,
  id: string,
  opts: { who?: string; now?: Date } = {},
): { status: 'updated' | 'deleted' | 'stale'; historyId?: string; reason?: string } {
  const rev = pending(store, id);
  const iso = (opts.now ?? new Date()).toISOString();
  const who = opts.who ?? 'user';
  return store.transaction((tx) => {
    const applied = applyDestructive(
      tx,
      memory,
      {
        action: rev.action,
        targetId: rev.targetId,
        fact: { content: rev.factContent, type: rev.factType as FactType, confidence: rev.confidence },
        reason: rev.reason,
      },
      new Map(),
      `${who} (approved pipeline review)`,
    );
    const ok = applied.status === 'updated' || applied.status === 'deleted';
    tx.run(`UPDATE pipeline_reviews SET status = ?, resolved_at = ?, resolved_by = ?, result_history_id = ? WHERE id = ?`, [
      ok ? 'approved' : 'stale',
      iso,
      who,
      applied.historyId ?? null,
      id,
    ]);
    writeProposalAudit(tx, {
      sourceMemoryId: rev.sourceMemoryId,
      action: rev.action,
      outcome: ok ? 'review_approved' : 'review_stale',
      factContent: rev.factContent,
      reason: rev.reason,
      createdAt: iso,
      metadata: {
        reviewId: id,
        targetId: rev.targetId,
        resolvedBy: who,
        appliedHistoryId: applied.historyId ?? null,
        outcomeReason: applied.reason ?? null,
      },
    });
    return ok
      ? { status: applied.status as 'updated' | 'deleted', historyId: applied.historyId }
      : { status: 'stale', reason: applied.reason };
  });
}

export function rejectReview(store: Store, id: string, opts: { who?: string; now?: Date } = {}): void {
  const rev = pending(store, id);
  const iso = (opts.now ?? new Date()).toISOString();
  const who = opts.who ?? 'user';
  store.transaction((tx) => {
    tx.run(`UPDATE pipeline_reviews SET status = 'rejected', resolved_at = ?, resolved_by = ? WHERE id = ?`, [iso, who, id]);
    writeProposalAudit(tx, {
      sourceMemoryId: rev.sourceMemoryId,
      action: rev.action,
      outcome: 'review_rejected',
      factContent: rev.factContent,
      reason: rev.reason,
      createdAt: iso,
      metadata: { reviewId: id, targetId: rev.targetId, resolvedBy: who },
    });
  });
}
