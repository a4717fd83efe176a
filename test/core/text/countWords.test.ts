// Counts and weekdays as people write them (src/core/text/countWords.ts), shared by the dates a
// text refers to (timeRefs.ts) and schedule phrases (schedules/phrases.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WEEKDAYS, countOf } from '../../../src/core/text/countWords';

test('a count in digits or words; anything else is not a count', () => {
  assert.equal(countOf('3'), 3);
  assert.equal(countOf('12'), 12);
  assert.equal(countOf('three'), 3);
  assert.equal(countOf('Two'), 2);
  assert.equal(countOf('a'), 1);
  assert.equal(countOf('an'), 1);
  assert.equal(countOf('eleven'), 11);
  assert.equal(countOf('fifteen'), 15);
  assert.equal(countOf('thirty'), 30);
  assert.equal(countOf('a couple of'), 2);
  assert.equal(countOf('a few'), 3);
  assert.equal(countOf('several'), 3);
  assert.ok(Number.isNaN(countOf('many')));
  assert.ok(Number.isNaN(countOf('')));
  assert.ok(Number.isNaN(countOf('3.5')));
});

test('weekdays in the order of Date.getDay()', () => {
  assert.equal(WEEKDAYS[new Date(2026, 10, 27).getDay()], 'friday');
  assert.equal(WEEKDAYS.length, 7);
});
