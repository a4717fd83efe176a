/**
 * A memory's remaining lifetime in words, the same on every surface that shows a memory (tree,
 * search results, recall, CLI): "expires in 3 days", "expires tomorrow", "expires in 5 hours";
 * nothing for a permanent memory (docs/lifecycle.md "Lifetimes").
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** How long `ms` is, rounded to the largest sensible unit ("3 days", "5 hours", "a minute"). */
export function spanInWords(ms: number): string {
  if (ms < MINUTE) return 'less than a minute';
  if (ms < HOUR) return plural(Math.round(ms / MINUTE), 'minute');
  if (ms < DAY) return plural(Math.round(ms / HOUR), 'hour');
  return plural(Math.round(ms / DAY), 'day');
}

/** Whole calendar days from `now` to `then` in local time (0 = today, 1 = tomorrow). */
function calendarDays(then: Date, now: Date): number {
  const start = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  return Math.round((start(then) - start(now)) / DAY);
}

/**
 * "expires in 3 days" / "expires tomorrow" / "expires in 5 hours" / "expired"; undefined for a
 * permanent memory (no expiry) or an unreadable date.
 */
export function describeExpiry(expiresAt: string | null | undefined, now: Date = new Date()): string | undefined {
  if (!expiresAt) return undefined;
  const then = new Date(expiresAt);
  const ms = then.getTime() - now.getTime();
  if (Number.isNaN(ms)) return undefined;
  if (ms <= 0) return 'expired';
  if (ms < 12 * HOUR) return `expires in ${spanInWords(ms)}`;
  if (calendarDays(then, now) === 1) return 'expires tomorrow';
  return `expires in ${spanInWords(ms)}`;
}

/** "2 hours ago", "yesterday", "3 days ago" for a past ISO time (the removed list's "when"). */
export function describeAgo(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  const ms = now.getTime() - then.getTime();
  if (Number.isNaN(ms)) return iso;
  if (ms < MINUTE) return 'just now';
  if (ms < 12 * HOUR) return `${spanInWords(ms)} ago`;
  if (calendarDays(then, now) === -1) return 'yesterday';
  return `${spanInWords(ms)} ago`;
}
