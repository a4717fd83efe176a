/** Repair recommendations from a diagnostics report (thresholds: docs/pipeline.md "Maintenance"). */
import type { DiagnosticsReport } from './diagnostics';
import { plural } from '../text/plural';

export const REPAIR_ACTIONS = ['requeueDeadJobs', 'releaseStaleLeases', 'checkFtsConsistency', 'triggerRetentionSweep'] as const;
export type RepairAction = (typeof REPAIR_ACTIONS)[number];

export interface Recommendation {
  action: RepairAction;
  why: string;
}

export function buildRecommendations(r: DiagnosticsReport): Recommendation[] {
  const out: Recommendation[] = [];
  if (r.queue.deadRate > 0.01)
    out.push({ action: 'requeueDeadJobs', why: `${(r.queue.deadRate * 100).toFixed(1)}% of jobs are dead (> 1%)` });
  if (r.queue.staleLeases > 0) out.push({ action: 'releaseStaleLeases', why: plural(r.queue.staleLeases, 'stale lease') });
  if (!r.index.consistent)
    out.push({
      action: 'checkFtsConsistency',
      why: `full-text index has ${plural(r.index.ftsRows, 'entry', 'entries')} for ${plural(r.index.memoryRows, 'memory', 'memories')}`,
    });
  if (r.storage.tombstoneRatio > 0.3)
    out.push({
      action: 'triggerRetentionSweep',
      why: `${(r.storage.tombstoneRatio * 100).toFixed(0)}% of memories are tombstones (> 30%)`,
    });
  return out;
}
