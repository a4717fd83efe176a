/**
 * Times as people read them: "just now", "5 minutes ago", "yesterday", "in 3 days", and a
 * short date ("24 Nov 2026, 07:13") where the exact moment matters. Pure: no `vscode` import.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** "5 minutes ago", "yesterday", "in 3 days"; older than ~a month: the date. An unreadable value is shown as it is. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const diff = now.getTime() - t;
  const past = diff >= 0;
  const abs = Math.abs(diff);
  if (abs < 45_000) return past ? 'just now' : 'in a moment';
  const span =
    abs < HOUR
      ? plural(Math.max(1, Math.round(abs / MINUTE)), 'minute')
      : abs < DAY
        ? plural(Math.round(abs / HOUR), 'hour')
        : abs < 2 * DAY
          ? undefined
          : abs < 31 * DAY
            ? plural(Math.round(abs / DAY), 'day')
            : null;
  if (span === undefined) return past ? 'yesterday' : 'tomorrow';
  if (span === null) return shortDate(iso);
  return past ? `${span} ago` : `in ${span}`;
}

/** "24 Nov 2026, 07:13" in the machine's time zone. */
export function shortDate(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(
    t,
  );
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
