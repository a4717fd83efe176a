/**
 * The WHERE clause shared by both legs: project, live (not tombstoned, not expired), and the
 * caller's type/scope/tag/created-at filters, all applied in SQL (docs/recall.md: at the
 * database level). Bad filter values are refused with a ValidationError naming the field.
 */
import type { SqlValue } from '../store/opCodec';
import { LIVE_MEMORY_SQL, liveParam } from '../memory/visibility';
import { validateScope, validateTagFilter, validateType } from '../memory/validate';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import type { SearchFilters } from './types';

export interface WhereClause {
  /** Conditions over alias `m` of `memories`, joined with AND. */
  sql: string;
  params: SqlValue[];
}

/** An ISO date (midnight UTC) or date-time as the canonical instant, or a ValidationError naming `field`. */
export function isoInstant(v: unknown, field: string): string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}(T.*)?$/.test(v) || Number.isNaN(Date.parse(v)))
    throw new ValidationError(field, `must be an ISO date like 2026-05-02 (or a date-time), got ${shownValue(v)}`);
  return new Date(v.length === 10 ? `${v}T00:00:00.000Z` : v).toISOString();
}

export function buildMemoryFilter(projectId: string, filters: SearchFilters, now: Date): WhereClause {
  // Unary `+` keeps SQLite from driving the query by the project/type indexes: every search
  // query is driven by a candidate rid set or the FTS table, and an index walk over the whole
  // project instead of rowid look-ups is several times slower (bench/RESULTS-design-notes.md).
  const where: string[] = ['+m.project_id = ?', LIVE_MEMORY_SQL];
  const params: SqlValue[] = [projectId, liveParam(now)];
  if (filters.types !== undefined) {
    if (!Array.isArray(filters.types)) throw new ValidationError('types', 'must be a list of memory types');
    if (filters.types.length) {
      const types = [...new Set(filters.types.map((t) => validateType(t, 'general')))];
      where.push(`+m.type IN (${types.map(() => '?').join(', ')})`);
      params.push(...types);
    }
  }
  if (filters.scope !== undefined) {
    where.push('+m.scope = ?');
    params.push(validateScope(filters.scope, 'project'));
  }
  for (const [field, op] of [
    ['createdAfter', '>='],
    ['createdBefore', '<'],
  ] as const) {
    const v = filters[field];
    if (v === undefined) continue;
    // julianday on both sides: created_at may be any ISO form an import kept ("…+02:00", no milliseconds).
    where.push(`julianday(m.created_at) ${op} julianday(?)`);
    params.push(isoInstant(v, field));
  }
  if (filters.tags !== undefined) {
    for (const tag of validateTagFilter(filters.tags)) {
      where.push('EXISTS (SELECT 1 FROM memory_tags t WHERE t.tag = ? AND t.rid = m.rid)');
      params.push(tag);
    }
  }
  return { sql: where.join(' AND '), params };
}
