/** Maintenance: diagnostics and score, recommendations, observe vs execute, rate limits, halt tracker, scheduling flags. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { enqueueMemoryJob } from '../../../src/core/jobs/enqueue';
import { leaseJob, jobCounts } from '../../../src/core/jobs/queue';
import { getDiagnostics } from '../../../src/core/maintenance/diagnostics';
import { buildRecommendations } from '../../../src/core/maintenance/recommendations';
import { HaltTracker } from '../../../src/core/maintenance/limits';
import { MaintenanceWorker, type MaintenanceSettings } from '../../../src/core/maintenance/worker';

const DAY = 86_400_000;
const settings = (over: Partial<MaintenanceSettings> = {}): MaintenanceSettings => ({
  enabled: true,
  mode: 'execute',
  intervalMs: 60_000,
  leaseTimeoutMs: 300_000,
  reembed: { cooldownMs: 300_000, hourlyBudget: 10 },
  requeue: { cooldownMs: 60_000, hourlyBudget: 50 },
  retention: {
    tombstoneRetentionMs: 30 * DAY,
    historyRetentionMs: 180 * DAY,
    completedJobRetentionMs: 14 * DAY,
    deadJobRetentionMs: 30 * DAY,
  },
  ...over,
});

async function unhealthy() {
  const store = await openPipelineStore(tmpDir('am-maint-'));
  let t = Date.parse('2026-03-01T12:00:00.000Z');
  const clock = { now: () => new Date(t), advance: (ms: number) => (t += ms) };
  const svc = new MemoryService(store, { projectId: 'p', now: clock.now });
  for (let i = 0; i < 4; i++)
    svc.create({ content: `Distinct note number ${i} about subsystem ${'abcdefgh'[i]} and its owner.`, allowNearDuplicate: true });
  store.transaction((tx) => {
    for (let i = 0; i < 10; i++) enqueueMemoryJob(tx, 'extract', `m${i}`, clock.now().toISOString());
    tx.run(`UPDATE memory_jobs SET status = 'dead', failed_at = ? WHERE memory_id IN ('m0', 'm1')`, [clock.now().toISOString()]);
  });
  leaseJob(store, ['extract'], 'gone', new Date(t - 600_000));
  return { store, svc, clock };
}

test('diagnostics, score and recommendations', async () => {
  const { store, svc, clock } = await unhealthy();
  const ids = svc.list({ limit: 10 }).items.map((m) => m.id);
  svc.delete(ids[0]!);
  svc.delete(ids[1]!);
  const r = getDiagnostics(store, { leaseTimeoutMs: 300_000, now: clock.now() });
  assert.equal(r.queue.dead, 2);
  assert.equal(r.queue.deadRate, 0.2);
  assert.equal(r.queue.staleLeases, 1);
  assert.equal(r.index.consistent, true);
  assert.equal(r.storage.tombstoneRatio, 0.5);
  assert.ok(r.score < 0.6 && r.score >= 0);
  assert.deepEqual(
    buildRecommendations(r).map((x) => x.action),
    ['requeueDeadJobs', 'releaseStaleLeases', 'triggerRetentionSweep'],
  );
  await store.close();
});

test('observe mode only reports; execute mode repairs, rate-limited, and records the health delta', async () => {
  const { store, clock } = await unhealthy();
  const observe = new MaintenanceWorker(store, () => settings({ mode: 'observe' }), { now: clock.now });
  const c0 = observe.tick();
  assert.equal(c0.repairs.length, 0);
  assert.equal(jobCounts(store).dead, 2, 'observe changes nothing');
  const w = new MaintenanceWorker(store, () => settings(), { now: clock.now });
  const c1 = w.tick();
  assert.deepEqual(
    c1.repairs.map((r) => [r.action, r.status]),
    [
      ['requeueDeadJobs', 'executed'],
      ['releaseStaleLeases', 'executed'],
    ],
  );
  assert.equal(jobCounts(store).dead, 0);
  assert.equal(jobCounts(store).leased, 0);
  assert.ok(c1.delta! > 0, `health improved: ${c1.before.score} → ${c1.after!.score}`);
  // Break it again at once: cooldown blocks the repair.
  store.transaction((tx) =>
    tx.run(`UPDATE memory_jobs SET status = 'dead', failed_at = ? WHERE memory_id = 'm5'`, [clock.now().toISOString()]),
  );
  const c2 = w.tick();
  assert.equal(c2.repairs[0]!.status, 'rate_limited');
  assert.match(c2.repairs[0]!.detail!, /cooldown/);
  clock.advance(61_000);
  assert.equal(w.tick().repairs[0]!.status, 'executed');
  await store.close();
});

test('halt tracker: an action that does not improve health 3 runs in a row is halted for the worker lifetime', async () => {
  const { store, clock } = await unhealthy();
  let runs = 0;
  // A repair that does nothing: health never improves.
  const w = new MaintenanceWorker(store, () => settings({ requeue: { cooldownMs: 5_000, hourlyBudget: 1000 } }), {
    now: clock.now,
    repairs: { requeueDeadJobs: () => `noop ${++runs}`, releaseStaleLeases: () => 'noop' },
  });
  for (let i = 0; i < 3; i++) {
    const c = w.tick();
    assert.equal(c.repairs.find((r) => r.action === 'requeueDeadJobs')!.status, 'executed');
    assert.equal(c.delta, 0);
    clock.advance(10_000);
  }
  const c4 = w.tick();
  assert.equal(c4.repairs.find((r) => r.action === 'requeueDeadJobs')!.status, 'halted');
  assert.ok(c4.halted.includes('requeueDeadJobs'));
  assert.equal(runs, 3);
  const h = new HaltTracker();
  h.record('checkFtsConsistency', false);
  h.record('checkFtsConsistency', false);
  h.reset(); // a healthy cycle
  h.record('checkFtsConsistency', false);
  assert.equal(h.isHalted('checkFtsConsistency'), false);
  assert.equal(h.record('checkFtsConsistency', false), false);
  assert.equal(h.record('checkFtsConsistency', false), true);
  await store.close();
});

test('FTS inconsistency is detected and rebuilt', async () => {
  const { store, clock } = await unhealthy();
  // Simulate a lost FTS row (bypassing triggers is only possible by deleting from the index).
  store.transaction((tx) => tx.run(`DELETE FROM memories_fts WHERE docid = (SELECT min(rid) FROM memories)`));
  const w = new MaintenanceWorker(store, () => settings(), { now: clock.now });
  const c = w.tick();
  assert.ok(c.recommendations.some((r) => r.action === 'checkFtsConsistency'));
  assert.equal(c.after!.index.consistent, true);
  await store.close();
});

test('the interval runs only when autonomousEnabled and not autonomousFrozen; tick() always works', async () => {
  const { store, clock } = await unhealthy();
  const off = new MaintenanceWorker(store, () => settings({ enabled: false }), { now: clock.now });
  assert.equal(off.start(), false);
  assert.ok(off.tick().before.score <= 1);
  const on = new MaintenanceWorker(store, () => settings(), { now: clock.now });
  assert.equal(on.start(), true);
  on.stop();
  await store.close();
});
