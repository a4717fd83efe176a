/** The smart store's outcome as the protocol's create result (memory.create). */
import type { SmartStoreResult } from '../../core/consolidation/smartStore';
import type { CreateResult } from '../../core/memory/types';

/** CreateResult plus what the smart store did. */
export type SmartCreateResult = CreateResult & {
  /** stored / merged (auto-merge ≥ memory.auto_merge_threshold) / skipped / duplicate. */
  action: 'stored' | 'merged' | 'skipped' | 'duplicate';
  embedding?: 'ready' | 'pending' | 'none';
  /** Ids of the consolidation suggestions this write recorded (similarity_threshold … auto_merge_threshold). */
  suggestions?: string[];
};

export function toCreateResult(r: SmartStoreResult): SmartCreateResult {
  const extra = { action: r.action, embedding: r.embedding, suggestions: r.suggestions.map((x) => x.id) };
  switch (r.action) {
    case 'stored':
      return { status: 'created', memory: r.memory!, warnings: r.warnings, ...extra };
    case 'merged':
      // Already remembered: the surviving memory now holds this text too.
      return {
        status: 'duplicate',
        memory: r.memory!,
        ...extra,
        warnings: [...r.warnings, `merged into ${r.memory!.id} (similarity ${r.merge?.similarity.toFixed(2)})`],
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
        warnings: r.warnings,
        ...extra,
      };
    }
  }
}
