// The one table of page-size ranges: checkLimit returns the default or the value, and refuses
// anything else with invalid_input naming the range (never a clamp).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { LIMIT_RANGES, LIMITS, checkLimit, searchRange } from '../../../src/core/memory/limits';

test('checkLimit: default when absent, the value inside the range, invalid_input naming the range outside', () => {
  const r = LIMIT_RANGES.suggestions;
  assert.equal(checkLimit(undefined, r, 'suggestions.list'), r.default);
  assert.equal(checkLimit(1, r, 'suggestions.list'), 1);
  assert.equal(checkLimit(r.max, r, 'suggestions.list'), r.max);
  for (const bad of [0, r.max + 1, 1.5, '5', null, Number.NaN]) {
    assert.throws(
      () => checkLimit(bad, r, 'suggestions.list'),
      (e: unknown) =>
        (e as { code?: string }).code === 'invalid_input' &&
        /^limit: must be a whole number from 1 to 200 \(suggestions\.list\)/.test((e as Error).message),
    );
  }
});

test('the list range is the memory API limit; search takes its range from search.* settings; every default is inside', () => {
  assert.equal(LIMIT_RANGES.list.max, LIMITS.listMax);
  assert.deepEqual(searchRange({ default_limit: 10, max_limit: 40 }), { min: 1, max: 40, default: 10 });
  for (const [name, range] of Object.entries(LIMIT_RANGES)) {
    assert.ok(range.min <= range.default && range.default <= range.max, name);
  }
});
