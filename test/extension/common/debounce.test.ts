/** The views' refresh debounce (src/extension/common/debounce.ts), on node:test's mock timers (no real sleeps). */
import { beforeEach, afterEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { Debounced } from '../../../src/extension/common/debounce';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

test('a burst of triggers runs the action once, after the burst', () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 30);
  for (let i = 0; i < 5; i++) {
    d.trigger();
    mock.timers.tick(25);
  }
  assert.equal(runs, 0, 'nothing runs while triggers keep coming');
  mock.timers.tick(4);
  assert.equal(runs, 0, 'not before delayMs after the last trigger');
  mock.timers.tick(1);
  assert.equal(runs, 1);
  d.trigger();
  mock.timers.tick(30);
  assert.equal(runs, 2, 'a later trigger runs again');
});

test('cancel drops the pending run', () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 20);
  d.trigger();
  d.cancel();
  mock.timers.tick(1000);
  assert.equal(runs, 0);
});

test('hold drops the pending run and ignores triggers until released (a view while the engine stops)', () => {
  let runs = 0;
  const d = new Debounced(() => runs++, 20);
  d.trigger();
  d.hold(true);
  d.trigger();
  mock.timers.tick(1000);
  assert.equal(runs, 0, 'held: the pending run is dropped and a trigger does nothing');
  d.hold(false);
  d.trigger();
  mock.timers.tick(20);
  assert.equal(runs, 1, 'released: triggers run again');
});
