/**
 * The days a text refers to (docs/recall.md "Dates"), as UTC windows `[start, end)` in epoch
 * milliseconds:
 *
 * - absolute dates with a year: "2023-05-21", "21 May 2023", "May 21, 2023", "July 2023", "in 2024";
 * - with a reference date (the memory's own date, for stored text): relative ones resolved against
 *   it — "yesterday" in a note of 8 May 2023 is 7 May 2023; "last week", "two weeks ago", "last
 *   Friday", "this weekend", "next month", "for 3 years" (the three years up to the note), "since
 *   2019", "in June" (the last June up to the note, or that month of its year).
 *
 * Stored memories keep what their text refers to (memories.time_refs, written by the write path),
 * so a question about a day finds a note that called it "yesterday"; a query is read for its
 * absolute dates (search/queryDates.ts) and, with the asker's now, for its relative ones.
 * English only, like the rest of the product's text rules. Deterministic: no clock is read here.
 */

import { WEEKDAYS, countOf } from './countWords';

export interface DateWindow {
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;
/** At most this many windows are kept per text (a long text naming dozens of days is not made a calendar). */
export const MAX_TIME_REFS = 16;

const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const YEAR = '((?:19|20)\\d\\d)';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const COUNT = `(\\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a couple of|a few|several)`;
const UNIT = '(day|week|month|year)s?';

// Absolute dates, most specific first; each match is blanked out before the next pattern looks.
const ISO = new RegExp(`\\b${YEAR}-(\\d{2})-(\\d{2})\\b`, 'g');
const DAY_MONTH_YEAR = new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+${YEAR}\\b`, 'gi');
const MONTH_DAY_YEAR = new RegExp(`\\b${MONTH}\\.?\\s+${DAY},?\\s+${YEAR}\\b`, 'gi');
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\.?,?\\s+${YEAR}\\b`, 'gi');
const YEAR_ONLY = new RegExp(`\\b${YEAR}\\b`, 'g');

// Relative expressions (resolved only with a reference date).
const AGO = new RegExp(`\\b${COUNT}\\s+${UNIT}\\s+ago\\b`, 'gi');
const FOR_DURATION = new RegExp(`\\b(?:for|over|in)\\s+(?:the\\s+(?:past|last)\\s+)?${COUNT}\\s+${UNIT}\\b`, 'gi');
const PAST_DURATION = new RegExp(`\\b(?:the\\s+)?(?:past|last)\\s+${COUNT}\\s+${UNIT}\\b`, 'gi');
const SINCE_YEAR = new RegExp(`\\bsince\\s+${YEAR}\\b`, 'gi');
const SHIFTED_PERIOD = /\b(last|this|next|past|coming)\s+(week|weekend|month|year)\b/gi;
const WEEKDAY = /\b(last|this|next|on|past)\s+(sunday|monday|tuesday|wednesday|thursday|friday|saturday)\b/gi;
const DAY_WORDS =
  /\b(the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight|this (?:morning|afternoon|evening)|tomorrow)\b/gi;
const MONTH_ALONE = new RegExp(
  `\\b(?:in|during|since|until|by|early|late|mid|of)\\s+(?:early\\s+|late\\s+|mid-?)?${MONTH}\\b(?!\\.?,?\\s*\\d)`,
  'gi',
);

function monthIndex(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase());
}

function dayWindow(y: number, m: number, d: number): DateWindow | undefined {
  const start = Date.UTC(y, m, d);
  const check = new Date(start);
  // 31 February and the like name no day.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m || check.getUTCDate() !== d) return undefined;
  return { start, end: Date.UTC(y, m, d + 1) };
}

function monthWindow(y: number, m: number): DateWindow {
  return { start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) };
}

function yearWindow(y: number): DateWindow {
  return { start: Date.UTC(y, 0, 1), end: Date.UTC(y + 1, 0, 1) };
}

/** The UTC day of `ref` as [y, m, d]. */
function ymd(ref: Date): [number, number, number] {
  return [ref.getUTCFullYear(), ref.getUTCMonth(), ref.getUTCDate()];
}

/** The window `n` units before (negative: after) the reference day: that day, ISO week (Mon–Sun), month or year. */
function unitsBefore(ref: Date, n: number, unit: string): DateWindow {
  const [y, m, d] = ymd(ref);
  switch (unit.toLowerCase()) {
    case 'day':
      return dayWindow(y, m, d - n) ?? { start: Date.UTC(y, m, d - n), end: Date.UTC(y, m, d - n + 1) };
    case 'week': {
      const monday = d - ((ref.getUTCDay() + 6) % 7) - 7 * n;
      return { start: Date.UTC(y, m, monday), end: Date.UTC(y, m, monday + 7) };
    }
    case 'month':
      return monthWindow(y, m - n);
    default:
      return yearWindow(y - n);
  }
}

/** The span of the `n` units up to and including the reference day ("for 3 years", "the past two weeks"). */
function spanUpTo(ref: Date, n: number, unit: string): DateWindow {
  const [y, m, d] = ymd(ref);
  const end = Date.UTC(y, m, d + 1);
  const u = unit.toLowerCase();
  const start =
    u === 'day'
      ? Date.UTC(y, m, d - n + 1)
      : u === 'week'
        ? Date.UTC(y, m, d - 7 * n + 1)
        : u === 'month'
          ? Date.UTC(y, m - n, d)
          : Date.UTC(y - n, m, d);
  return { start, end };
}

function shiftedPeriod(ref: Date, which: string, period: string): DateWindow {
  const shift = { last: 1, past: 1, this: 0, next: -1, coming: -1 }[which.toLowerCase()] ?? 0;
  if (period.toLowerCase() !== 'weekend') return unitsBefore(ref, shift, period);
  // The weekend of the week `shift` weeks before the reference one (Saturday and Sunday).
  const week = unitsBefore(ref, shift, 'week');
  return { start: week.start + 5 * DAY_MS, end: week.end };
}

function weekday(ref: Date, which: string, name: string): DateWindow {
  const [y, m, d] = ymd(ref);
  const target = (WEEKDAYS as readonly string[]).indexOf(name.toLowerCase());
  const today = ref.getUTCDay();
  const w = which.toLowerCase();
  let delta: number;
  if (w === 'next') delta = ((target - today + 7) % 7 || 7) as number;
  else if (w === 'this') delta = target - today;
  else delta = -((today - target + 7) % 7 || 7); // last / past / on: the most recent one before the reference day
  return { start: Date.UTC(y, m, d + delta), end: Date.UTC(y, m, d + delta + 1) };
}

function dayWord(ref: Date, phrase: string): DateWindow {
  const p = phrase.toLowerCase();
  const offset = p.startsWith('the day before')
    ? 2
    : p.startsWith('the day after')
      ? -2
      : p === 'yesterday' || p === 'last night'
        ? 1
        : p === 'tomorrow'
          ? -1
          : 0;
  return unitsBefore(ref, offset, 'day');
}

/** A month named without a year: the last one up to the reference date. */
function lastMonthNamed(ref: Date, name: string): DateWindow {
  const [y, m] = ymd(ref);
  const mo = monthIndex(name);
  return monthWindow(mo <= m ? y : y - 1, mo);
}

type Rule = [RegExp, (m: RegExpExecArray) => DateWindow | undefined];

function absoluteRules(): Rule[] {
  return [
    [ISO, (m) => dayWindow(Number(m[1]), Number(m[2]) - 1, Number(m[3]))],
    [DAY_MONTH_YEAR, (m) => dayWindow(Number(m[3]), monthIndex(m[2]!), Number(m[1]))],
    [MONTH_DAY_YEAR, (m) => dayWindow(Number(m[3]), monthIndex(m[1]!), Number(m[2]))],
    [MONTH_YEAR, (m) => monthWindow(Number(m[2]), monthIndex(m[1]!))],
  ];
}

function relativeRules(ref: Date): Rule[] {
  const [y] = ymd(ref);
  return [
    [DAY_WORDS, (m) => dayWord(ref, m[1]!)],
    [AGO, (m) => (Number.isFinite(countOf(m[1]!)) ? unitsBefore(ref, countOf(m[1]!), m[2]!) : undefined)],
    [FOR_DURATION, (m) => (Number.isFinite(countOf(m[1]!)) ? spanUpTo(ref, countOf(m[1]!), m[2]!) : undefined)],
    [PAST_DURATION, (m) => (Number.isFinite(countOf(m[1]!)) ? spanUpTo(ref, countOf(m[1]!), m[2]!) : undefined)],
    [SINCE_YEAR, (m) => (Number(m[1]) <= y ? { start: Date.UTC(Number(m[1]), 0, 1), end: unitsBefore(ref, 0, 'day').end } : undefined)],
    [SHIFTED_PERIOD, (m) => shiftedPeriod(ref, m[1]!, m[2]!)],
    [WEEKDAY, (m) => weekday(ref, m[1]!, m[2]!)],
    // "in May": the modal verb "may" is never capitalized mid-sentence, the month is.
    [MONTH_ALONE, (m) => (/may/i.test(m[1]!) && m[1] !== 'May' ? undefined : lastMonthNamed(ref, m[1]!))],
  ];
}

export interface FoundDates {
  windows: DateWindow[];
  /** The text with every date expression found blanked out (same length, so positions hold). */
  rest: string;
}

/**
 * The windows of the dates `text` names, in the order found (absolute first, most specific
 * patterns first), and the text without them. With `ref`, relative expressions are resolved
 * against that date; without it only absolute dates (with a year) are read.
 */
export function findDates(text: string, ref?: Date): FoundDates {
  if (typeof text !== 'string' || text === '') return { windows: [], rest: typeof text === 'string' ? text : '' };
  let rest = text.slice(0, 20_000);
  const windows: DateWindow[] = [];
  const run = (re: RegExp, toWindow: (m: RegExpExecArray) => DateWindow | undefined): void => {
    re.lastIndex = 0;
    const found: RegExpExecArray[] = [];
    for (let m = re.exec(rest); m; m = re.exec(rest)) found.push(m);
    for (const m of found) {
      const w = toWindow(m);
      if (w && w.end > w.start) windows.push(w);
      // Blanked even when it names no day ("31 February 2023"), so no later pattern reads part of it.
      rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length);
    }
  };
  const refOk = ref !== undefined && Number.isFinite(ref.getTime());
  for (const [re, f] of absoluteRules()) run(re, f);
  if (refOk) for (const [re, f] of relativeRules(ref)) run(re, f);
  run(YEAR_ONLY, (m) => yearWindow(Number(m[1])));
  return { windows, rest };
}

/** Windows as stored (memories.time_refs): distinct, in order, at most {@link MAX_TIME_REFS}, as ISO day pairs. */
export function timeRefsJson(windows: readonly DateWindow[]): string {
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const w of windows) {
    const pair: [string, string] = [isoDay(w.start), isoDay(w.end)];
    const key = pair.join('/');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(pair);
    if (out.length >= MAX_TIME_REFS) break;
  }
  return JSON.stringify(out);
}

/** The stored `time_refs` JSON back as windows; anything unreadable is left out. */
export function parseTimeRefs(json: unknown): DateWindow[] {
  if (typeof json !== 'string' || json === '[]' || json === '') return [];
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(v)) return [];
  const out: DateWindow[] = [];
  for (const p of v) {
    if (!Array.isArray(p) || p.length !== 2) continue;
    const start = Date.parse(String(p[0]));
    const end = Date.parse(String(p[1]));
    if (Number.isFinite(start) && Number.isFinite(end) && end > start) out.push({ start, end });
  }
  return out;
}

/** The days a stored text refers to, resolved against `writtenAt` (the memory's created_at), as stored JSON. */
export function timeRefsOf(text: string, writtenAt: string | Date | undefined): string {
  const ref = typeof writtenAt === 'string' ? new Date(writtenAt) : writtenAt;
  return timeRefsJson(findDates(text, ref && Number.isFinite(ref.getTime()) ? ref : undefined).windows);
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
