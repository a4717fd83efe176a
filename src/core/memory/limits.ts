/**
 * Input limits of the memory API and the one table of page-size ranges every surface uses.
 * Oversized input is refused with a clear error, never truncated silently; a page size outside
 * its range is `invalid_input` naming the range, never clamped (see checkLimit).
 */
import { shownValue } from '../util/shownValue';
import { ValidationError } from './errors';

export const LIMITS = {
  contentMaxChars: 64 * 1024,
  titleMaxChars: 500,
  summaryMaxChars: 4000,
  /** search_context: a previous turn or a heading path, not a second memory. */
  searchContextMaxChars: 4000,
  speakerMaxChars: 200,
  metadataMaxBytes: 16 * 1024,
  listDefault: 50,
  listMax: 100,
  nearDuplicateThreshold: 0.8,
} as const;

export interface LimitRange {
  readonly min: number;
  readonly max: number;
  /** Used when the caller gives no limit. */
  readonly default: number;
}

/**
 * Page sizes of every listing the engine answers. Search is not here: its range is the
 * configuration's `search.default_limit` / `search.max_limit` (see searchRange).
 */
export const LIMIT_RANGES = {
  /** memory.list and memory.listUntagged (one page of the memory tree). */
  list: { min: 1, max: LIMITS.listMax, default: LIMITS.listDefault },
  /** memory.listRemoved (recently deleted and expired). */
  removed: { min: 1, max: LIMITS.listMax, default: LIMITS.listDefault },
  /** suggestions.list. */
  suggestions: { min: 1, max: 200, default: 50 },
  /** graph.query in the memory view (memories as nodes). */
  memoryGraph: { min: 1, max: 300, default: 150 },
  /** graph.query in the entity view (knowledge-graph entities as nodes). */
  entityGraph: { min: 1, max: 5000, default: 2000 },
  /** graph.entityMemories. */
  entityMemories: { min: 1, max: 200, default: 200 },
  /** reviews.list. */
  reviews: { min: 1, max: 1000, default: 100 },
  /** history.pipelineChanges. */
  pipelineChanges: { min: 1, max: 200, default: 20 },
  /** events.since / events.wait (one page of the change feed). */
  events: { min: 1, max: 1000, default: 100 },
  /** webhooks.deliveries. */
  deliveries: { min: 1, max: 500, default: 50 },
} as const satisfies Record<string, LimitRange>;

export type LimitName = keyof typeof LIMIT_RANGES;

/** The range of a search limit under the configuration's search.* values. */
export function searchRange(search: { default_limit: number; max_limit: number }): LimitRange {
  return { min: 1, max: search.max_limit, default: search.default_limit };
}

/**
 * `value` as a page size of `range`: the default when undefined, else a whole number inside the
 * range. Anything else throws invalid_input naming the range (`what` says whose limit it is).
 */
export function checkLimit(value: unknown, range: LimitRange, what: string, field = 'limit'): number {
  if (value === undefined) return range.default;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
    throw new ValidationError(field, `must be a whole number from ${range.min} to ${range.max} (${what}), got ${shownValue(value)}`);
  }
  return value;
}

/** Lifecycle settings (the memory.* tunables of the configuration). */
export interface LifecycleSettings {
  defaultTtlSeconds: number;
  promoteImportance: number;
  promoteAccessCount: number;
  ttlExtendFactor: number;
}

export const DEFAULT_LIFECYCLE: LifecycleSettings = {
  defaultTtlSeconds: 86400,
  promoteImportance: 0.8,
  promoteAccessCount: 5,
  ttlExtendFactor: 0.5,
};
