/**
 * Times and durations in words, the one module every surface uses (tree, search, webviews,
 * memory documents, the CLI, MCP and schedule messages). English, like every user-facing string.
 *
 * - moments: `humanDate` ("12 Mar 2026, 14:05"), `relativeTime` ("2 hours ago", "yesterday",
 *   "in 3 days"; a date beyond a month), `describeAgo` (a past event; a clock a little ahead
 *   reads "just now"), `describeExpiry` ("expires tomorrow", "expired"), `compactAgo` ("3 h ago",
 *   for narrow rows);
 * - durations: `durationText` (exact, in its largest whole unit: "7 days", "90 seconds" — what
 *   memory documents write and parseLifetimeSeconds reads back), `durationWords` (at most two
 *   units: "1 day 2 hours"), `spanInWords` (rounded to one unit: "3 days", "less than a minute").
 *
 * Reading durations is src/core/config/duration.ts (parseDurationMs, the one duration parser)
 * and src/core/lifecycle/lifetimeText.ts (lifetimes); dates a text refers to, timeRefs.ts.
 */
import { plural } from './plural';

let relativeFormat: Intl.RelativeTimeFormat | undefined;
/** Made when first needed (about 3 ms at a process's start otherwise). */
const rtf = (): Intl.RelativeTimeFormat => (relativeFormat ??= new Intl.RelativeTimeFormat('en', { numeric: 'auto' }));
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** Beyond this distance a date reads better than "7 weeks ago". */
const RELATIVE_LIMIT_DAYS = 30;
/** The units of durations, largest first, in milliseconds. */
const UNITS: readonly (readonly [number, string])[] = [
  [WEEK, 'week'],
  [DAY, 'day'],
  [HOUR, 'hour'],
  [MINUTE, 'minute'],
  [SECOND, 'second'],
];

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
  if (abs < HOUR) return rtf().format(Math.trunc(ms / MINUTE), 'minute');
  if (abs < DAY) return rtf().format(Math.trunc(ms / HOUR), 'hour');
  if (abs < RELATIVE_LIMIT_DAYS * DAY) return rtf().format(calendarDays(d, now), 'day');
  return `on ${humanDate(d, { time: false })}`;
}

/**
 * When something happened: `relativeTime`, with a time a little ahead of `now` (another
 * process's clock) read as "just now", never "in less than a minute".
 */
export function describeAgo(when: string | Date, now: Date = new Date()): string {
  const d = toDate(when);
  if (!d) return String(when);
  return relativeTime(d.getTime() > now.getTime() ? now : d, now);
}

/**
 * A memory's remaining lifetime (docs/lifecycle.md "Lifetimes"): "expires in 5 hours",
 * "expires tomorrow", "expires in 3 days", "expires on 1 Jul 2026", "expired"; undefined for a
 * permanent memory (no expiry) or an unreadable date.
 */
export function describeExpiry(expiresAt: string | null | undefined, now: Date = new Date()): string | undefined {
  if (!expiresAt) return undefined;
  const d = toDate(expiresAt);
  if (!d) return undefined;
  return d.getTime() <= now.getTime() ? 'expired' : `expires ${relativeTime(d, now)}`;
}

/** "just now", "5 min ago", "3 h ago", "3 d ago", "2 mo ago", "1 y ago": an age for a narrow row. */
export function compactAgo(when: string, now: number = Date.now()): string {
  const s = Math.max(0, (now - Date.parse(when)) / SECOND);
  if (!Number.isFinite(s)) return '';
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 86_400 * 30) return `${Math.floor(s / 86_400)} d ago`;
  if (s < 86_400 * 365) return `${Math.floor(s / (86_400 * 30))} mo ago`;
  return `${Math.floor(s / (86_400 * 365))} y ago`;
}

/**
 * Seconds as "7 days", "12 hours", "1 week", "90 seconds": the largest unit that divides them
 * exactly (how memory documents write lifetimes). The number has no thousands separator
 * ("1000 days"), so parseLifetimeSeconds reads every value back.
 */
export function durationText(seconds: number): string {
  const ms = seconds * SECOND;
  const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  for (const [size, unit] of UNITS) if (ms >= size && ms % size === 0) return count(ms / size, unit);
  return count(seconds, 'second');
}

/** Seconds as at most two units, rounded to the second: "5 minutes", "2 hours", "1 day 2 hours", "30 seconds". */
export function durationWords(seconds: number): string {
  let rest = Math.round(seconds) * SECOND;
  const parts: string[] = [];
  for (const [size, unit] of UNITS) {
    const n = Math.floor(rest / size);
    if (n <= 0) continue;
    parts.push(plural(n, unit));
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ') || '0 seconds';
}

/** How long `ms` is, rounded to one unit: "3 days", "5 hours", "1 minute", "less than a minute". */
export function spanInWords(ms: number): string {
  if (ms < MINUTE) return 'less than a minute';
  if (ms < HOUR) return plural(Math.round(ms / MINUTE), 'minute');
  if (ms < DAY) return plural(Math.round(ms / HOUR), 'hour');
  return plural(Math.round(ms / DAY), 'day');
}

/** Whole calendar days from `now` to `d` in local time (so 23:00 → 01:00 is "tomorrow"). */
function calendarDays(d: Date, now: Date): number {
  const day = (x: Date) => Date.UTC(x.getFullYear(), x.getMonth(), x.getDate()) / DAY;
  return day(d) - day(now);
}
