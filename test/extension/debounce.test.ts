/** The views' refresh debounce (src/extension/debounce.ts), with real timers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Debounced } from '../../src/extension/debounce';

test('a burst of triggers runs the action once, after the burst', async () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 30);
  for (let i = 0; i < 5; i++) {
    d.trigger();
    await sleep(5);
  }
  assert.equal(runs, 0, 'nothing runs while triggers keep coming');
  await sleep(80);
  assert.equal(runs, 1);
  d.trigger();
  await sleep(80);
  assert.equal(runs, 2, 'a later trigger runs again');
});

test('cancel drops the pending run', async () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 20);
  d.trigger();
  d.cancel();
  await sleep(60);
  assert.equal(runs, 0);
});

test('hold drops the pending run and ignores triggers until released (a view while the engine stops)', async () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 20);
  d.trigger();
  d.hold(true);
  d.trigger();
  await sleep(60);
  assert.equal(runs, 0, 'held: the pending run is dropped and a trigger does nothing');
  d.hold(false);
  d.trigger();
  await sleep(60);
  assert.equal(runs, 1, 'released: triggers run again');
});
