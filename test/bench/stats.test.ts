// The benchmarks' p-values (bench/stats.ts): the Mann–Whitney U test against the values R's
// wilcox.test gives for the same samples (exact for small samples without ties, the normal
// approximation with tie and continuity corrections otherwise).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mannWhitneyP } from '../../bench/stats';

const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 5e-4, `${what}: ${actual}`);

test('Mann–Whitney p-values match R (exact without ties, normal approximation with ties)', () => {
  close(mannWhitneyP([1, 2, 3], [4, 5, 6]), 0.1, 'three against three, apart');
  close(mannWhitneyP([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 0.007937, 'five against five, apart');
  close(mannWhitneyP([1, 3, 5, 7, 9], [2, 4, 6, 8, 10]), 0.6905, 'interleaved');
  close(mannWhitneyP([10, 3, 9, 1, 8], [2, 4, 5, 6, 7]), mannWhitneyP([2, 4, 5, 6, 7], [10, 3, 9, 1, 8]), 'symmetric');
  close(mannWhitneyP([1, 1, 2, 2, 3], [3, 4, 4, 5, 5]), 0.01471, 'with ties');
  assert.equal(mannWhitneyP([4, 4, 4], [4, 4, 4]), 1, 'the same values');
  assert.ok(Number.isNaN(mannWhitneyP([], [1])), 'no sample, no p-value');
});
