/**
 * The search's created-at range (SearchParams.createdAfter / createdBefore) as the core search's
 * filters (src/core/search/filters.ts), which apply it in SQL on both legs. A date without a
 * time means the whole day: "before 2026-05-02" includes nothing of May 2nd, "after 2026-05-02"
 * includes all of it. Bad dates and an empty range are refused by name.
 */
import { isoInstant } from '../../../core/search/filters';
import type { SearchFilters } from '../../../core/search/types';
import { shownValue } from '../../../core/util/shownValue';
import { EngineError } from '../../errors';
import type { SearchParams } from '../../protocol';

function parse(value: unknown, key: string): string {
  try {
    return isoInstant(value, key);
  } catch {
    throw new EngineError('invalid_input', `${key}: must be an ISO date like 2026-05-02 (or a date-time), got ${shownValue(value)}`);
  }
}

/** The range of the params as search filters (none when they set none). */
export function createdRange(
  p: Pick<SearchParams, 'createdAfter' | 'createdBefore'>,
): Pick<SearchFilters, 'createdAfter' | 'createdBefore'> {
  const after = p.createdAfter === undefined || p.createdAfter === '' ? undefined : parse(p.createdAfter, 'createdAfter');
  const before = p.createdBefore === undefined || p.createdBefore === '' ? undefined : parse(p.createdBefore, 'createdBefore');
  if (after !== undefined && before !== undefined && after >= before) {
    throw new EngineError('invalid_input', `createdAfter (${p.createdAfter}) must be earlier than createdBefore (${p.createdBefore})`);
  }
  return { ...(after !== undefined ? { createdAfter: after } : {}), ...(before !== undefined ? { createdBefore: before } : {}) };
}
