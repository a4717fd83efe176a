/**
 * An UPDATE (supersede through the memory API: the old version stays in history) or a DELETE
 * (soft delete) decided by the pipeline. Used by applying decisions in full mode (apply.ts)
 * and by approving a held-back review (reviews.ts); its own module so neither imports the other.
 */
import type { Tx } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import { DuplicateContentError, NotFoundError, ValidationError } from '../memory/errors';
import { embeddingFor } from '../memory/prepareEmbeddings';
import type { PreparedEmbedding } from '../vectorstore/types';
import type { Proposal } from './decision';
import { latestHistoryId, PIPELINE_WHO, PIPELINE_WHY } from './audit';

export type OutcomeStatus =
  | 'shadow' // shadow mode: recorded only
  | 'created'
  | 'deduped'
  | 'skipped'
  | 'recorded' // NONE
  | 'blocked' // UPDATE/DELETE without allowUpdateDelete
  | 'updated'
  | 'deleted'
  | 'review'; // UPDATE/DELETE flagged reviewNeeded, waiting for a person

/** What applying one proposal did. */
export type Applied = { status: OutcomeStatus; reason?: string; memoryId?: string; historyId?: string };

/** UPDATE (supersede through the memory API) or DELETE (soft delete). Shared with review approval. */
export function applyDestructive(
  tx: Tx,
  memory: MemoryService,
  p: Pick<Proposal, 'action' | 'targetId' | 'fact' | 'reason'>,
  embeddings: Map<string, PreparedEmbedding>,
  who = PIPELINE_WHO,
): Applied {
  const targetId = p.targetId!;
  try {
    if (p.action === 'UPDATE') {
      const target = memory.get(targetId);
      if (!target) return { status: 'skipped', reason: 'target_missing', memoryId: targetId };
      const next = memory.updateInTx(
        tx,
        targetId,
        { content: p.fact.content, who, why: `${PIPELINE_WHY}: ${p.reason}`.slice(0, 1000), expectedVersion: target.version },
        { embedding: embeddingFor(embeddings, p.fact.content, target.title), extract: false },
      );
      if (next.version === target.version) return { status: 'deduped', reason: 'unchanged', memoryId: targetId };
      return { status: 'updated', memoryId: targetId, historyId: latestHistoryId(tx, targetId) ?? undefined };
    }
    const before = memory.get(targetId);
    if (!before) return { status: 'skipped', reason: 'target_missing', memoryId: targetId };
    memory.deleteInTx(tx, targetId, { who, reason: `${PIPELINE_WHY}: ${p.reason}`.slice(0, 1000) });
    return { status: 'deleted', memoryId: targetId, historyId: latestHistoryId(tx, targetId) ?? undefined };
  } catch (e) {
    if (e instanceof DuplicateContentError) return { status: 'deduped', reason: 'content_hash_match', memoryId: e.existingId };
    if (e instanceof NotFoundError) return { status: 'skipped', reason: 'target_missing', memoryId: targetId };
    if (e instanceof ValidationError) return { status: 'skipped', reason: `invalid: ${e.message}` };
    throw e;
  }
}
