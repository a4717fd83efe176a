import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatCount, plural } from '../../../src/core/text/plural';

test('counts with the right noun form', () => {
  assert.equal(plural(1, 'memory', 'memories'), '1 memory');
  assert.equal(plural(0, 'memory', 'memories'), '0 memories');
  assert.equal(plural(2, 'chunk'), '2 chunks');
  assert.equal(plural(12_500, 'chunk'), '12,500 chunks');
});

test('formatCount writes whole numbers as en-US does, without ICU; other numbers through it', () => {
  for (const n of [
    0,
    1,
    9,
    10,
    999,
    1000,
    1001,
    12_500,
    999_999,
    1_000_000,
    123_456_789,
    -1,
    -1234,
    -999_999_999,
    Number.MAX_SAFE_INTEGER,
    -0,
  ]) {
    assert.equal(formatCount(n), n.toLocaleString('en-US'), String(n));
  }
  for (const n of [1.5, 1234.5678, 1e21, Number.NaN, Infinity]) assert.equal(formatCount(n), n.toLocaleString('en-US'), String(n));
});
