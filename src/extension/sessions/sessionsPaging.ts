/**
 * Paging of the Sessions view (docs/sessions.md "In VS Code"): the view shows the most recent
 * sessions a page at a time, and a "Show more…" row loads the next page. Free of vscode, so the
 * paging is tested against a real session store.
 */
import { plural } from '../../core/text/plural';

/** Sessions per page of the view. */
export const SESSIONS_PAGE = 50;
/** The most `sessions.list` answers in one request. */
const LIST_MAX = 200;

/** One page of a list by last activity, and how many there are in all. */
export type ListSessions<T> = (limit: number, offset: number) => Promise<{ items: T[]; total: number }>;

export interface ShownSessions<T> {
  items: T[];
  /** Sessions after the shown ones (the "Show more…" row says how many). */
  remaining: number;
}

/** The first `shown` sessions, read in requests of at most LIST_MAX, and how many are left. */
export async function firstSessions<T>(list: ListSessions<T>, shown: number): Promise<ShownSessions<T>> {
  const items: T[] = [];
  let total = 0;
  while (items.length < shown) {
    const page = await list(Math.min(LIST_MAX, shown - items.length), items.length);
    total = page.total;
    items.push(...page.items);
    if (page.items.length === 0 || items.length >= total) break;
  }
  return { items, remaining: Math.max(0, total - items.length) };
}

/** The label of the row that loads the next page. */
export function showMoreLabel(remaining: number): string {
  const next = Math.min(remaining, SESSIONS_PAGE);
  return next === remaining
    ? `Show more… (${plural(remaining, 'more session')})`
    : `Show more… (${next} of ${plural(remaining, 'more session')})`;
}
