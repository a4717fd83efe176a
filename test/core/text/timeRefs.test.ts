import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findDates, MAX_TIME_REFS, parseTimeRefs, timeRefsJson, timeRefsOf } from '../../../src/core/text/timeRefs';

// 8 May 2023 was a Monday.
const NOTE = '2023-05-08T13:56:00.000Z';
const refsAt = (text: string, at: string | undefined) => JSON.parse(timeRefsOf(text, at)) as [string, string][];
const refs = (text: string) => refsAt(text, NOTE);

test('relative days are resolved against the note’s own date', () => {
  assert.deepEqual(refs('Yesterday I finally fixed the flaky login test.'), [['2023-05-07', '2023-05-08']]);
  assert.deepEqual(refs('We went hiking last Friday.'), [['2023-05-05', '2023-05-06']]);
  assert.deepEqual(refs('The release went out last week.'), [['2023-05-01', '2023-05-08']]);
  assert.deepEqual(refs('Two days ago the build broke.'), [['2023-05-06', '2023-05-07']]);
  assert.deepEqual(refs('I have been painting for 3 years.'), [['2020-05-08', '2023-05-09']]);
  assert.deepEqual(refs('We moved here in June.'), [['2022-06-01', '2022-07-01']]);
  assert.deepEqual(refs('See you tomorrow!'), [['2023-05-09', '2023-05-10']]);
});

test('absolute dates are read with or without a reference date', () => {
  assert.deepEqual(refsAt('Deadline is 21 May 2023, then 2023-06-02.', undefined), [
    // Most specific pattern first (ISO days), then in text order.
    ['2023-06-02', '2023-06-03'],
    ['2023-05-21', '2023-05-22'],
  ]);
  assert.deepEqual(refs('Planned for July 2024.'), [['2024-07-01', '2024-08-01']]);
  assert.deepEqual(refs('Since 2019 we use pnpm.'), [['2019-01-01', '2023-05-09']]);
});

test('no reference date: relative words stay words; a day that does not exist names nothing', () => {
  assert.deepEqual(refsAt('Yesterday the build broke.', undefined), []);
  assert.deepEqual(refsAt('Yesterday the build broke.', 'not a date'), []);
  assert.deepEqual(refs('Due 31 February 2023.'), []);
  // The modal verb is not the month.
  assert.deepEqual(refs('You may want to rerun it.'), []);
  assert.deepEqual(refs('No dates in this note at all.'), []);
});

test('the found dates are blanked out of the rest of the text, positions kept', () => {
  const f = findDates('Lunch yesterday at noon', new Date(NOTE));
  assert.equal(f.windows.length, 1);
  assert.equal(f.rest.length, 'Lunch yesterday at noon'.length);
  assert.doesNotMatch(f.rest, /yesterday/);
  assert.match(f.rest, /^Lunch\s+at noon$/);
});

test('stored form: distinct windows, at most MAX_TIME_REFS, and unreadable JSON reads as none', () => {
  const days = Array.from({ length: MAX_TIME_REFS + 5 }, (_, i) => `2023-01-${String(i + 1).padStart(2, '0')}`);
  const stored = JSON.parse(timeRefsOf(`${days.join(', ')} and 2023-01-01 again`, NOTE)) as unknown[];
  assert.equal(stored.length, MAX_TIME_REFS);
  const w = { start: Date.UTC(2023, 4, 7), end: Date.UTC(2023, 4, 8) };
  assert.equal(timeRefsJson([w, w]), '[["2023-05-07","2023-05-08"]]');
  assert.deepEqual(parseTimeRefs('[["2023-05-07","2023-05-08"]]'), [w]);
  for (const bad of ['', '[]', 'not json', '{"a":1}', '[["x","y"]]', '[["2023-05-08","2023-05-07"]]', 42, null])
    assert.deepEqual(parseTimeRefs(bad), [], String(bad));
});
