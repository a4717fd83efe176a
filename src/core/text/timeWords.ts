/**
 * Dates for people instead of raw ISO timestamps: "2 hours ago", "yesterday", "in 3 days",
 * "expires tomorrow", and a short absolute date ("12 Mar 2026, 14:05") for tooltips and for
 * anything further away than a few weeks. English, like every user-facing string.
 */

const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Beyond this distance a date reads better than "7 weeks ago". */
const RELATIVE_LIMIT_DAYS = 30;

function toDate(when: string | Date): Date | undefined {
  const d = typeof when === 'string' ? new Date(when) : when;
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** "12 Mar 2026, 14:05" (local time); the input unchanged when it is not a date. */
export function humanDate(when: string | Date, opts: { time?: boolean; timeZone?: string } = {}): string {
  const d = toDate(when);
  if (!d) return String(when);
  const fmt = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    ...(opts.time === false ? {} : { hour: '2-digit', minute: '2-digit', hour12: false }),
    ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
  });
  return fmt.format(d);
}

/** "just now", "5 minutes ago", "yesterday", "in 2 hours", "tomorrow"; a date beyond a month. */
export function relativeTime(when: string | Date, now: Date = new Date()): string {
  const d = toDate(when);
  if (!d) return String(when);
  const ms = d.getTime() - now.getTime();
  const abs = Math.abs(ms);
  if (abs < MINUTE) return ms <= 0 ? 'just now' : 'in less than a minute';
  if (abs < HOUR) return rtf.format(Math.trunc(ms / MINUTE), 'minute');
  if (abs < DAY) return rtf.format(Math.trunc(ms / HOUR), 'hour');
  if (abs < RELATIVE_LIMIT_DAYS * DAY) return rtf.format(calendarDays(d, now), 'day');
  return `on ${humanDate(d, { time: false })}`;
}

/** "expires in 3 hours", "expires tomorrow", "expired 2 days ago". */
export function expiryText(when: string | Date, now: Date = new Date()): string {
  const d = toDate(when);
  if (!d) return `expires ${String(when)}`;
  return `${d.getTime() > now.getTime() ? 'expires' : 'expired'} ${relativeTime(d, now)}`;
}

/** Whole calendar days from `now` to `d` in local time (so 23:00 → 01:00 is "tomorrow"). */
function calendarDays(d: Date, now: Date): number {
  const day = (x: Date) => Date.UTC(x.getFullYear(), x.getMonth(), x.getDate()) / DAY;
  return day(d) - day(now);
}
