/**
 * Wall-clock time in an IANA time zone: the parts of an instant as a person there reads them,
 * and the instant of a wall-clock time there. The zone rules come from the platform (Intl);
 * turning a wall-clock time into an instant goes through croner, the same library that computes
 * cron runs, so a time in a daylight-saving gap moves forward exactly as a cron run would
 * (docs/schedules.md "Daylight saving").
 */
import { Cron } from 'croner';

export interface WallTime {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** 0 = Sunday … 6 = Saturday */
  weekday: number;
}

const WEEKDAY_INDEX: Readonly<Record<string, number>> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Whether `zone` is an IANA time zone the platform knows. */
export function isTimeZone(zone: string): boolean {
  if (!zone || typeof zone !== 'string') return false;
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone of this machine (the default of a new schedule). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      weekday: 'short',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock time of `instant` in `zone`. */
export function wallTime(instant: Date, zone: string): WallTime {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(instant)) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    weekday: WEEKDAY_INDEX[parts.weekday ?? ''] ?? 0,
  };
}

/** Days in a month (month 1-12), leap years counted. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** "2026-03-01T09:00:00": a wall-clock time without a zone. */
export function wallIso(w: Pick<WallTime, 'year' | 'month' | 'day' | 'hour' | 'minute'>): string {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:00`;
}

/**
 * The instant of a wall-clock time in `zone`. A time that occurs twice (clocks go back) is its
 * first occurrence; one that does not exist (clocks go forward) moves forward by the gap.
 * Undefined for a date that is not on the calendar (30 February).
 */
export function zonedInstant(w: Pick<WallTime, 'year' | 'month' | 'day' | 'hour' | 'minute'>, zone: string): Date | undefined {
  if (w.month < 1 || w.month > 12 || w.day < 1 || w.day > daysInMonth(w.year, w.month)) return undefined;
  if (w.hour < 0 || w.hour > 23 || w.minute < 0 || w.minute > 59) return undefined;
  // Searched from two days before (no zone is more than 14 hours from UTC).
  const from = new Date(Date.UTC(w.year, w.month - 1, w.day) - 2 * 86_400_000);
  const run = new Cron(wallIso(w), { timezone: zone, paused: true }).nextRun(from);
  return run ?? undefined;
}

/** The calendar day `days` after the wall-clock day of `w` (month ends and leap years counted). */
export function addDays(w: Pick<WallTime, 'year' | 'month' | 'day'>, days: number): { year: number; month: number; day: number } {
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
