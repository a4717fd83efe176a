/** ModelCallWatch: "waiting for the model" while a call runs long or calls keep timing out. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelCallWatch, watchModelCalls } from '../../../src/core/llm/callWatch';
import { LlmError, type LlmProvider } from '../../../src/core/llm/types';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

test('a call running past the notice time means waiting for the model, since its start', () => {
  let now = T0;
  const w = new ModelCallWatch({ stallNoticeMs: 10_000, now: () => now });
  const end = w.begin();
  now += 9_999;
  assert.deepEqual(w.state(), { waitingForModel: false });
  now += 1;
  assert.deepEqual(w.state(), { waitingForModel: true, waitingSince: new Date(T0).toISOString() });
  end('ok');
  assert.deepEqual(w.state(), { waitingForModel: false });
});

test('timeouts keep the state until a call succeeds; other failures do not set it', () => {
  let now = T0;
  const w = new ModelCallWatch({ stallNoticeMs: 10_000, now: () => now });
  w.begin()('failed');
  assert.equal(w.state().waitingForModel, false);
  w.begin()('timeout');
  const since = new Date(now).toISOString();
  now += 60_000;
  w.begin()('timeout');
  assert.deepEqual(w.state(), { waitingForModel: true, waitingSince: since }, 'since the first timeout of the streak');
  w.begin()('ok');
  assert.deepEqual(w.state(), { waitingForModel: false });
});

test('watchModelCalls records generate outcomes and passes everything else through', async () => {
  let fail: LlmError | undefined;
  const llm: LlmProvider & { extra(): string } = {
    id: 'x:y',
    model: 'y',
    generate: async () => {
      if (fail) throw fail;
      return 'answer';
    },
    available: async () => true,
    extra() {
      return this.model;
    },
  };
  const w = new ModelCallWatch();
  const watched = watchModelCalls(llm, w);
  assert.equal(watched.id, 'x:y');
  assert.equal(watched.extra(), 'y');
  assert.equal(await watched.generate('p'), 'answer');
  fail = new LlmError('slow', 'timeout');
  await assert.rejects(watched.generate('p'), /slow/);
  assert.equal(w.state().waitingForModel, true);
  fail = undefined;
  await watched.generate('p');
  assert.equal(w.state().waitingForModel, false);
});
