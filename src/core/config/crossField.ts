/** Rules that relate two keys, checked after every key has been validated on its own. */
import type { ConfigShape } from './types.js';

export interface CrossFieldRule {
  /** Keys involved; the first is the one reported when both were set. */
  keys: readonly [string, string];
  severity: 'error' | 'warning';
  /** A description of the violation, or undefined when the rule holds. */
  violation(cfg: ConfigShape): string | undefined;
}

export const CROSS_FIELD_RULES: readonly CrossFieldRule[] = [
  {
    keys: ['memory.auto_merge_threshold', 'memory.similarity_threshold'],
    severity: 'error',
    violation: ({ memory: m }) =>
      m.auto_merge_threshold < m.similarity_threshold
        ? `memory.auto_merge_threshold (${m.auto_merge_threshold}) must be at least memory.similarity_threshold (${m.similarity_threshold})`
        : undefined,
  },
  {
    keys: ['memory.pipelineV2.documentChunkOverlap', 'memory.pipelineV2.documentChunkSize'],
    severity: 'error',
    violation: ({ memory: { pipelineV2: p } }) =>
      p.documentChunkOverlap >= p.documentChunkSize
        ? `memory.pipelineV2.documentChunkOverlap (${p.documentChunkOverlap}) must be less than memory.pipelineV2.documentChunkSize (${p.documentChunkSize})`
        : undefined,
  },
  {
    keys: ['search.default_limit', 'search.max_limit'],
    severity: 'error',
    violation: ({ search: s }) =>
      s.default_limit > s.max_limit
        ? `search.default_limit (${s.default_limit}) must not exceed search.max_limit (${s.max_limit})`
        : undefined,
  },
  {
    keys: ['search.vector_weight', 'search.keyword_weight'],
    severity: 'error',
    violation: ({ search: s }) =>
      s.vector_weight + s.keyword_weight === 0 ? 'search.vector_weight and search.keyword_weight must not both be 0' : undefined,
  },
  {
    keys: ['search.vector_weight', 'search.keyword_weight'],
    severity: 'warning',
    violation: ({ search: s }) => {
      const sum = s.vector_weight + s.keyword_weight;
      return sum !== 0 && Math.abs(sum - 1) > 1e-9
        ? `search.vector_weight + search.keyword_weight = ${Number(sum.toFixed(6))}; they are meant to sum to 1`
        : undefined;
    },
  },
];
