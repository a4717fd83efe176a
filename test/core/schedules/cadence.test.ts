// Cadence math with a fake clock (every "now" is a fixed instant): cron in IANA zones across
// daylight-saving gaps and repeats, month ends and leap days, one-shots, intervals without
// drift, validation errors that say what is wrong, and times in words in the schedule's zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dueTimesBetween, nextRunForCadence, parseCadence, validateCadence } from '../../../src/core/schedules/cadence';
import { describeCadence, describeSchedule, whenWords } from '../../../src/core/schedules/describe';
import type { ScheduleCadence, ScheduleDefinition } from '../../../src/core/schedules/types';
import { UserFacingError } from '../../../src/core/util/errors';

const iso = (d: Date | undefined) => d?.toISOString();
const cron = (expr: string, timezone = 'Europe/Berlin'): ScheduleCadence => ({ kind: 'cron', expr, timezone });

/** The next `n` due times after `from`, each computed from the previous one (as runs do). */
function chain(c: ScheduleCadence, from: string, n: number): string[] {
  const out: string[] = [];
  let t = new Date(from);
  for (let i = 0; i < n; i++) {
    const next = nextRunForCadence(c, t);
    if (!next) break;
    out.push(next.toISOString());
    t = next;
  }
  return out;
}

function rejects(fn: () => unknown, re: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof UserFacingError, `a UserFacingError, got ${String(e)}`);
    assert.equal(e.code, 'invalid_input');
    assert.match(e.message, re);
    return true;
  });
}

test('a fixed daily time in a DST gap (Berlin, 30 March 2025: 02:00 → 03:00) runs once that day, at 03:00', () => {
  assert.deepEqual(chain(cron('30 2 * * *'), '2025-03-28T12:00:00Z', 4), [
    '2025-03-29T01:30:00.000Z', // 02:30 CET
    '2025-03-30T01:00:00.000Z', // 02:30 does not exist: 03:00 CEST, the first valid time after the gap
    '2025-03-31T00:30:00.000Z', // 02:30 CEST
    '2025-04-01T00:30:00.000Z',
  ]);
});

test('a fixed daily time in a DST repeat (Berlin, 26 October 2025: 03:00 → 02:00) runs once, at the first 02:30', () => {
  assert.deepEqual(chain(cron('30 2 * * *'), '2025-10-24T12:00:00Z', 3), [
    '2025-10-25T00:30:00.000Z', // 02:30 CEST
    '2025-10-26T00:30:00.000Z', // the first 02:30 (CEST); not again at 01:30Z (02:30 CET)
    '2025-10-27T01:30:00.000Z', // 02:30 CET
  ]);
});

test('a stepped time runs in both passes of a repeated hour and skips a gap (America/New_York)', () => {
  // 2 November 2025, 02:00 EDT → 01:00 EST: 01:00 and 01:30 happen twice.
  const back = chain(cron('*/30 1 * * *', 'America/New_York'), '2025-11-02T04:00:00Z', 4);
  assert.deepEqual(back, ['2025-11-02T05:00:00.000Z', '2025-11-02T05:30:00.000Z', '2025-11-02T06:00:00.000Z', '2025-11-02T06:30:00.000Z']);
  // 9 March 2025, 02:00 EST → 03:00 EDT: 02:00 and 02:30 do not exist and are skipped.
  // From noon on the 8th: the 9th has no 02:00 or 02:30, so the next runs are on the 10th.
  const gap = chain(cron('*/30 2 * * *', 'America/New_York'), '2025-03-08T12:00:00Z', 4);
  assert.deepEqual(gap, ['2025-03-10T06:00:00.000Z', '2025-03-10T06:30:00.000Z', '2025-03-11T06:00:00.000Z', '2025-03-11T06:30:00.000Z']);
});

test('month ends: day 31 skips the short months, L is the last day of each month', () => {
  assert.deepEqual(chain(cron('0 9 31 * *', 'UTC'), '2025-01-01T00:00:00Z', 4), [
    '2025-01-31T09:00:00.000Z',
    '2025-03-31T09:00:00.000Z',
    '2025-05-31T09:00:00.000Z',
    '2025-07-31T09:00:00.000Z',
  ]);
  assert.deepEqual(chain(cron('0 9 L * *', 'UTC'), '2024-01-15T00:00:00Z', 3), [
    '2024-01-31T09:00:00.000Z',
    '2024-02-29T09:00:00.000Z', // a leap year
    '2024-03-31T09:00:00.000Z',
  ]);
});

test('leap days: 29 February comes every four years', () => {
  assert.deepEqual(chain(cron('0 9 29 2 *', 'UTC'), '2024-03-01T00:00:00Z', 2), ['2028-02-29T09:00:00.000Z', '2032-02-29T09:00:00.000Z']);
});

test('weekdays in a zone: 09:00 Berlin is 08:00 UTC in winter and 07:00 in summer', () => {
  const runs = chain(cron('0 9 * * 1-5'), '2025-03-27T12:00:00Z', 3);
  assert.deepEqual(runs, ['2025-03-28T08:00:00.000Z', '2025-03-31T07:00:00.000Z', '2025-04-01T07:00:00.000Z']);
});

test('a one-shot is due once; an interval counts from its anchor and never drifts', () => {
  const once: ScheduleCadence = { kind: 'once', at: '2026-07-01T07:00:00.000Z', timezone: 'Europe/Berlin' };
  assert.equal(iso(nextRunForCadence(once, new Date('2026-06-30T00:00:00Z'))), '2026-07-01T07:00:00.000Z');
  assert.equal(nextRunForCadence(once, new Date('2026-07-01T07:00:00Z')), undefined);
  const every: ScheduleCadence = { kind: 'interval', everySeconds: 3600, anchor: '2026-01-01T00:00:00.000Z', timezone: 'UTC' };
  assert.equal(iso(nextRunForCadence(every, new Date('2025-12-31T00:00:00Z'))), '2026-01-01T00:00:00.000Z');
  // Asked late (a run took 7 minutes), the next due time is still on the hour.
  assert.equal(iso(nextRunForCadence(every, new Date('2026-01-01T05:07:00Z'))), '2026-01-01T06:00:00.000Z');
  assert.equal(iso(nextRunForCadence(every, new Date('2026-01-01T06:00:00Z'))), '2026-01-01T07:00:00.000Z');
});

test('how many due times a late run stands for', () => {
  assert.equal(dueTimesBetween(cron('0 9 * * *', 'UTC'), new Date('2026-01-01T09:00:00Z'), new Date('2026-01-04T10:00:00Z')), 3);
  const every: ScheduleCadence = { kind: 'interval', everySeconds: 600, anchor: '2026-01-01T00:00:00.000Z', timezone: 'UTC' };
  assert.equal(dueTimesBetween(every, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T01:00:00Z')), 6);
  assert.equal(dueTimesBetween({ kind: 'once', at: '2026-01-01T00:00:00.000Z', timezone: 'UTC' }, new Date(0), new Date()), 0);
});

test('validation says what is wrong: a past one-shot, an invalid cron, an unknown zone, a too short interval', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  rejects(() => validateCadence({ kind: 'once', at: '2026-03-01T09:00:00Z', timezone: 'UTC' }, { now }), /in the past \(3 hours ago\)/);
  rejects(() => validateCadence(cron('61 * * * *'), { now }), /"61 \* \* \* \*" is not a valid cron expression \(.*minute.*\)/);
  rejects(() => validateCadence(cron('0 9 * *'), { now }), /not a valid cron expression/);
  rejects(() => validateCadence(cron('0 9 30 2 *'), { now }), /never fires/);
  rejects(() => validateCadence(cron('* * * * *'), { now }), /runs every 1 minute; the shortest time between runs is 5 minutes/);
  rejects(() => validateCadence(cron('0 9 * * *', 'Mars/Olympus_Mons'), { now }), /unknown time zone "Mars\/Olympus_Mons"/);
  rejects(
    () => validateCadence({ kind: 'interval', everySeconds: 60, anchor: now.toISOString(), timezone: 'UTC' }, { now }),
    /every 1 minute is too often: the shortest interval is 5 minutes/,
  );
  rejects(() => validateCadence({ kind: 'weekly' } as never, { now }), /must be a cron, once or interval cadence/);
  // A lower minimum is honoured (the store's option).
  assert.equal(validateCadence(cron('* * * * *'), { now, minIntervalSeconds: 60 }).kind, 'cron');
});

test('cadences from tool arguments: a wall-clock time read in its zone, an interval from a duration', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  assert.deepEqual(parseCadence('once', '2026-07-01T09:00', 'Europe/Berlin', now), {
    kind: 'once',
    at: '2026-07-01T07:00:00.000Z',
    timezone: 'Europe/Berlin',
  });
  assert.equal((parseCadence('once', '2026-07-01T09:00:00Z', 'Europe/Berlin', now) as { at: string }).at, '2026-07-01T09:00:00.000Z');
  assert.deepEqual(parseCadence('interval', '2h', 'UTC', now), {
    kind: 'interval',
    everySeconds: 7200,
    anchor: '2026-03-01T14:00:00.000Z',
    timezone: 'UTC',
  });
  rejects(() => parseCadence('once', '2026-02-30T09:00', 'UTC', now), /not a date and time on the calendar/);
  rejects(() => parseCadence('interval', 'often', 'UTC', now), /is not an interval/);
  rejects(() => parseCadence('cron', '0 9 * * *', 'Nowhere/Town', now), /unknown time zone/);
});

test('in words, in the schedule zone: the cadence, the next due time, and both', () => {
  const now = new Date('2026-03-02T12:00:00Z'); // a Monday, 13:00 in Berlin
  assert.equal(describeCadence(cron('0 9 * * 1-5')), 'every weekday at 09:00 Europe/Berlin');
  assert.equal(describeCadence(cron('0 10 * * 1')), 'every Monday at 10:00 Europe/Berlin');
  assert.equal(describeCadence(cron('30 8 * * 1,4')), 'every Monday and Thursday at 08:30 Europe/Berlin');
  assert.equal(describeCadence(cron('0 9 1 * *', 'UTC')), 'on the 1st of every month at 09:00 UTC');
  assert.equal(describeCadence(cron('15 */2 * * *', 'UTC')), 'on the cron schedule "15 */2 * * *" UTC');
  assert.equal(
    describeCadence({ kind: 'interval', everySeconds: 5400, anchor: now.toISOString(), timezone: 'UTC' }),
    'every 1 hour 30 minutes',
  );
  assert.equal(
    describeCadence({ kind: 'once', at: '2026-07-01T07:00:00.000Z', timezone: 'Europe/Berlin' }),
    'once, on Wed 1 Jul 2026 at 09:00 Europe/Berlin',
  );
  assert.equal(whenWords('2026-03-03T08:00:00Z', 'Europe/Berlin', now), 'tomorrow 09:00');
  assert.equal(whenWords('2026-03-02T12:25:00Z', 'Europe/Berlin', now), 'in 25 minutes');
  assert.equal(whenWords('2026-03-02T16:00:00Z', 'Europe/Berlin', now), 'today 17:00');
  assert.equal(whenWords('2026-03-05T09:00:00Z', 'Europe/Berlin', now), 'Thursday 10:00');
  assert.equal(whenWords('2026-05-01T07:00:00Z', 'Europe/Berlin', now), '1 May 09:00');
  assert.equal(whenWords('2026-03-01T08:00:00Z', 'Europe/Berlin', now), 'yesterday 09:00');
  // The same instant reads differently in another zone: 23:30 UTC on Monday is Tuesday in Tokyo.
  assert.equal(whenWords('2026-03-02T23:30:00Z', 'Asia/Tokyo', now), 'tomorrow 08:30');
  const s = {
    cadence: cron('0 9 * * 1-5'),
    status: 'active',
    nextRunAt: '2026-03-03T08:00:00.000Z',
    nextTrigger: 'schedule',
  } as ScheduleDefinition;
  assert.equal(describeSchedule(s, now), 'every weekday at 09:00 Europe/Berlin, next tomorrow 09:00');
  assert.equal(
    describeSchedule({ ...s, status: 'paused', nextRunAt: null, pauseReason: 'Paused by a person.' }, now),
    'every weekday at 09:00 Europe/Berlin, paused: Paused by a person.',
  );
});
