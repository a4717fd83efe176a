/** Messages of the memory API validation: values shown as people wrote them, strict version and tag filters. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../helpers/memoryFixture';
import { ValidationError, VersionConflictError } from '../../../src/core/memory/errors';
import { shownValue, validateExpectedVersion, validateImportance, validateTagFilter, validateTtl } from '../../../src/core/memory/validate';

function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ValidationError, `expected a ValidationError, got ${String(e)}`);
    return e;
  }
  throw new Error('expected a ValidationError');
}

test('NaN and Infinity are named as such, never as "got null"', () => {
  for (const [value, shown] of [
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ] as const) {
    const imp = refusal(() => validateImportance(value, 0.5));
    assert.match(imp.message, new RegExp(`got ${shown}$`));
    assert.doesNotMatch(imp.message, /null/);
    const ttl = refusal(() => validateTtl(value));
    assert.match(ttl.message, new RegExp(`got ${shown}$`));
  }
  assert.equal(shownValue('1'), '"1"');
  assert.equal(shownValue(null), 'null');
  assert.equal(shownValue({ a: 1 }), '{"a":1}');
});

test('expectedVersion must be a whole number: "1" is invalid input, not a version conflict', async () => {
  const { svc, store } = await openMemory();
  const r = svc.create({ content: 'The release train leaves every second Tuesday.' });
  assert.equal(r.status, 'created');
  const id = (r as { memory: { id: string } }).memory.id;
  for (const bad of ['1', 1.5, 0, Number.NaN, true]) {
    const e = refusal(() => svc.update(id, { title: 'x', expectedVersion: bad as unknown as number }));
    assert.equal(e.field, 'expectedVersion');
    assert.match(e.message, /expectedVersion: must be a whole number/);
  }
  assert.throws(() => svc.update(id, { title: 'x', expectedVersion: 2 }), VersionConflictError);
  assert.equal(svc.update(id, { title: 'Release train', expectedVersion: 1 }).version, 2);
  assert.equal(validateExpectedVersion(undefined), undefined);
  await store.close();
});

test('a tags filter of non-strings is refused, not silently ignored', () => {
  assert.deepEqual(validateTagFilter(['UI', ' db ']), ['ui', 'db']);
  const e = refusal(() => validateTagFilter(['ui', 7]));
  assert.equal(e.field, 'tags');
  assert.match(e.message, /tag #2 must be a string, got 7/);
  assert.match(refusal(() => validateTagFilter([null])).message, /tag #1 must be a string, got null/);
  assert.match(refusal(() => validateTagFilter('ui')).message, /must be a list of tags/);
});
