/**
 * Calendar dates named in a query ("on 21 May, 2023", "May 21 2023", "in July 2023", "in 2024",
 * "2023-05-21") as time windows: a memory written inside a window the query names, or whose
 * text refers to a day inside it (memories.time_refs, resolved at write time), matches the
 * query's date (relevance.ts). Absolute dates with a year are read from the query as written;
 * relative ones ("last week", "yesterday") only with the asker's now (`ref`), since a query's
 * "yesterday" is the asker's. The parsing itself is the text layer's (src/core/text/timeRefs.ts).
 *
 * Windows are UTC days, months or years: `[start, end)` in epoch milliseconds.
 */
import { findDates, type DateWindow } from '../text/timeRefs';

export type { DateWindow };

/** The windows of the dates `query` names, in the order found (most specific patterns first). */
export function parseQueryDates(query: string, ref?: Date): DateWindow[] {
  if (typeof query !== 'string' || (ref === undefined && !/\d/.test(query))) return [];
  return findDates(query.slice(0, 2000), ref).windows;
}

/** The windows `query` names and the query without them (for the words that are not a date). */
export function splitQueryDates(query: string, ref?: Date): { windows: DateWindow[]; rest: string } {
  if (typeof query !== 'string') return { windows: [], rest: '' };
  return findDates(query.slice(0, 2000), ref);
}

/** Whether the ISO timestamp `createdAt` falls in one of `windows`, each widened by `slackMs` on both sides. */
export function inDateWindows(createdAt: string, windows: readonly DateWindow[], slackMs: number): boolean {
  if (windows.length === 0) return false;
  const t = Date.parse(createdAt);
  if (!Number.isFinite(t)) return false;
  for (const w of windows) if (t >= w.start - slackMs && t < w.end + slackMs) return true;
  return false;
}

/** Whether any of `refs` (days a memory's text refers to) overlaps one of `windows`, each widened by `slackMs`. */
export function overlapsDateWindows(refs: readonly DateWindow[], windows: readonly DateWindow[], slackMs: number): boolean {
  for (const r of refs) for (const w of windows) if (r.start < w.end + slackMs && r.end > w.start - slackMs) return true;
  return false;
}
