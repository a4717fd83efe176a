/**
 * Applying decisions (docs/pipeline.md "Controlled writes"): ONE short
 * transaction after every LLM and embedding call is done. Per mode:
 *   shadow     — nothing written but the audit row of every proposal;
 *   controlled — ADD through the gates (confidence, empty content, content-hash dedup);
 *                NONE recorded; UPDATE/DELETE blocked;
 *   full       — as controlled, plus UPDATE (supersede: old version stays in history) and
 *                DELETE (soft delete, tombstone) applied, unless the contradiction detector
 *                flags them: then they wait in pipeline_reviews for a person.
 * Every proposal gets an audit row in memory_history, whatever its outcome.
 */
import type { Store, Tx } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import { ValidationError } from '../memory/errors';
import type { PreparedEmbedding } from '../vectorstore/types';
import { normalizeAndHashContent } from '../text/normalize';
import { detectContradiction } from '../text/contradiction';
import { errorMessage } from '../util/errors';
import type { Proposal } from './decision';
import { embeddingFor } from '../memory/prepareEmbeddings';
import { latestHistoryId, PIPELINE_WHO, PIPELINE_WHY, writeProposalAudit } from './audit';
import { insertReview } from './reviews';
import { applyDestructive, type Applied, type OutcomeStatus } from './destructive';

export type WriteMode = 'shadow' | 'controlled' | 'full';

export type { OutcomeStatus } from './destructive';

export interface Outcome {
  action: Proposal['action'];
  status: OutcomeStatus;
  reason?: string;
  /** The memory created, deduplicated against, updated or deleted. */
  memoryId?: string;
  /** The proposal's audit row. */
  auditId: string;
  /** The memory API's history row of an applied change (what `undo` takes). */
  historyId?: string;
  reviewId?: string;
  reviewNeeded: boolean;
}

export interface ApplyContext {
  store: Store;
  /** The store's memory API; facts are written with `extract: false` (never extracted again: no re-learning loops). */
  memory: MemoryService;
  mode: WriteMode;
  minFactConfidenceForWrite: number;
  extractionModel: string;
  sourceMemoryId: string | null;
  factCount: number;
  entityCount: number;
  embeddings: Map<string, PreparedEmbedding>;
  now: Date;
}

export interface ApplyResult {
  outcomes: Outcome[];
  counts: Record<OutcomeStatus, number>;
  /** Memories whose content changed or that were deleted: their graph provenance must be collected. */
  changedTargets: string[];
}

const emptyCounts = (): Record<OutcomeStatus, number> => ({
  shadow: 0,
  created: 0,
  deduped: 0,
  skipped: 0,
  recorded: 0,
  blocked: 0,
  updated: 0,
  deleted: 0,
  review: 0,
});

export function applyPhaseCWrites(ctx: ApplyContext, proposals: Proposal[]): ApplyResult {
  const iso = ctx.now.toISOString();
  return ctx.store.transaction((tx) => {
    const result: ApplyResult = { outcomes: [], counts: emptyCounts(), changedTargets: [] };
    for (const p of proposals) {
      const o = applyOne(tx, ctx, p, iso);
      result.outcomes.push(o);
      result.counts[o.status]++;
      if ((o.status === 'updated' || o.status === 'deleted') && o.memoryId) result.changedTargets.push(o.memoryId);
    }
    return result;
  });
}

/** What the proposal's write did (or why none was made); `review` when it waits for a person. */
function decide(
  tx: Tx,
  ctx: ApplyContext,
  p: Proposal,
  conflict: { contradicts: boolean; reason?: string },
): Applied & { review?: boolean } {
  if (ctx.mode === 'shadow') return { status: 'shadow' };
  if (p.action === 'NONE') return { status: 'recorded' };
  if (p.action === 'ADD') return applyAdd(tx, ctx, p);
  if (ctx.mode !== 'full') return { status: 'blocked', reason: 'destructive_mutations_not_allowed' };
  if (conflict.contradicts) return { status: 'review', reason: `review_needed: ${conflict.reason ?? 'contradiction'}`, review: true };
  if (p.confidence < ctx.minFactConfidenceForWrite) return { status: 'skipped', reason: 'low_decision_confidence' };
  return applyDestructive(tx, ctx.memory, p, ctx.embeddings);
}

function applyOne(tx: Tx, ctx: ApplyContext, p: Proposal, iso: string): Outcome {
  const conflict: { contradicts: boolean; reason?: string } =
    (p.action === 'UPDATE' || p.action === 'DELETE') && p.targetContent !== undefined
      ? detectContradiction(p.fact.content, p.targetContent)
      : { contradicts: false };
  const reviewNeeded = conflict.contradicts;
  const { status, reason, memoryId, historyId, review } = decide(tx, ctx, p, conflict);

  const auditId = writeProposalAudit(tx, {
    sourceMemoryId: ctx.sourceMemoryId,
    action: p.action,
    outcome: status,
    factContent: p.fact.content,
    reason: p.reason,
    createdAt: iso,
    metadata: {
      mode: ctx.mode,
      factType: p.fact.type,
      factConfidence: p.fact.confidence,
      confidence: p.confidence,
      outcomeReason: reason ?? null,
      targetId: p.targetId ?? null,
      resultMemoryId: memoryId ?? null,
      appliedHistoryId: historyId ?? null,
      sourceMemoryId: ctx.sourceMemoryId,
      extractionModel: ctx.extractionModel,
      factCount: ctx.factCount,
      entityCount: ctx.entityCount,
      reviewNeeded,
      conflict: conflict.contradicts ? (conflict.reason ?? null) : null,
      usedLlm: p.usedLlm,
      candidates: p.candidates,
    },
  });
  const out: Outcome = { action: p.action, status, reason, memoryId, historyId, auditId, reviewNeeded };
  if (review)
    out.reviewId = insertReview(tx, p, {
      historyId: auditId,
      sourceMemoryId: ctx.sourceMemoryId,
      conflict: conflict.reason ?? null,
      iso,
    });
  return out;
}

function applyAdd(tx: Tx, ctx: ApplyContext, p: Proposal): Applied {
  if (p.fact.confidence < ctx.minFactConfidenceForWrite) return { status: 'skipped', reason: 'low_fact_confidence' };
  const { storageContent, contentHash } = normalizeAndHashContent(p.fact.content);
  if (!storageContent) return { status: 'skipped', reason: 'empty_fact_content' };
  const existing = tx.get<{ id: string }>('SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
    ctx.memory.projectId,
    contentHash,
  ]);
  if (existing) return { status: 'deduped', reason: 'content_hash_match', memoryId: String(existing.id) };
  // A fact keeps the scope of the memory it came from (the global store's memories are global).
  const source = ctx.sourceMemoryId
    ? tx.get<{ scope: string }>('SELECT scope FROM memories WHERE id = ?', [ctx.sourceMemoryId])
    : undefined;
  try {
    const r = ctx.memory.createInTx(
      tx,
      {
        content: storageContent,
        type: p.fact.type,
        ...(source ? { scope: String(source.scope) } : {}),
        who: PIPELINE_WHO,
        why: PIPELINE_WHY,
        agentSource: PIPELINE_WHO,
        extractionModel: ctx.extractionModel,
        importance: 0.5,
        origin: 'pipeline',
        allowNearDuplicate: true,
        metadata: { sourceMemoryId: ctx.sourceMemoryId, factConfidence: p.fact.confidence },
      },
      { embedding: embeddingFor(ctx.embeddings, storageContent), extract: false },
    );
    if (r.status === 'created')
      return { status: 'created', memoryId: r.memory.id, historyId: latestHistoryId(tx, r.memory.id) ?? undefined };
    if (r.status === 'duplicate') return { status: 'deduped', reason: 'content_hash_match', memoryId: r.memory.id };
    return { status: 'skipped', reason: r.reason, memoryId: r.existingId };
  } catch (e) {
    // Defensive: the live-content UNIQUE index fired after all (same hash raced in).
    if (/UNIQUE/i.test(errorMessage(e))) {
      const dup = tx.get<{ id: string }>('SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
        ctx.memory.projectId,
        contentHash,
      ]);
      return { status: 'deduped', reason: 'unique_collision', memoryId: dup ? String(dup.id) : undefined };
    }
    if (e instanceof ValidationError) return { status: 'skipped', reason: `invalid: ${e.message}` };
    throw e;
  }
}
