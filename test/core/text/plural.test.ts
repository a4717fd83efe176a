import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plural } from '../../../src/core/text/plural';

test('counts with the right noun form', () => {
  assert.equal(plural(1, 'memory', 'memories'), '1 memory');
  assert.equal(plural(0, 'memory', 'memories'), '0 memories');
  assert.equal(plural(2, 'chunk'), '2 chunks');
  assert.equal(plural(12_500, 'chunk'), '12,500 chunks');
});
