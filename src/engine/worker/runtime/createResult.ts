/** The smart store's outcome as the protocol's create result (memory.create). */
import type { SmartStoreResult } from '../../../core/consolidation/smartStore';
import type { CreateMemoryResult } from '../../protocol';

/** CreateResult plus what the smart store did (always present when the smart store answered). */
export type SmartCreateResult = CreateMemoryResult & {
  action: 'stored' | 'merged' | 'skipped' | 'duplicate';
};

export function toCreateResult(r: SmartStoreResult): SmartCreateResult {
  const extra = {
    action: r.action,
    embedding: r.embedding,
    suggestions: r.suggestions.map((x) => x.id),
    ...(r.redacted?.length ? { redacted: r.redacted } : {}),
  };
  switch (r.action) {
    case 'stored':
      return { status: 'created', memory: r.memory!, warnings: r.warnings, ...extra, ...(r.similar.length ? { similar: r.similar } : {}) };
    case 'merged':
      // Already remembered: the surviving memory now holds this text too.
      return {
        status: 'duplicate',
        memory: r.memory!,
        ...extra,
        mergedSimilarity: r.merge!.similarity,
        warnings: [...r.warnings, `merged into ${r.memory!.id} (similarity ${r.merge!.similarity.toFixed(2)})`],
      };
    case 'duplicate':
      return { status: 'duplicate', memory: r.memory!, warnings: r.warnings, ...extra };
    case 'skipped': {
      const s = r.skipped!;
      return {
        status: 'skipped',
        reason: s.reason,
        detail: s.detail,
        ...(s.existingId ? { existingId: s.existingId } : {}),
        ...(s.existingLabel ? { existingLabel: s.existingLabel } : {}),
        ...(s.secrets ? { secrets: s.secrets } : {}),
        warnings: r.warnings,
        ...extra,
      };
    }
  }
}
