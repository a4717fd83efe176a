// Times and durations in words (src/core/text/timeWords.ts), the one module every surface uses:
// relative moments with correct plurals, a date when it is far away, lifetimes left, ages, and
// durations written exactly (read back by parseLifetimeSeconds), in two units or rounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compactAgo,
  describeAgo,
  describeExpiry,
  durationText,
  durationWords,
  humanDate,
  relativeTime,
  spanInWords,
} from '../../../src/core/text/timeWords';
import { parseLifetimeSeconds } from '../../../src/core/lifecycle/lifetimeText';

// Local-time noon, so calendar days do not depend on the machine's time zone.
const NOW = new Date(2026, 10, 24, 12, 0, 0);
const at = (ms: number) => new Date(NOW.getTime() + ms);
const M = 60_000;
const H = 3_600_000;
const D = 24 * H;

test('relative times read like a person would say them', () => {
  assert.equal(relativeTime(at(-10_000), NOW), 'just now');
  assert.equal(relativeTime(at(-M), NOW), '1 minute ago');
  assert.equal(relativeTime(at(-5 * M), NOW), '5 minutes ago');
  assert.equal(relativeTime(at(-2 * H), NOW), '2 hours ago');
  assert.equal(relativeTime(at(-26 * H), NOW), 'yesterday');
  assert.equal(relativeTime(at(-30 * H), NOW), 'yesterday');
  assert.equal(relativeTime(at(-3 * D), NOW), '3 days ago');
  assert.equal(relativeTime(at(10_000), NOW), 'in less than a minute');
  assert.equal(relativeTime(at(25 * M), NOW), 'in 25 minutes');
  assert.equal(relativeTime(at(2 * H), NOW), 'in 2 hours');
  assert.equal(relativeTime(at(D), NOW), 'tomorrow');
  assert.equal(relativeTime(at(30 * H), NOW), 'tomorrow');
  assert.equal(relativeTime(at(3 * D), NOW), 'in 3 days');
  assert.equal(relativeTime(at(-90 * D).toISOString(), NOW), 'on 26 Aug 2026', 'far away: a date');
  assert.equal(relativeTime(at(90 * D), NOW), 'on 22 Feb 2027');
});

test('a past event: "2 hours ago", "yesterday"; a clock a little ahead reads "just now"', () => {
  const now = new Date(2026, 2, 5, 18, 0, 0);
  const ago = (h: number) => new Date(now.getTime() - h * H).toISOString();
  assert.equal(describeAgo(ago(0), now), 'just now');
  assert.equal(describeAgo(ago(2), now), '2 hours ago');
  assert.equal(describeAgo(ago(24), now), 'yesterday');
  assert.equal(describeAgo(ago(72), now), '3 days ago');
  assert.equal(describeAgo(ago(-5 / 3600), now), 'just now', 'five seconds ahead (another process clock)');
  assert.equal(describeAgo(ago(-3), now), 'just now');
  assert.equal(`expired ${describeAgo(at(-2 * H), NOW)}`, 'expired 2 hours ago', 'the removed list');
  assert.equal(describeAgo('not a date', now), 'not a date');
});

test('the lifetime left in words; nothing for a permanent memory', () => {
  const now = new Date(2026, 2, 1, 10, 0, 0); // local time: "tomorrow" is a calendar day
  const inH = (h: number) => new Date(now.getTime() + h * H).toISOString();
  assert.equal(describeExpiry(null, now), undefined);
  assert.equal(describeExpiry(undefined, now), undefined);
  assert.equal(describeExpiry('not a date', now), undefined);
  assert.equal(describeExpiry(inH(-1), now), 'expired');
  assert.equal(describeExpiry(inH(0), now), 'expired');
  assert.equal(describeExpiry(inH(1 / 120), now), 'expires in less than a minute');
  assert.equal(describeExpiry(inH(0.5), now), 'expires in 30 minutes');
  assert.equal(describeExpiry(inH(5), now), 'expires in 5 hours');
  assert.equal(describeExpiry(inH(13), now), 'expires in 13 hours', 'tonight is not "in 1 day"');
  assert.equal(describeExpiry(inH(24), now), 'expires tomorrow');
  assert.equal(describeExpiry(inH(72), now), 'expires in 3 days');
  assert.equal(describeExpiry(at(3 * H).toISOString(), NOW), 'expires in 3 hours');
  assert.equal(describeExpiry(at(D).toISOString(), NOW), 'expires tomorrow');
  assert.equal(describeExpiry(at(90 * D).toISOString(), NOW), 'expires on 22 Feb 2027', 'far away: a date');
});

test('an age for a narrow row', () => {
  const now = NOW.getTime();
  const ago = (ms: number) => new Date(now - ms).toISOString();
  assert.equal(compactAgo(ago(30_000), now), 'just now');
  assert.equal(compactAgo(ago(-30_000), now), 'just now', 'a clock a little ahead');
  assert.equal(compactAgo(ago(5 * M), now), '5 min ago');
  assert.equal(compactAgo(ago(3 * H), now), '3 h ago');
  assert.equal(compactAgo(ago(3 * D), now), '3 d ago');
  assert.equal(compactAgo(ago(65 * D), now), '2 mo ago');
  assert.equal(compactAgo(ago(400 * D), now), '1 y ago');
  assert.equal(compactAgo('not a date', now), '');
});

test('durations as lifetimes are written: the largest whole unit, read back exactly', () => {
  assert.equal(durationText(86_400), '1 day');
  assert.equal(durationText(7 * 86_400), '1 week');
  assert.equal(durationText(30 * 86_400), '30 days');
  assert.equal(durationText(12 * 3_600), '12 hours');
  assert.equal(durationText(90), '90 seconds');
  assert.equal(durationText(1), '1 second');
  assert.equal(durationText(1000 * 86_400), '1000 days', 'no thousands separator');
  for (const seconds of [1, 59, 60, 90, 3_600, 5_400, 86_400, 604_800, 1000 * 86_400, 36_500 * 86_400, 100 * 365 * 86_400])
    assert.equal(parseLifetimeSeconds(durationText(seconds)), seconds, `${seconds} s → "${durationText(seconds)}"`);
});

test('durations in at most two units, and rounded to one', () => {
  assert.equal(durationWords(300), '5 minutes');
  assert.equal(durationWords(7_200), '2 hours');
  assert.equal(durationWords(93_600), '1 day 2 hours');
  assert.equal(durationWords(93_661), '1 day 2 hours', 'two units at most');
  assert.equal(durationWords(30), '30 seconds');
  assert.equal(durationWords(60.4), '1 minute', 'rounded to the second');
  assert.equal(durationWords(604_800), '1 week');
  assert.equal(durationWords(0), '0 seconds');
  assert.equal(spanInWords(3_600_000), '1 hour');
  assert.equal(spanInWords(30_000), 'less than a minute');
  assert.equal(spanInWords(90 * M), '2 hours');
  assert.equal(spanInWords(30 * D), '30 days');
});

test('absolute dates are short and readable; garbage is shown as it is, not "Invalid Date"', () => {
  assert.equal(humanDate('2026-03-12T14:05:00.000Z', { timeZone: 'UTC' }), '12 Mar 2026, 14:05');
  assert.equal(humanDate('2026-03-12T14:05:00.000Z', { time: false, timeZone: 'UTC' }), '12 Mar 2026');
  assert.match(humanDate('2026-03-01T07:13:00.000Z'), /^1 Mar 2026, \d\d:\d\d$/);
  assert.equal(humanDate('not a date'), 'not a date');
  assert.equal(relativeTime('not a date', NOW), 'not a date');
});
