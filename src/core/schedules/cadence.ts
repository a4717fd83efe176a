/**
 * Cadence evaluation (docs/schedules.md "Cadences"): the next run of a cadence after a time,
 * validation at create and edit (errors that say what is wrong), and cadences built from tool
 * arguments. Cron expressions are croner's (no hand-written parser): five fields read in the
 * schedule's IANA zone; croner follows Vixie cron over daylight saving — a fixed time in a gap
 * runs at the first valid time after it, one that occurs twice runs once, a stepped or ranged
 * time skips the gap and runs in both passes of a repeated hour.
 */
import { Cron } from 'croner';
import { UserFacingError, errorMessage } from '../util/errors';
import { shownValue } from '../util/shownValue';
import { parseLifetimeSeconds } from '../lifecycle/lifetimeText';
import { durationWords } from '../text/timeWords';
import { CADENCE_KINDS, SCHEDULE_LIMITS, type CadenceKind, type ScheduleCadence } from './types';
import { isTimeZone, localTimeZone, zonedInstant } from './zoned';

const invalid = (reason: string) => new UserFacingError(`cadence: ${reason}`, 'invalid_input');

/** Runs looked at to find the shortest gap of a cron expression. */
const GAP_SAMPLE = 12;
/** Due times counted at most when telling how many were missed. */
const MISSED_COUNT_CAP = 1000;

function cron(expr: string, timezone: string): Cron {
  return new Cron(expr, { timezone, paused: true, mode: '5-part' });
}

/** The first due time strictly after `after`; undefined when the cadence has no more (a one-shot that passed). */
export function nextRunForCadence(c: ScheduleCadence, after: Date): Date | undefined {
  switch (c.kind) {
    case 'cron':
      return cron(c.expr, c.timezone).nextRun(after) ?? undefined;
    case 'once': {
      const at = new Date(c.at);
      return at.getTime() > after.getTime() ? at : undefined;
    }
    case 'interval': {
      const anchor = Date.parse(c.anchor);
      const every = c.everySeconds * 1000;
      if (after.getTime() < anchor) return new Date(anchor);
      const k = Math.floor((after.getTime() - anchor) / every) + 1;
      return new Date(anchor + k * every);
    }
  }
}

/**
 * How many due times of `c` fall after `from` and at or before `until` (capped at 1000): the
 * runs a late run stands for.
 */
export function dueTimesBetween(c: ScheduleCadence, from: Date, until: Date): number {
  if (c.kind === 'once') return 0;
  if (c.kind === 'interval') {
    const every = c.everySeconds * 1000;
    return Math.min(MISSED_COUNT_CAP, Math.max(0, Math.floor((until.getTime() - from.getTime()) / every)));
  }
  const job = cron(c.expr, c.timezone);
  let n = 0;
  for (let t = job.nextRun(from); t && t.getTime() <= until.getTime() && n < MISSED_COUNT_CAP; t = job.nextRun(t)) n++;
  return n;
}

export interface ValidateOptions {
  now: Date;
  /** Shortest time between two runs of a recurring cadence (default SCHEDULE_LIMITS.minIntervalSeconds). */
  minIntervalSeconds?: number;
}

/**
 * Checks a cadence for create and edit: the shape, the zone, a cron expression croner accepts
 * that fires at all and never more often than the minimum, a one-shot in the future, an interval
 * of at least the minimum. Throws invalid_input with a sentence saying what is wrong.
 */
export function validateCadence(c: ScheduleCadence, opts: ValidateOptions): ScheduleCadence {
  if (!c || typeof c !== 'object' || !CADENCE_KINDS.includes(c.kind))
    throw invalid(`must be a cron, once or interval cadence, got ${shownValue((c as { kind?: unknown })?.kind ?? c)}`);
  checkZone(c.timezone);
  const min = opts.minIntervalSeconds ?? SCHEDULE_LIMITS.minIntervalSeconds;
  if (c.kind === 'cron') return validateCron(c, opts.now, min);
  if (c.kind === 'once') return validateOnce(c, opts.now);
  return validateInterval(c, min);
}

function checkZone(zone: unknown): void {
  if (typeof zone !== 'string' || !isTimeZone(zone))
    throw invalid(`unknown time zone ${shownValue(zone)}: give an IANA zone name such as Europe/Berlin, America/New_York or UTC`);
}

function validateCron(c: Extract<ScheduleCadence, { kind: 'cron' }>, now: Date, minSeconds: number): ScheduleCadence {
  if (typeof c.expr !== 'string' || !c.expr.trim()) throw invalid('the cron expression is empty');
  const expr = c.expr.trim().replace(/\s+/g, ' ');
  let runs: Date[];
  try {
    runs = cron(expr, c.timezone).nextRuns(GAP_SAMPLE, now);
  } catch (e) {
    throw invalid(
      `${shownValue(expr)} is not a valid cron expression (${cronProblem(e)}). Five fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"`,
    );
  }
  if (!runs.length) throw invalid(`the cron expression ${shownValue(expr)} never fires (no such date, like 30 February)`);
  for (let i = 1; i < runs.length; i++) {
    const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / 1000;
    if (gap < minSeconds)
      throw invalid(`${shownValue(expr)} runs every ${durationWords(gap)}; the shortest time between runs is ${durationWords(minSeconds)}`);
  }
  return { kind: 'cron', expr, timezone: c.timezone };
}

/** croner's message without its class prefix ("CronPattern: Invalid value for minute: 61"). */
function cronProblem(e: unknown): string {
  return errorMessage(e)
    .replace(/^Cron\w*:\s*/, '')
    .replace(/\.$/, '');
}

function validateOnce(c: Extract<ScheduleCadence, { kind: 'once' }>, now: Date): ScheduleCadence {
  const at = typeof c.at === 'string' ? Date.parse(c.at) : NaN;
  if (Number.isNaN(at)) throw invalid(`the time ${shownValue(c.at)} is not a date and time (ISO 8601, like 2026-07-01T09:00:00Z)`);
  if (at <= now.getTime())
    throw invalid(`that time is in the past (${durationWords((now.getTime() - at) / 1000)} ago): give a time in the future`);
  return { kind: 'once', at: new Date(at).toISOString(), timezone: c.timezone };
}

function validateInterval(c: Extract<ScheduleCadence, { kind: 'interval' }>, minSeconds: number): ScheduleCadence {
  const every = c.everySeconds;
  if (typeof every !== 'number' || !Number.isSafeInteger(every) || every < 1)
    throw invalid(`the interval must be a whole number of seconds, got ${shownValue(every)}`);
  if (every < minSeconds)
    throw invalid(`every ${durationWords(every)} is too often: the shortest interval is ${durationWords(minSeconds)}`);
  const anchor = typeof c.anchor === 'string' ? Date.parse(c.anchor) : NaN;
  if (Number.isNaN(anchor)) throw invalid(`the first run ${shownValue(c.anchor)} is not a date and time`);
  return { kind: 'interval', everySeconds: every, anchor: new Date(anchor).toISOString(), timezone: c.timezone };
}

/**
 * A cadence from tool arguments (MCP, CLI, protocol): `cron` with an expression, `once` with a
 * time (an ISO time with a zone or offset, or a wall-clock time read in `timezone`), `interval`
 * with a duration ("90m", "2h", "1 day", or seconds), first due one interval from `now`.
 */
export function parseCadence(kind: CadenceKind, value: string, timezone: string | undefined, now: Date): ScheduleCadence {
  const zone = timezone ?? localTimeZone();
  checkZone(zone);
  const v = String(value ?? '').trim();
  if (!v) throw invalid(`give the ${kind === 'cron' ? 'cron expression' : kind === 'once' ? 'time' : 'interval'}`);
  if (kind === 'cron') return { kind, expr: v, timezone: zone };
  if (kind === 'once') return { kind, at: onceInstant(v, zone).toISOString(), timezone: zone };
  if (kind === 'interval') {
    const seconds = parseLifetimeSeconds(v);
    if (typeof seconds !== 'number')
      throw invalid(`${shownValue(v)} is not an interval: give a duration like "90m", "2h", "1 day" or seconds`);
    return { kind, everySeconds: seconds, anchor: new Date(now.getTime() + seconds * 1000).toISOString(), timezone: zone };
  }
  throw invalid(`must be one of ${CADENCE_KINDS.join(', ')}, got ${shownValue(kind)}`);
}

const WALL_ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** An ISO time with Z or an offset as it is; a wall-clock time (no zone) read in `zone`. */
function onceInstant(v: string, zone: string): Date {
  const wall = WALL_ISO.exec(v);
  if (wall) {
    const [, y, mo, d, h, mi] = wall.map(Number) as number[];
    const at = zonedInstant({ year: y!, month: mo!, day: d!, hour: h!, minute: mi! }, zone);
    if (!at) throw invalid(`${shownValue(v)} is not a date and time on the calendar`);
    return at;
  }
  const t = /[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(t))
    throw invalid(`${shownValue(v)} is not a time: give 2026-07-01T09:00 (read in ${zone}) or an ISO time with Z or an offset`);
  return new Date(t);
}
