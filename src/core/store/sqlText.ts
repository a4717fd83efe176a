/**
 * What the write path does to SQL text and bound values before they are executed and logged,
 * so that replaying the log rebuilds exactly the database the live process held.
 */
import type { SqlValue } from './opCodec';

/** Non-deterministic SQL cannot be replayed exactly: values must be bound from JS. */
export const NON_DETERMINISTIC =
  /\b(current_timestamp|current_date|current_time|random\s*\(|randomblob\s*\(|changes\s*\(\s*\))|\b(datetime|date|time|julianday|unixepoch|strftime)\s*\([^)]*'now'/i;

export function stripSqlComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '').replace(/\/\*[\s\S]*?\*\//g, '');
}

const HAS_LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(HAS_LONE_SURROGATE.source, 'g');

/**
 * Lone UTF-16 surrogates become U+FFFD. sql.js and the log's UTF-8 encoder would otherwise
 * store different bytes for them (the live database and a replayed one would differ).
 */
export function wellFormed(s: string): string {
  return HAS_LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\uFFFD') : s;
}

/** The bound values as they are executed and logged: strings made well-formed. */
export function normalizeParams(params: readonly SqlValue[]): SqlValue[] {
  return params.map((p) => (typeof p === 'string' ? wellFormed(p) : p));
}
