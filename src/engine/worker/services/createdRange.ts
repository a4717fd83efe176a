/**
 * The search's created-at range (SearchParams.createdAfter / createdBefore). The core's search
 * filters have none, so the engine keeps the hits inside the range from a larger candidate set.
 * A date without a time means the whole day: "before 2026-05-02" includes nothing of May 2nd,
 * "after 2026-05-02" includes all of it.
 */
import { shownValue } from '../../../core/util/shownValue';
import { EngineError } from '../../errors';
import type { SearchParams } from '../../protocol';

export interface CreatedRange {
  has(createdAt: string): boolean;
}

function parse(value: unknown, key: string): number {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}(T.*)?$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new EngineError('invalid_input', `${key}: must be an ISO date like 2026-05-02 (or a date-time), got ${shownValue(value)}`);
  }
  return Date.parse(value.length === 10 ? `${value}T00:00:00.000Z` : value);
}

/** The range of the params, or undefined when they set none. Bad dates are refused by name. */
export function createdRange(p: Pick<SearchParams, 'createdAfter' | 'createdBefore'>): CreatedRange | undefined {
  const after = p.createdAfter === undefined || p.createdAfter === '' ? undefined : parse(p.createdAfter, 'createdAfter');
  const before = p.createdBefore === undefined || p.createdBefore === '' ? undefined : parse(p.createdBefore, 'createdBefore');
  if (after === undefined && before === undefined) return undefined;
  if (after !== undefined && before !== undefined && after >= before) {
    throw new EngineError('invalid_input', `createdAfter (${p.createdAfter}) must be earlier than createdBefore (${p.createdBefore})`);
  }
  return {
    has(createdAt) {
      const t = Date.parse(createdAt);
      return (after === undefined || t >= after) && (before === undefined || t < before);
    },
  };
}
