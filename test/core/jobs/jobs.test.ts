/** The job queue and worker: leasing, retries, dead jobs, dedup, reaper, backoff, clean stop (kill -9 mid-job: jobsCrash.test.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openPipelineStore } from '../../fixtures/pipelineStore';
import { enqueueDocumentJob, enqueueMemoryJob } from '../../../src/core/jobs/enqueue';
import { getJob, jobCounts, leaseJob, listJobs, reapStaleLeases, requeueDeadJobs } from '../../../src/core/jobs/queue';
import { JobWorker } from '../../../src/core/jobs/worker';
import { TransientJobError } from '../../../src/core/jobs/errors';
import { BACKOFF_CAP_MS, nextDelayMs } from '../../../src/core/jobs/backoff';
import { driveTasks } from '../../helpers/driveTasks';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

async function setup() {
  const store = await openPipelineStore(tmpDir('am-jobs-'));
  const enqueue = (id: string, at = T0) => store.transaction((tx) => enqueueMemoryJob(tx, 'extract', id, new Date(at).toISOString()));
  return { store, enqueue };
}

test('leasing takes the oldest pending job of the handled types, once; attempts counted at lease', async () => {
  const { store, enqueue } = await setup();
  enqueue('m2', T0 + 10);
  enqueue('m1', T0);
  store.transaction((tx) => enqueueDocumentJob(tx, 'document_ingest', 'd1', new Date(T0 - 5).toISOString()));
  const a = leaseJob(store, ['extract'], 'w1', new Date(T0 + 100))!;
  assert.equal(a.memoryId, 'm1');
  assert.equal(a.status, 'leased');
  assert.equal(a.attempts, 1);
  assert.equal(a.leasedBy, 'w1');
  const b = leaseJob(store, ['extract'], 'w2', new Date(T0 + 100))!;
  assert.equal(b.memoryId, 'm2', 'a leased job is never handed out twice');
  assert.equal(leaseJob(store, ['extract'], 'w3', new Date(T0 + 100)), undefined);
  assert.equal(leaseJob(store, ['document_ingest'], 'w3', new Date(T0 + 100))!.documentId, 'd1');
  await store.close();
});

test('enqueue deduplicates open jobs per memory and per document', async () => {
  const { store, enqueue } = await setup();
  assert.equal(enqueue('m1'), true);
  assert.equal(enqueue('m1'), false);
  assert.equal(
    store.transaction((tx) => enqueueDocumentJob(tx, 'document_ingest', 'd1', new Date(T0).toISOString())),
    true,
  );
  assert.equal(
    store.transaction((tx) => enqueueDocumentJob(tx, 'document_ingest', 'd1', new Date(T0).toISOString())),
    false,
  );
  assert.equal(listJobs(store).length, 2);
  await store.close();
});

test('failures retry until workerMaxRetries, then dead; requeue gives a fresh budget; transient errors spend nothing', async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  let calls = 0;
  let mode: 'fail' | 'transient' | 'ok' = 'fail';
  const worker = new JobWorker(store, {
    maxRetries: 2,
    handlers: {
      extract: async () => {
        calls++;
        if (mode === 'transient') throw new TransientJobError('llm away');
        if (mode === 'fail') throw new Error(`boom ${calls}`);
        return { fine: true };
      },
    },
  });
  assert.equal(await worker.tick(), 'failed');
  assert.equal(listJobs(store)[0]!.status, 'pending');
  assert.equal(await worker.tick(), 'failed');
  const dead = listJobs(store)[0]!;
  assert.equal(dead.status, 'dead');
  assert.equal(dead.lastError, 'boom 2');
  assert.equal(await worker.tick(), 'none');
  assert.equal(requeueDeadJobs(store, 10, new Date(T0)), 1);
  mode = 'transient';
  for (let i = 0; i < 4; i++) assert.equal(await worker.tick(), 'failed');
  assert.equal(listJobs(store)[0]!.attempts, 0);
  assert.equal(listJobs(store)[0]!.status, 'pending');
  mode = 'ok';
  assert.equal(await worker.tick(), 'ok');
  const done = listJobs(store)[0]!;
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.result, { fine: true });
  assert.equal(worker.consecutiveFailures, 0);
  await store.close();
});

test('stale-lease reaper returns old leases to pending and leaves fresh ones', async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  enqueue('m2', T0 + 1);
  leaseJob(store, ['extract'], 'w', new Date(T0));
  leaseJob(store, ['extract'], 'w', new Date(T0 + 250_000));
  assert.equal(reapStaleLeases(store, 300_000, new Date(T0 + 310_000)), 1);
  const jobs = listJobs(store);
  assert.equal(jobs.find((j) => j.memoryId === 'm1')!.status, 'pending');
  assert.equal(jobs.find((j) => j.memoryId === 'm2')!.status, 'leased');
  await store.close();
});

test('backoff: poll interval when healthy, 1 s doubling to a 30 s cap, jitter under 500 ms', () => {
  assert.equal(
    nextDelayMs(0, 2000, () => 0.99),
    2000,
  );
  assert.equal(
    nextDelayMs(1, 2000, () => 0),
    1000,
  );
  assert.equal(
    nextDelayMs(2, 2000, () => 0),
    2000,
  );
  assert.equal(
    nextDelayMs(3, 2000, () => 0),
    4000,
  );
  assert.equal(
    nextDelayMs(6, 2000, () => 0),
    BACKOFF_CAP_MS,
  );
  assert.equal(
    nextDelayMs(60, 2000, () => 0),
    BACKOFF_CAP_MS,
  );
  assert.equal(
    nextDelayMs(60, 2000, () => 0.999),
    BACKOFF_CAP_MS + 499,
  );
});

test('driven by the scheduler, the worker processes the queue; stop() waits for the job in flight and leaves nothing leased', async () => {
  const { store, enqueue } = await setup();
  for (let i = 0; i < 5; i++) enqueue(`m${i}`, T0 + i);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started = 0;
  const worker = new JobWorker(store, {
    pollMs: 20,
    handlers: {
      extract: async (job) => {
        started++;
        if (job.memoryId === 'm2') await gate; // in flight when stop() is called
        return { id: job.memoryId };
      },
    },
  });
  worker.start();
  const driven = driveTasks([worker]);
  while (started < 3) await new Promise((r) => setTimeout(r, 5));
  const stopping = worker.stop();
  release();
  await stopping;
  await driven.stop();
  const counts = jobCounts(store);
  assert.equal(counts.leased, 0);
  assert.equal(counts.completed, 3, 'the in-flight job finished before stop returned');
  assert.equal(counts.pending, 2);
  // A handler that never ends is cut short after the grace period and released.
  const hang = new JobWorker(store, {
    pollMs: 20,
    handlers: { extract: (_job, ctx) => new Promise((_, rej) => ctx.signal.addEventListener('abort', () => rej(new Error('aborted')))) },
  });
  hang.start();
  const hangDriven = driveTasks([hang]);
  while (jobCounts(store).leased === 0) await new Promise((r) => setTimeout(r, 5));
  await hang.stop({ graceMs: 10 });
  await hangDriven.stop();
  const after = listJobs(store, { status: 'pending' });
  assert.equal(jobCounts(store).leased, 0);
  assert.equal(after.length, 2);
  assert.ok(
    after.every((j) => j.attempts === 0),
    'a job cut short by shutdown keeps its attempt budget',
  );
  await store.close();
});

test('a restarted worker recovers leases orphaned by a dead process at start', async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  leaseJob(store, ['extract'], 'dead-process', new Date());
  const worker = new JobWorker(store, { pollMs: 10, handlers: { extract: async () => 'ok' } });
  worker.start();
  const driven = driveTasks([worker]);
  while (jobCounts(store).completed === 0) await new Promise((r) => setTimeout(r, 5));
  await worker.stop();
  await driven.stop();
  assert.equal(listJobs(store)[0]!.status, 'completed');
  await store.close();
});

test('a long job keeps its lease alive (heartbeat) and is not reaped while it runs', async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  const worker = new JobWorker(store, {
    leaseTimeoutMs: 3000, // heartbeat every second
    handlers: {
      extract: async (job) => {
        const t0 = Date.now();
        while (getJob(store, job.id)!.leasedAt === job.leasedAt) {
          if (Date.now() - t0 > 10_000) return { renewed: false };
          await new Promise((r) => setTimeout(r, 50));
        }
        const renewed = getJob(store, job.id)!;
        // Reaping with the renewed time as "now" finds nothing stale.
        return { renewed: true, reaped: reapStaleLeases(store, 3000, new Date(Date.parse(renewed.leasedAt!) + 1000)) };
      },
    },
  });
  assert.equal(await worker.tick(), 'ok');
  assert.deepEqual(listJobs(store)[0]!.result, { renewed: true, reaped: 0 });
  await store.close();
});

test("recovery and reaping only touch the worker's own job types", async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  store.transaction((tx) => enqueueMemoryJob(tx, 'embed', 'm1', new Date(T0).toISOString()));
  leaseJob(store, ['extract'], 'dead-process', new Date(T0));
  leaseJob(store, ['embed'], 'embed-worker', new Date(T0));
  assert.equal(reapStaleLeases(store, 1000, new Date(T0 + 5000), ['extract']), 1);
  assert.equal(listJobs(store, { type: 'embed' })[0]!.status, 'leased', "another worker's lease is left alone");
  await store.close();
});

test('a job being retried waits behind the jobs never tried: one failing job does not hold up the queue', async () => {
  const { store, enqueue } = await setup();
  enqueue('bad', T0);
  enqueue('m1', T0 + 10);
  enqueue('m2', T0 + 20);
  const order: string[] = [];
  const worker = new JobWorker(store, {
    maxRetries: 3,
    handlers: {
      extract: async (job) => {
        order.push(`${job.memoryId}#${job.attempts}`);
        if (job.memoryId === 'bad' && job.attempts < 2) throw new Error('model call timed out');
        return {};
      },
    },
  });
  for (let i = 0; i < 4; i++) await worker.tick();
  assert.deepEqual(order, ['bad#1', 'm1#1', 'm2#1', 'bad#2']);
  assert.deepEqual(jobCounts(store), { pending: 0, leased: 0, completed: 3, dead: 0, cancelled: 0 });
  await store.close();
});

test('as a background task: idle until started, due at once after start and after a job, pollMs when the queue is empty, idle after stop', async () => {
  const { store, enqueue } = await setup();
  enqueue('m1');
  const worker = new JobWorker(store, { pollMs: 5000, handlers: { extract: async () => 'ok' } });
  let wakes = 0;
  worker.onWake(() => wakes++);
  assert.equal(worker.dueInMs(), undefined, 'not started: nothing is due');
  await worker.runStep();
  assert.equal(jobCounts(store).pending, 1, 'a step of a stopped worker does nothing');
  worker.start();
  assert.equal(wakes, 1, 'start wakes the scheduler');
  assert.equal(worker.dueInMs(), 0);
  await worker.runStep();
  assert.equal(jobCounts(store).completed, 1);
  assert.equal(worker.dueInMs(), 0, 'a job completed: the next step is due at once');
  await worker.runStep();
  const idle = worker.dueInMs()!;
  assert.ok(idle > 4000 && idle <= 5000, `empty queue: due after pollMs, got ${idle}`);
  worker.wakeNow();
  assert.equal(worker.dueInMs(), 0, 'a job enqueued by a caller that wakes the worker: due at once');
  assert.equal(wakes, 2);
  await worker.stop();
  assert.equal(worker.dueInMs(), undefined);
  await store.close();
});
