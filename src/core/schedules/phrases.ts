/**
 * Simple phrases people write for "when" turned into cadences (docs/schedules.md "Phrases"):
 * "in 2 hours", "tomorrow at 9", "on 1 July at 14:30", "after the 1st", "next Friday",
 * "every Monday at 10", "every weekday at 09:00", "every day at 8:30", "every 2 hours",
 * "on the 1st of every month", plus a five-field cron expression or an ISO date and time as they
 * are. A fixed grammar of our own, read in the caller's time zone; what it does not understand is
 * an error that shows what it does. Hours are 24-hour unless am/pm says otherwise; a day without
 * a time means 09:00.
 */
import { UserFacingError } from '../util/errors';
import { shownValue } from '../util/shownValue';
import { WEEKDAYS, countOf } from '../text/countWords';
import type { ScheduleCadence } from './types';
import { addDays, daysInMonth, isTimeZone, localTimeZone, wallTime, zonedInstant, type WallTime } from './zoned';

export const PHRASE_EXAMPLES = [
  'in 2 hours',
  'tomorrow at 9',
  'on 1 July at 14:30',
  'next Friday',
  'every Monday at 10',
  'every weekday at 09:00',
  'every day at 8:30',
  'every 2 hours',
  'on the 1st of every month',
  '0 9 * * 1-5',
] as const;

interface Ctx {
  now: Date;
  zone: string;
  today: WallTime;
}

type Rule = { re: RegExp; build: (m: RegExpExecArray, ctx: Ctx) => ScheduleCadence };

const DEFAULT_TIME = { hour: 9, minute: 0 };
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const UNIT_SECONDS: Readonly<Record<string, number>> = { minute: 60, hour: 3600, day: 86_400, week: 604_800 };

// Pieces of the grammar, as regular-expression sources.
const TIME = String.raw`(?:at\s+)?(noon|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm)?)`;
const AT_TIME = String.raw`(?:\s+(?:at\s+)?(noon|midnight|\d{1,2}(?::\d{2})?\s*(?:am|pm)?|morning|evening))?`;
/** One day of the week; a plural ("mondays") means every one of them. */
const WEEKDAY_ONE = String.raw`(sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wed|thurs|thur|thu|fri|sat)`;
const WEEKDAY_ANY = String.raw`(?:sunday|monday|tuesday|wednesday|thursday|friday|saturday|sun|mon|tues|tue|wed|thurs|thur|thu|fri|sat)s?`;
const WEEKDAY_LIST = String.raw`(${WEEKDAY_ANY}(?:\s*(?:,|and|&)\s*${WEEKDAY_ANY})*)`;
const ORDINAL = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
const MONTH = String.raw`(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?`;
const AMOUNT = String.raw`(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty)`;
const UNIT = String.raw`(minute|min|hour|hr|h|day|week)s?`;
const EVERY_WEEKDAYS = String.raw`^(?:(?:every|each|on)\s+)?${WEEKDAY_LIST}`;

const bad = (reason: string) => new UserFacingError(`when: ${reason}`, 'invalid_input');

const NAMED_TIMES: Readonly<Record<string, { hour: number; minute: number }>> = {
  noon: { hour: 12, minute: 0 },
  midnight: { hour: 0, minute: 0 },
  morning: DEFAULT_TIME,
  evening: { hour: 18, minute: 0 },
};

/** "9", "9am", "9:30 pm", "17:05", "noon", "morning" → hour and minute. */
function timeOf(text: string | undefined): { hour: number; minute: number } {
  if (!text) return DEFAULT_TIME;
  const t = text.trim();
  const named = NAMED_TIMES[t];
  if (named) return named;
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(t);
  if (!m) throw bad(`${shownValue(t)} is not a time: give 9, 9:30, 17:00, 5pm, noon or midnight`);
  const hour = twelveHour(Number(m[1]), m[3], t);
  const minute = Number(m[2] ?? 0);
  if (hour > 23 || minute > 59) throw bad(`${shownValue(t)} is not a time: give 9, 9:30, 17:00, 5pm, noon or midnight`);
  return { hour, minute };
}

/** The 24-hour hour of "5pm", "12am"; without am/pm the hour as it is. */
function twelveHour(hour: number, half: string | undefined, shown: string): number {
  if (!half) return hour;
  if (hour < 1 || hour > 12) throw bad(`${shownValue(shown)} is not a time (with am or pm the hour is 1 to 12)`);
  if (half === 'pm') return hour === 12 ? 12 : hour + 12;
  return hour === 12 ? 0 : hour;
}

function weekdayIndex(word: string): number {
  return WEEKDAYS.findIndex((d) => d.startsWith(word.slice(0, 3)));
}

function monthIndex(word: string): number {
  return MONTHS.findIndex((m) => m.startsWith(word.slice(0, 3))) + 1;
}

/** A wall-clock day and time in the context's zone as a one-shot cadence. */
function onceAt(ctx: Ctx, day: { year: number; month: number; day: number }, time: { hour: number; minute: number }): ScheduleCadence {
  const at = zonedInstant({ ...day, ...time }, ctx.zone);
  if (!at) throw bad(`${day.year}-${day.month}-${day.day} is not a date on the calendar`);
  if (at.getTime() <= ctx.now.getTime())
    throw bad(`that time has already passed today; say "tomorrow at ${time.hour}:${String(time.minute).padStart(2, '0')}" or give a date`);
  return { kind: 'once', at: at.toISOString(), timezone: ctx.zone };
}

function cronAt(ctx: Ctx, time: { hour: number; minute: number }, dom: string, dow: string): ScheduleCadence {
  return { kind: 'cron', expr: `${time.minute} ${time.hour} ${dom} * ${dow}`, timezone: ctx.zone };
}

/** The next day (after today) that is one of `weekday`. */
function nextWeekday(ctx: Ctx, weekday: number): { year: number; month: number; day: number } {
  const ahead = (weekday - ctx.today.weekday + 7) % 7 || 7;
  return addDays(ctx.today, ahead);
}

/** The next calendar day numbered `dom` (today included when the time is still ahead), skipping months too short for it. */
function nextDayOfMonth(ctx: Ctx, dom: number, time: { hour: number; minute: number }): { year: number; month: number; day: number } {
  if (dom < 1 || dom > 31) throw bad(`there is no day ${dom} in a month`);
  let { year, month } = ctx.today;
  for (let i = 0; i < 24; i++) {
    if (dom <= daysInMonth(year, month)) {
      const at = zonedInstant({ year, month, day: dom, ...time }, ctx.zone);
      if (at && at.getTime() > ctx.now.getTime()) return { year, month, day: dom };
    }
    month = (month % 12) + 1;
    if (month === 1) year++;
  }
  throw bad(`no month has a day ${dom}`);
}

/** A date named by month and day (and maybe year): the next one from today when no year is given. */
function namedDate(ctx: Ctx, month: number, day: number, year: number | undefined, time: { hour: number; minute: number }) {
  if (year !== undefined) return { year, month, day };
  for (const y of [ctx.today.year, ctx.today.year + 1, ctx.today.year + 2, ctx.today.year + 3, ctx.today.year + 4]) {
    if (day > daysInMonth(y, month)) continue; // 29 February: the next leap year
    const at = zonedInstant({ year: y, month, day, ...time }, ctx.zone);
    if (at && at.getTime() > ctx.now.getTime()) return { year: y, month, day };
  }
  throw bad(`there is no ${day} ${MONTHS[month - 1]}`);
}

function dowList(list: string): string {
  const days = [
    ...new Set(
      list
        .split(/\s*(?:,|and|&)\s*|\s+/)
        .filter(Boolean)
        .map(weekdayIndex),
    ),
  ].sort((a, b) => a - b);
  return days.join(',');
}

/** The rules, tried in order; each matches the whole phrase. */
const RULES: Rule[] = [
  {
    re: new RegExp(String.raw`^in\s+(?:${AMOUNT}\s*${UNIT}|(half an hour))$`),
    build: (m, ctx) => {
      const seconds = m[3] ? 1800 : countOf(m[1]!) * (UNIT_SECONDS[unitName(m[2]!)] ?? NaN);
      if (!Number.isFinite(seconds) || seconds <= 0) throw bad(`${shownValue(m[0])} is not a time from now`);
      return { kind: 'once', at: new Date(ctx.now.getTime() + seconds * 1000).toISOString(), timezone: ctx.zone };
    },
  },
  {
    re: new RegExp(`^(?:today\\s+|tonight\\s+)?at\\s+${TIME.replace('(?:at\\s+)?', '')}$`),
    build: (m, ctx) => onceAt(ctx, ctx.today, timeOf(m[1])),
  },
  { re: new RegExp(`^(?:today|tonight)${AT_TIME}$`), build: (m, ctx) => onceAt(ctx, ctx.today, timeOf(m[1] ?? 'evening')) },
  { re: new RegExp(`^tomorrow${AT_TIME}$`), build: (m, ctx) => onceAt(ctx, addDays(ctx.today, 1), timeOf(m[1])) },
  {
    re: new RegExp(`^(?:on\\s+|next\\s+|this\\s+)?${WEEKDAY_ONE}${AT_TIME}$`),
    build: (m, ctx) => onceAt(ctx, nextWeekday(ctx, weekdayIndex(m[1]!)), timeOf(m[2])),
  },
  {
    re: new RegExp(String.raw`^(?:on\s+)?(\d{4})-(\d{2})-(\d{2})${AT_TIME}$`),
    build: (m, ctx) => onceAt(ctx, { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, timeOf(m[4])),
  },
  {
    re: new RegExp(String.raw`^(?:on\s+)?(?:the\s+)?${ORDINAL}(?:\s+of)?\s+${MONTH}(?:,?\s+(\d{4}))?${AT_TIME}$`),
    build: (m, ctx) => dated(ctx, monthIndex(m[2]!), Number(m[1]), m[3], m[4]),
  },
  {
    re: new RegExp(String.raw`^(?:on\s+)?${MONTH}\s+${ORDINAL}(?:,?\s+(\d{4}))?${AT_TIME}$`),
    build: (m, ctx) => dated(ctx, monthIndex(m[1]!), Number(m[2]), m[3], m[4]),
  },
  {
    re: new RegExp(String.raw`^(?:on\s+)?the\s+${ORDINAL}${AT_TIME}$`),
    build: (m, ctx) => {
      const time = timeOf(m[2]);
      return onceAt(ctx, nextDayOfMonth(ctx, Number(m[1]), time), time);
    },
  },
  {
    re: new RegExp(String.raw`^after\s+(?:the\s+)?${ORDINAL}(?:\s+of\s+${MONTH})?${AT_TIME}$`),
    build: (m, ctx) => {
      const time = timeOf(m[3]);
      const day = m[2] ? namedDate(ctx, monthIndex(m[2]), Number(m[1]), undefined, time) : nextDayOfMonth(ctx, Number(m[1]), time);
      return onceAt(ctx, addDays(day, 1), time);
    },
  },
  {
    re: new RegExp(`^(?:every\\s+day|each\\s+day|daily|every\\s+morning)${AT_TIME}$`),
    build: (m, ctx) => cronAt(ctx, timeOf(m[1]), '*', '*'),
  },
  { re: new RegExp(`^(?:every\\s+weekday|on\\s+weekdays|weekdays)${AT_TIME}$`), build: (m, ctx) => cronAt(ctx, timeOf(m[1]), '*', '1-5') },
  {
    re: new RegExp(`^(?:every\\s+weekend(?:\\s+day)?|on\\s+weekends|weekends)${AT_TIME}$`),
    build: (m, ctx) => cronAt(ctx, timeOf(m[1]), '*', '0,6'),
  },
  {
    re: new RegExp(`${EVERY_WEEKDAYS}${AT_TIME}$`),
    build: (m, ctx) => cronAt(ctx, timeOf(m[m.length - 1]), '*', dowList(m[1]!)),
  },
  {
    re: new RegExp(
      String.raw`^(?:(?:every\s+month|monthly)\s+on\s+the\s+${ORDINAL}|on\s+the\s+${ORDINAL}\s+of\s+every\s+month)${AT_TIME}$`,
    ),
    build: (m, ctx) => monthly(ctx, Number(m[1] ?? m[2]), m[3]),
  },
  {
    re: new RegExp(`^(?:on\\s+)?the\\s+last\\s+day\\s+of\\s+(?:every|each|the)\\s+month${AT_TIME}$`),
    build: (m, ctx) => cronAt(ctx, timeOf(m[1]), 'L', '*'),
  },
  { re: /^(?:every\s+hour|hourly)$/, build: (_m, ctx) => ({ kind: 'cron', expr: '0 * * * *', timezone: ctx.zone }) },
  {
    re: new RegExp(String.raw`^every\s+${AMOUNT}\s+${UNIT}$`),
    build: (m, ctx) => {
      const seconds = countOf(m[1]!) * (UNIT_SECONDS[unitName(m[2]!)] ?? NaN);
      return {
        kind: 'interval',
        everySeconds: seconds,
        anchor: new Date(ctx.now.getTime() + seconds * 1000).toISOString(),
        timezone: ctx.zone,
      };
    },
  },
];

function unitName(u: string): string {
  if (u.startsWith('min')) return 'minute';
  if (u.startsWith('h')) return 'hour';
  return u;
}

function dated(ctx: Ctx, month: number, day: number, year: string | undefined, time: string | undefined): ScheduleCadence {
  const t = timeOf(time);
  return onceAt(ctx, namedDate(ctx, month, day, year === undefined ? undefined : Number(year), t), t);
}

function monthly(ctx: Ctx, dom: number, time: string | undefined): ScheduleCadence {
  if (dom < 1 || dom > 31) throw bad(`there is no day ${dom} in a month`);
  return cronAt(ctx, timeOf(time), String(dom), '*');
}

/** Five fields whose first (the minute) is numbers, `*`, steps, lists or ranges: five words of a phrase are not cron. */
const CRON_FIELDS = /^[\d*][\d*/,-]*(\s+\S+){4}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * The cadence a phrase says, read in `timezone` (default: this machine's) at `now`. Throws
 * invalid_input with the phrases it understands when it understands none.
 */
export function parsePhrase(phrase: string, opts: { now: Date; timezone?: string }): ScheduleCadence {
  const zone = opts.timezone ?? localTimeZone();
  if (!isTimeZone(zone)) throw bad(`unknown time zone ${shownValue(zone)}: give an IANA zone name such as Europe/Berlin`);
  const raw = String(phrase ?? '').trim();
  if (!raw) throw bad(`say when, for example ${examples()}`);
  if (ISO_TIME.test(raw)) return { kind: 'once', at: new Date(raw).toISOString(), timezone: zone };
  const text = raw
    .toLowerCase()
    .replace(/[.!]+$/, '')
    .replace(/\s+/g, ' ')
    .replace(/^(?:remind me\s+)?/, '');
  const ctx: Ctx = { now: opts.now, zone, today: wallTime(opts.now, zone) };
  for (const rule of RULES) {
    const m = rule.re.exec(text);
    if (m) return rule.build(m, ctx);
  }
  if (CRON_FIELDS.test(raw)) return { kind: 'cron', expr: raw.replace(/\s+/g, ' '), timezone: zone };
  throw bad(`${shownValue(raw)} is not a time this understands. Try ${examples()}, a cron expression, or an ISO date and time`);
}

function examples(): string {
  return PHRASE_EXAMPLES.slice(0, -1)
    .map((e) => `"${e}"`)
    .join(', ');
}
