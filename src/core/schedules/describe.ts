/**
 * Schedules in words, in the schedule's own time zone (docs/schedules.md "In words"): the cadence
 * ("every weekday at 09:00 Europe/Berlin"), a due time ("tomorrow 09:00", "Monday 10:00",
 * "in 25 minutes") and both together ("…, next tomorrow 09:00"). English, like every sentence
 * people read; vscode-free, so the CLI, the MCP server and VS Code say the same.
 */
import { durationWords, relativeTime } from '../text/timeWords';
import type { Notice, Reminders, ScheduleCadence, ScheduleDefinition, ScheduleRunRecord } from './types';
import { plural } from '../text/plural';
import { truncateLine as truncate } from '../text/truncate';
import { wallTime, type WallTime } from './zoned';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const hhmm = (w: Pick<WallTime, 'hour' | 'minute'>) => `${pad(w.hour)}:${pad(w.minute)}`;

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}

/**
 * "every weekday at 09:00", "every Monday and Thursday at 10:00", "on the 1st of every month at
 * 09:00"; the expression itself when it is none of those.
 */
function cronWords(expr: string): string {
  const f = expr.split(' ');
  if (f.length !== 5) return `on the cron schedule "${expr}"`;
  const [min, hour, dom, month, dow] = f as [string, string, string, string, string];
  const fixedTime = /^\d+$/.test(min) && /^\d+$/.test(hour);
  if (min === '0' && hour === '*' && dom === '*' && month === '*' && dow === '*') return 'every hour';
  if (!fixedTime || month !== '*') return `on the cron schedule "${expr}"`;
  const at = `at ${hhmm({ hour: Number(hour), minute: Number(min) })}`;
  if (dom === '*') {
    const days = dowWords(dow);
    return days ? `${days} ${at}` : `on the cron schedule "${expr}"`;
  }
  if (dow !== '*') return `on the cron schedule "${expr}"`;
  if (dom === 'L') return `on the last day of every month ${at}`;
  if (/^\d+$/.test(dom)) return `on the ${ordinal(Number(dom))} of every month ${at}`;
  return `on the cron schedule "${expr}"`;
}

function dowWords(dow: string): string | undefined {
  if (dow === '*') return 'every day';
  if (dow === '1-5') return 'every weekday';
  if (dow === '0,6' || dow === '6,0') return 'every Saturday and Sunday';
  if (!/^[0-7](,[0-7])*$/.test(dow)) return undefined;
  const names = [...new Set(dow.split(',').map((d) => DAY_NAMES[Number(d) % 7]!))];
  return `every ${names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]}`;
}

/** The cadence in words, with its zone: "every weekday at 09:00 Europe/Berlin", "once, on Tue 1 Jul 2026 at 09:00 UTC". */
export function describeCadence(c: ScheduleCadence): string {
  if (c.kind === 'cron') return `${cronWords(c.expr)} ${c.timezone}`;
  if (c.kind === 'once') return `once, ${absoluteWords(new Date(c.at), c.timezone)} ${c.timezone}`;
  return `every ${durationWords(c.everySeconds)}`;
}

/** "on Tue 1 Jul 2026 at 09:00" in `zone`. */
function absoluteWords(d: Date, zone: string): string {
  const w = wallTime(d, zone);
  return `on ${DAY_NAMES[w.weekday]!.slice(0, 3)} ${w.day} ${MONTH_NAMES[w.month - 1]} ${w.year} at ${hhmm(w)}`;
}

/** Within the hour a due time reads relative ("in 25 minutes"). */
const HOUR = 3_600_000;

/**
 * A due time as people say it, in `zone`: "in 25 minutes" within the hour, else "today 17:00",
 * "tomorrow 09:00", "Monday 10:00" within the week, "1 Jul 09:00" this year, "1 Jul 2027 09:00";
 * past times the same way ("yesterday 09:00", "5 minutes ago").
 */
export function whenWords(at: Date | string, zone: string, now: Date): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(d.getTime())) return String(at);
  const ms = d.getTime() - now.getTime();
  if (Math.abs(ms) < HOUR) return relativeTime(d, now);
  const w = wallTime(d, zone);
  const today = wallTime(now, zone);
  const days = Math.round((Date.UTC(w.year, w.month - 1, w.day) - Date.UTC(today.year, today.month - 1, today.day)) / 86_400_000);
  const time = hhmm(w);
  if (days === 0) return `today ${time}`;
  if (days === 1) return `tomorrow ${time}`;
  if (days === -1) return `yesterday ${time}`;
  if (days > 1 && days < 7) return `${DAY_NAMES[w.weekday]} ${time}`;
  if (days < 0 && days > -7) return `last ${DAY_NAMES[w.weekday]} ${time}`;
  return `${w.day} ${MONTH_NAMES[w.month - 1]}${w.year === today.year ? '' : ` ${w.year}`} ${time}`;
}

/** "every weekday at 09:00 Europe/Berlin, next tomorrow 09:00"; paused and completed schedules say so. */
export function describeSchedule(s: ScheduleDefinition, now: Date): string {
  const cadence = describeCadence(s.cadence);
  if (s.status === 'completed') return `${cadence}, done`;
  if (s.status === 'paused') return `${cadence}, paused${s.pauseReason ? `: ${s.pauseReason}` : ''}`;
  if (!s.nextRunAt) return cadence;
  const retry = s.nextTrigger === 'retry' ? ' (a retry after a failed run)' : s.nextTrigger === 'snooze' ? ' (snoozed)' : '';
  return `${cadence}, next ${whenWords(s.nextRunAt, s.cadence.timezone, now)}${retry}`;
}

/** A run's outcome in a few words: "ran today 09:00", "failed yesterday 09:00: <error>", "ran late …". */
export function describeRun(r: ScheduleRunRecord, zone: string, now: Date): string {
  const when = whenWords(r.startedAt, zone, now);
  const late = r.late ? ` (late${r.missed > 0 ? `, for ${r.missed + 1} due times missed while nothing ran` : ''})` : '';
  if (r.status === 'running') return `running since ${when}`;
  if (r.status === 'succeeded') return `ran ${when}${late}`;
  if (r.status === 'interrupted') return `interrupted ${when}: the process running it stopped`;
  return `failed ${when}${late}${r.error ? `: ${r.error}` : ''}`;
}

/** A schedule's state as a list shows it (the Schedules view: its actions and icon). */
export function scheduleState(s: ScheduleDefinition): 'running' | 'failing' | 'active' | 'paused' | 'completed' {
  if (s.runningRunId) return 'running';
  if (s.status === 'active') return s.consecutiveFailures > 0 ? 'failing' : 'active';
  return s.status;
}

/**
 * The row's description: "next tomorrow 09:00 Europe/Berlin", "retry in 4 minutes Europe/Berlin ·
 * 2 failed runs", "the reason it is paused", "done", "running now".
 */
export function scheduleRowDescription(s: ScheduleDefinition, now: Date): string {
  const zone = s.cadence.timezone;
  switch (scheduleState(s)) {
    case 'running':
      return 'running now';
    case 'completed':
      return 'done';
    case 'paused':
      // The store's reasons start with "Paused …" ("Paused after 3 failed runs in a row. …").
      if (!s.pauseReason) return 'paused';
      return /^paused\b/i.test(s.pauseReason) ? truncate(s.pauseReason, 100) : `paused: ${truncate(s.pauseReason, 90)}`;
    case 'failing':
      return `${s.nextRunAt ? `retry ${whenWords(s.nextRunAt, zone, now)} ${zone} · ` : ''}${plural(s.consecutiveFailures, 'failed run')} in a row`;
    default:
      return s.nextRunAt ? `next ${whenWords(s.nextRunAt, zone, now)} ${zone}${s.nextTrigger === 'snooze' ? ' (snoozed)' : ''}` : '';
  }
}

/** A schedule's name, else the start of its goal, on one line. */
export function scheduleLabel(s: Pick<ScheduleDefinition, 'name' | 'goal'>, max = 80): string {
  const label = (s.name ?? s.goal).replace(/\s+/g, ' ').trim();
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}

/**
 * Reminders as lines for an agent's briefing (the project context, the session-start hook):
 * "- due tomorrow 09:00: <goal> (every weekday at 09:00 Europe/Berlin; schedule <id>)" and
 * "- ran today 09:00: <goal> — <summary>". The text is the schedules' own: callers put it
 * inside the recall markers, as data.
 */
export function reminderLines(r: Reminders, now: Date, summaryChars = 300): string[] {
  const due = r.dueSoon.map(
    (s) =>
      `- due ${s.nextRunAt ? whenWords(s.nextRunAt, s.cadence.timezone, now) : 'now'}: ${oneLine(s.goal)} ` +
      `(${describeCadence(s.cadence)}; schedule ${s.id})`,
  );
  const recent = r.recent.map(({ schedule, run }) => {
    const summary = run.outputSummary ? ` — ${oneLine(run.outputSummary).slice(0, summaryChars)}` : '';
    return `- ${describeRun(run, schedule.cadence.timezone, now)}: ${scheduleLabel(schedule)}${summary} (run ${run.id})`;
  });
  return [...due, ...recent];
}

const oneLine = (t: string) => t.replace(/\s+/g, ' ').trim();

/**
 * A run's notice, one sentence for a notification: "Reminder “flag cleanup” ran today 09:00:
 * Remove the new-checkout flag…" (its summary's start); a failed run says why and what happens next.
 */
export function noticeText(n: Notice, now: Date, max = 220): string {
  const { schedule: s, run } = n;
  const head = `Reminder “${scheduleLabel(s, 60)}” ${describeRun(run, s.cadence.timezone, now)}`;
  const next =
    s.status === 'paused'
      ? ` It is paused: ${s.pauseReason ?? 'resume it to run again'}`
      : run.status !== 'succeeded' && s.nextRunAt
        ? ' It runs again as a retry.'
        : '';
  const body = run.status === 'succeeded' && run.outputSummary ? `: ${oneLine(run.outputSummary)}` : '.';
  const text = `${head}${body}${next}`;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A run as a Markdown document (Open on a notice, the run history): the schedule, the run, its whole output. */
export function runDocument(s: ScheduleDefinition, runs: ScheduleRunRecord[], now: Date): string {
  const lines = [`# ${scheduleLabel(s, 120)}`, '', `${describeSchedule(s, now)}.`, '', `Goal: ${s.goal}`];
  for (const r of runs) {
    lines.push('', `## ${describeRun(r, s.cadence.timezone, now)}`, '');
    lines.push(r.output ? r.output : r.error ? `Error: ${r.error}` : '(no output)');
  }
  if (!runs.length) lines.push('', 'No runs yet.');
  return lines.join('\n');
}
