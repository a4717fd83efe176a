/** Audit rows for pipeline proposals in memory_history (docs/pipeline.md "Controlled writes": every proposal, every outcome). */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';

export const PROPOSAL_EVENT = 'pipeline_proposal';
export const PIPELINE_WHO = 'pipeline-v2';
export const PIPELINE_WHY = 'extracted-fact';

export interface ProposalAudit {
  sourceMemoryId: string | null;
  action: string;
  outcome: string;
  factContent: string;
  reason: string;
  metadata: Record<string, unknown>;
  createdAt: string;
}

/** Writes the audit row and returns its id (reviews and results point at it). */
export function writeProposalAudit(tx: Tx, a: ProposalAudit): string {
  const id = randomUUID();
  tx.run(
    `INSERT INTO memory_history (id, memory_id, event, old_content, new_content, old_json, new_json, changed_by, reason, metadata_json, created_at)
     VALUES (?, ?, ?, NULL, ?, NULL, NULL, ?, ?, ?, ?)`,
    [
      id,
      a.sourceMemoryId,
      PROPOSAL_EVENT,
      a.factContent,
      PIPELINE_WHO,
      a.reason,
      JSON.stringify({ action: a.action, outcome: a.outcome, ...a.metadata }),
      a.createdAt,
    ],
  );
  return id;
}

/** Id of the newest history row of a memory (the one a MemoryService write just added). */
export function latestHistoryId(tx: Tx, memoryId: string): string | null {
  const r = tx.get<{ id: string }>('SELECT id FROM memory_history WHERE memory_id = ? ORDER BY rowid DESC LIMIT 1', [memoryId]);
  return r ? String(r.id) : null;
}
