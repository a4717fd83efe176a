/** Consolidation settings (docs/consolidation.md): config `memory.similarity_threshold`, `auto_merge_threshold`, `merge_strategy`. */
import type { MergeStrategy, MemoryConfig } from '../config/types';
import { isMergeStrategy } from './merge';

export interface ConsolidationSettings {
  /** Similarity at which a write records a suggestion. Default 0.75. */
  similarityThreshold: number;
  /** Similarity at which a write is merged into its nearest neighbour. Default 0.92. */
  autoMergeThreshold: number;
  mergeStrategy: MergeStrategy;
  /** Suggestions recorded per write at most. Default 3. */
  maxSuggestions: number;
  /** Neighbours looked at per write. Default 5. */
  neighbours: number;
}

export const DEFAULT_CONSOLIDATION: ConsolidationSettings = {
  similarityThreshold: 0.75,
  autoMergeThreshold: 0.92,
  mergeStrategy: 'smart_merge',
  maxSuggestions: 3,
  neighbours: 5,
};

export function consolidationSettingsFrom(
  memory: Pick<MemoryConfig, 'similarity_threshold' | 'auto_merge_threshold' | 'merge_strategy'>,
): ConsolidationSettings {
  return checkSettings({
    ...DEFAULT_CONSOLIDATION,
    similarityThreshold: memory.similarity_threshold,
    autoMergeThreshold: memory.auto_merge_threshold,
    mergeStrategy: memory.merge_strategy,
  });
}

/** Clear errors for impossible settings (the config validator checks them too). */
export function checkSettings(s: ConsolidationSettings): ConsolidationSettings {
  const frac = (x: number, name: string) => {
    if (typeof x !== 'number' || !(x >= 0 && x <= 1)) throw new RangeError(`${name} must be a number from 0 to 1, got ${x}`);
  };
  frac(s.similarityThreshold, 'memory.similarity_threshold');
  frac(s.autoMergeThreshold, 'memory.auto_merge_threshold');
  if (s.autoMergeThreshold < s.similarityThreshold) {
    throw new RangeError(
      `memory.auto_merge_threshold (${s.autoMergeThreshold}) must be at least memory.similarity_threshold (${s.similarityThreshold})`,
    );
  }
  if (!isMergeStrategy(s.mergeStrategy))
    throw new RangeError(`memory.merge_strategy must be latest_wins, append or smart_merge, got ${JSON.stringify(s.mergeStrategy)}`);
  if (!Number.isInteger(s.maxSuggestions) || s.maxSuggestions < 0) throw new RangeError(`maxSuggestions must be a whole number ≥ 0`);
  if (!Number.isInteger(s.neighbours) || s.neighbours < 1) throw new RangeError(`neighbours must be a whole number ≥ 1`);
  return s;
}
