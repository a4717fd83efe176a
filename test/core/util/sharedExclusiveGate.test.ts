// The gate between the engine's requests (shared) and its runtime rebuilds (exclusive): an
// exclusive section waits for the shared ones under way, shared ones asked for meanwhile wait for
// it, a waiting exclusive section does not hold new shared ones back, and one that fails lets the
// next run.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { SharedExclusiveGate } from '../../../src/core/util/sharedExclusiveGate';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets every queued promise continuation run. */
const settle = () => new Promise((r) => setImmediate(r));

test('an exclusive section starts once the shared ones under way end; shared ones asked for during it wait', async () => {
  const gate = new SharedExclusiveGate();
  const order: string[] = [];
  const first = deferred();
  const request = gate.shared(async () => {
    order.push('request starts');
    await first.promise;
    order.push('request ends');
  });
  const inside = deferred();
  const reload = gate.exclusive(async () => {
    order.push('reload starts');
    await inside.promise;
    order.push('reload ends');
  });
  await settle();
  assert.deepEqual(order, ['request starts'], 'the reload waits for the request under way');
  first.resolve();
  await settle();
  assert.deepEqual(order, ['request starts', 'request ends', 'reload starts']);
  const late = gate.shared(() => order.push('late request'));
  await settle();
  assert.equal(order.includes('late request'), false, 'a request asked for during the reload waits');
  inside.resolve();
  await Promise.all([request, reload, late]);
  assert.deepEqual(order, ['request starts', 'request ends', 'reload starts', 'reload ends', 'late request']);
});

test('a waiting exclusive section does not hold new shared ones back (a long request stalls no other)', async () => {
  const gate = new SharedExclusiveGate();
  const long = deferred();
  const longRequest = gate.shared(() => long.promise);
  let reloaded = false;
  const reload = gate.exclusive(() => {
    reloaded = true;
  });
  const quick = await gate.shared(() => 'answered');
  assert.equal(quick, 'answered');
  assert.equal(reloaded, false);
  assert.equal(gate.sharedCount, 1);
  long.resolve();
  await Promise.all([longRequest, reload]);
  assert.equal(reloaded, true);
  assert.equal(gate.sharedCount, 0);
});

test('exclusive sections run one at a time in order; a failed one passes its error and lets the next run', async () => {
  const gate = new SharedExclusiveGate();
  const order: string[] = [];
  let running = 0;
  const section = (name: string, fail = false) =>
    gate.exclusive(async () => {
      running++;
      assert.equal(running, 1, `${name} runs alone`);
      await settle();
      order.push(name);
      running--;
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
  const results = await Promise.allSettled([section('a'), section('b', true), section('c')]);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.equal(results[0].status === 'fulfilled' && results[0].value, 'a');
  assert.equal(results[1].status === 'rejected' && (results[1].reason as Error).message, 'b failed');
  assert.equal(results[2].status === 'fulfilled' && results[2].value, 'c');
  // The shared side is free again, and a shared section's error reaches its caller.
  await assert.rejects(
    gate.shared(() => {
      throw new Error('request failed');
    }),
    /request failed/,
  );
  assert.equal(gate.sharedCount, 0);
});
