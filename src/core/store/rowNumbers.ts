/**
 * Memory row numbers in the op log (docs/storage.md "A damaged log").
 *
 * `memories.rid` is the only key SQLite assigns (every other key is bound from JS), and later
 * changes name a memory by it: its tags, an edit, an access count. If a replay had to skip a lost
 * record that created a memory, SQLite would number every later memory one lower and later
 * changes would reach the wrong memories. So the store picks the number itself — one above the
 * highest it has seen, never reusing one — and logs every insert into memories with it bound.
 * A record all of whose inserts carry their number starts with {@link REPLAYABLE_MARK}; after
 * changes that could not be read, only such records are replayed (replay.ts).
 */
import type { Op, SqlValue } from './opCodec';

/** First statement of a record that is safe to replay after a gap. A no-op SELECT: any version replays it. */
export const REPLAYABLE_MARK = 'SELECT 2 -- op log format 2: memory rids bound';

const INTO_MEMORIES = /\bINTO\s+memories\b/i;
const PLAIN_INSERT = /^(\s*INSERT\s+INTO\s+memories\s*\()([^)]*)(\)\s*VALUES\s*)\(/i;
const BOUND_INSERT = /^\s*INSERT\s+INTO\s+memories\s*\(\s*rid\s*,/i;

/**
 * How a statement inserts into memories: not at all, with its row number bound (`sql` and
 * `params` to run and log), or in a form whose row number cannot be bound.
 */
export type InsertPlan = { kind: 'none' } | { kind: 'bound'; sql: string; params: SqlValue[]; rid?: number } | { kind: 'unbound' };

/** The plan for one statement; `next()` gives the row number a plain one-row insert gets. */
export function planInsert(sql: string, params: SqlValue[], next: () => number): InsertPlan {
  if (!INTO_MEMORIES.test(sql)) return { kind: 'none' };
  const m = PLAIN_INSERT.exec(sql);
  if (!m || !oneTuple(sql, m[0].length - 1)) return { kind: 'unbound' };
  const columns = m[2]!.split(',').map((c) => c.trim().toLowerCase());
  if (columns.includes('rid')) return { kind: 'bound', sql, params };
  const rid = next();
  return { kind: 'bound', sql: `${m[1]}rid, ${m[2]}${m[3]}(?, ${sql.slice(m[0].length)}`, params: [rid, ...params], rid };
}

/** Whether the VALUES list opening at `open` is one tuple with nothing after it but a semicolon or comments. */
function oneTuple(sql: string, open: number): boolean {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      if (c === quote) quote = undefined; // a doubled quote reopens at once: same result
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return /^\s*;?\s*(--[^\n]*\s*)*$/.test(sql.slice(i + 1));
  }
  return false;
}

/** The highest row number a record's bound inserts use (0 when none). */
export function highestBoundRid(ops: Op[]): number {
  let high = 0;
  for (const op of ops) {
    const rid = op.params[0];
    if (BOUND_INSERT.test(op.sql) && typeof rid === 'number') high = Math.max(high, rid);
  }
  return high;
}

/** Whether a record was written with every memory row number bound (safe to replay after a gap). */
export function isReplayable(ops: Op[]): boolean {
  return ops[0]?.sql === REPLAYABLE_MARK;
}

/** The statements to apply: the mark is a no-op, skipped rather than parsed again for every record replayed. */
export function withoutMark(ops: Op[]): Op[] {
  return isReplayable(ops) ? ops.slice(1) : ops;
}
