// Phrases people write for "when" → cadences, read in a time zone at a fixed "now" (a fake
// clock), and clear errors for what the grammar does not understand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePhrase } from '../../../src/core/schedules/phrases';
import { describeCadence } from '../../../src/core/schedules/describe';
import { validateCadence } from '../../../src/core/schedules/cadence';
import { UserFacingError } from '../../../src/core/util/errors';

// Monday 2 March 2026, 13:00 in Berlin (12:00 UTC).
const now = new Date('2026-03-02T12:00:00Z');
const zone = 'Europe/Berlin';
const p = (phrase: string, at = now, timezone = zone) => parsePhrase(phrase, { now: at, timezone });
const onceAt = (phrase: string, at = now) => {
  const c = p(phrase, at);
  assert.equal(c.kind, 'once', `${phrase} is a one-shot`);
  return (c as { at: string }).at;
};
const expr = (phrase: string) => {
  const c = p(phrase);
  assert.equal(c.kind, 'cron', `${phrase} is a cron cadence`);
  return (c as { expr: string }).expr;
};

test('"in …" is a one-shot from now', () => {
  assert.equal(onceAt('in 2 hours'), '2026-03-02T14:00:00.000Z');
  assert.equal(onceAt('in 90 minutes'), '2026-03-02T13:30:00.000Z');
  assert.equal(onceAt('In an hour.'), '2026-03-02T13:00:00.000Z');
  assert.equal(onceAt('in half an hour'), '2026-03-02T12:30:00.000Z');
  assert.equal(onceAt('in 3 days'), '2026-03-05T12:00:00.000Z');
  assert.equal(onceAt('in 2h'), '2026-03-02T14:00:00.000Z');
});

test('days and times: tomorrow, today, weekdays, dates — 09:00 when no time is given', () => {
  assert.equal(onceAt('tomorrow at 9'), '2026-03-03T08:00:00.000Z');
  assert.equal(onceAt('tomorrow'), '2026-03-03T08:00:00.000Z');
  assert.equal(onceAt('tomorrow at 5pm'), '2026-03-03T16:00:00.000Z');
  assert.equal(onceAt('tomorrow at 12am'), '2026-03-02T23:00:00.000Z');
  assert.equal(onceAt('at 17:30'), '2026-03-02T16:30:00.000Z');
  assert.equal(onceAt('today at 18:00'), '2026-03-02T17:00:00.000Z');
  assert.equal(onceAt('next friday'), '2026-03-06T08:00:00.000Z');
  assert.equal(onceAt('on Monday at 10'), '2026-03-09T09:00:00.000Z', 'said on a Monday: the next Monday');
  assert.equal(onceAt('on 1 July at 14:30'), '2026-07-01T12:30:00.000Z');
  assert.equal(onceAt('July 1st 2027'), '2027-07-01T07:00:00.000Z');
  assert.equal(onceAt('2026-12-24 at 18:00'), '2026-12-24T17:00:00.000Z');
  assert.equal(onceAt('on the 15th'), '2026-03-15T08:00:00.000Z');
  assert.equal(onceAt('2026-04-01T10:00:00Z'), '2026-04-01T10:00:00.000Z');
});

test('"after the 1st": the morning of the day after the next 1st', () => {
  assert.equal(onceAt('after the 1st'), '2026-04-02T07:00:00.000Z'); // summer time in April
  assert.equal(onceAt('after the 1st of June at 10'), '2026-06-02T08:00:00.000Z');
});

test('dates at month ends and leap days', () => {
  assert.equal(onceAt('on the 31st'), '2026-03-31T07:00:00.000Z');
  // Said on 1 April: the next 31st is in May (April has 30 days).
  assert.equal(onceAt('on the 31st', new Date('2026-04-01T12:00:00Z')), '2026-05-31T07:00:00.000Z');
  // 29 February: the next leap year.
  assert.equal(onceAt('on 29 February'), '2028-02-29T08:00:00.000Z');
});

test('recurring phrases become cron expressions in the zone', () => {
  assert.equal(expr('every Monday at 10'), '0 10 * * 1');
  assert.equal(expr('every weekday at 09:00'), '0 9 * * 1-5');
  assert.equal(expr('every day at 8:30'), '30 8 * * *');
  assert.equal(expr('daily'), '0 9 * * *');
  assert.equal(expr('mondays and thursdays at 4pm'), '0 16 * * 1,4');
  assert.equal(expr('every weekend at 10'), '0 10 * * 0,6');
  assert.equal(expr('on the 1st of every month'), '0 9 1 * *');
  assert.equal(expr('monthly on the 15th at 7'), '0 7 15 * *');
  assert.equal(expr('the last day of every month at 18:00'), '0 18 L * *');
  assert.equal(expr('every hour'), '0 * * * *');
  assert.equal(expr('0 9 * * 1-5'), '0 9 * * 1-5');
  assert.equal(describeCadence(p('every weekday at 09:00')), 'every weekday at 09:00 Europe/Berlin');
});

test('"every N minutes/hours/days" is an interval from now', () => {
  assert.deepEqual(p('every 2 hours'), { kind: 'interval', everySeconds: 7200, anchor: '2026-03-02T14:00:00.000Z', timezone: zone });
  assert.equal((p('every 30 minutes') as { everySeconds: number }).everySeconds, 1800);
  // Too often: the phrase parses, validation refuses it with the minimum.
  assert.throws(() => validateCadence(p('every 2 minutes'), { now }), /too often: the shortest interval is 5 minutes/);
});

test('what the grammar does not understand is an error naming what it does', () => {
  const bad = (phrase: string, re: RegExp) =>
    assert.throws(
      () => p(phrase),
      (e: unknown) => e instanceof UserFacingError && e.code === 'invalid_input' && re.test(e.message),
    );
  bad('whenever you like', /"whenever you like" is not a time this understands\. Try "in 2 hours", "tomorrow at 9"/);
  bad('', /say when/);
  bad('at 9', /already passed today; say "tomorrow at 9:00"/);
  bad('tomorrow at 25', /"25" is not a time/);
  bad('tomorrow at 13pm', /with am or pm the hour is 1 to 12/);
  bad('on 2026-02-30', /not a date on the calendar/);
  assert.throws(() => parsePhrase('tomorrow', { now, timezone: 'Europe/Nowhere' }), /unknown time zone "Europe\/Nowhere"/);
});

test('the zone decides the day: tomorrow 9:00 in Tokyo vs in New York', () => {
  assert.equal(onceAt('tomorrow at 9'), '2026-03-03T08:00:00.000Z');
  assert.equal((parsePhrase('tomorrow at 9', { now, timezone: 'Asia/Tokyo' }) as { at: string }).at, '2026-03-03T00:00:00.000Z');
  assert.equal((parsePhrase('tomorrow at 9', { now, timezone: 'America/New_York' }) as { at: string }).at, '2026-03-03T14:00:00.000Z');
});
