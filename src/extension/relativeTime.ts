/**
 * Times as people read them (the wording is src/core/text/timeWords.ts): "just now", "5 minutes ago", "yesterday", "in 3 days", and a
 * short date ("24 Nov 2026, 07:13") where the exact moment matters. Pure: no `vscode` import.
 */

import { humanDate } from '../core/text/timeWords';
import { plural } from '../core/text/plural';

/** "5 minutes ago", "yesterday", "in 3 days"; a date beyond a month (src/core/text/timeWords.ts). */
export { relativeTime } from '../core/text/timeWords';

/** "24 Nov 2026, 07:13" in the machine's time zone. */
export function shortDate(iso: string): string {
  return humanDate(iso);
}

/** Seconds as "7 days", "12 hours", "1 week"… (the largest whole unit), the way lifetimes are written. */
export function durationText(seconds: number): string {
  const units: [number, string][] = [
    [7 * 86_400, 'week'],
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) if (seconds >= size && seconds % size === 0) return plural(seconds / size, unit);
  return plural(seconds, 'second');
}
