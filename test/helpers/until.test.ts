// The shared polling helper: it returns what it waited for, and a timeout names what was
// awaited and the last value seen (the message a failing test leaves behind).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { until } from './until';

test('until returns the first value its check accepts, read as often as needed', async () => {
  let reads = 0;
  const value = await until('the third read', () => ++reads, { check: (n: number) => n === 3, intervalMs: 1 });
  assert.equal(value, 3);
  assert.equal(reads, 3);
  // Without a check, the first truthy value (async reads too), typed as present.
  let n = 0;
  const found: { id: string } = await until('a row', async () => (++n < 2 ? undefined : { id: 'm1' }), { intervalMs: 1 });
  assert.deepEqual(found, { id: 'm1' });
});

test('until fails naming what was awaited and the last value seen', async () => {
  await assert.rejects(
    until('three extraction jobs completed', () => ({ completed: 1 }), {
      check: (s: { completed: number }) => s.completed === 3,
      timeoutMs: 20,
      intervalMs: 5,
    }),
    { message: 'timed out after 0.02 s waiting for three extraction jobs completed; last seen: {"completed":1}' },
  );
  // A condition that is only true or false: the message is the wait itself.
  await assert.rejects(
    until('the store to be healthy again', () => false, { timeoutMs: 20, intervalMs: 5 }),
    {
      message: 'timed out after 0.02 s waiting for the store to be healthy again',
    },
  );
});
