/**
 * TurnBatch (src/core/embed/turnBatch.ts): the texts asked in one turn go to the model in one
 * call, a text asked twice is embedded once, and every asker gets its own vectors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnBatch } from '../../../src/core/embed/turnBatch';

/** A model stand-in: each text's vector is [length, first char code, call number]. */
function recorder() {
  const calls: string[][] = [];
  const batch = new TurnBatch(async (texts) => {
    calls.push(texts);
    return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0), calls.length]));
  });
  return { calls, batch };
}

test('texts of one turn go in one call, a repeated text once; each asker gets its own arrays', async () => {
  const { calls, batch } = recorder();
  const [a, b, c] = await Promise.all([batch.add(['alpha', 'be']), batch.add(['be', 'gamma', 'alpha']), batch.add([])]);
  assert.deepEqual(calls, [['alpha', 'be', 'gamma']]);
  assert.deepEqual(
    a.map((v) => [...v]),
    [
      [5, 97, 1],
      [2, 98, 1],
    ],
  );
  assert.deepEqual(
    b.map((v) => [...v]),
    [
      [2, 98, 1],
      [5, 103, 1],
      [5, 97, 1],
    ],
  );
  assert.deepEqual(c, []);
  assert.notEqual(a[1], b[0], 'a repeated text: equal vectors, not the same array');
  assert.notEqual(a[0], b[2]);
  b[0]![0] = 99;
  assert.equal(a[1]![0], 2, "scaling one asker's vector leaves the other's");
  // The next turn is a call of its own.
  await batch.add(['alpha']);
  assert.deepEqual(calls[1], ['alpha']);
});

test('a failed call rejects every asker of its turn; the next turn is asked again', async () => {
  let fail = true;
  const batch = new TurnBatch(async (texts) => {
    if (fail) throw new Error('model down');
    return texts.map(() => new Float32Array(2));
  });
  const asks = [batch.add(['x']), batch.add(['y', 'x'])];
  for (const r of await Promise.allSettled(asks)) {
    assert.equal(r.status, 'rejected');
    assert.match(String((r as PromiseRejectedResult).reason), /model down/);
  }
  fail = false;
  assert.equal((await batch.add(['x'])).length, 1);
});

test('a model answering fewer vectors than texts leaves the rest missing, for the caller to check', async () => {
  const batch = new TurnBatch(async (texts) => texts.slice(1).map(() => new Float32Array(1)));
  const [a, b] = await Promise.all([batch.add(['p', 'q']), batch.add(['p'])]);
  assert.equal(a.length, 2);
  assert.ok(a[0] instanceof Float32Array);
  assert.equal(a[1], undefined);
  assert.ok(b[0] instanceof Float32Array);
});
