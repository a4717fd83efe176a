// The scheduler owns the engine's periodic jobs: the expiry sweep (memory.cleanup_interval) of
// both stores and the snapshot policy tick; a reload restarts them with the new intervals;
// close stops them (setInterval is mocked there: the test moves time, not the wall clock). The
// scheduler also drives the stores' background tasks, and a closed engine leaves no timer.
import { test, mock } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WakeSignal, type BackgroundTask } from '../../../src/core/util/backgroundTask';
import { MemoryEngine } from '../../../src/engine/worker/engine';
import { TaskDriver } from '../../../src/engine/worker/scheduler';
import type { EngineEvent } from '../../../src/engine/protocol';
import { FakeOllama } from '../../helpers/fakeOllama';
import { engineDirs } from '../harness';
import { until } from '../../helpers/until';

test('expiry sweep of both stores every memory.cleanup_interval, snapshot tick, new interval after a reload', async (t) => {
  mock.timers.enable({ apis: ['setInterval'] });
  t.after(() => mock.timers.reset());
  let now = Date.now();
  const events: EngineEvent[] = [];
  const settings = { 'embedding.provider': 'hash', 'memory.cleanup_interval': 10_000, 'store.snapshotIdleMs': 1000 };
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 1000,
    now: () => new Date(now),
    onEvent: (e) => events.push(e),
    settings,
  });
  try {
    const ids: string[] = [];
    for (const scope of ['project', 'global'] as const) {
      const r = await engine.memories.create({ content: `A short-lived ${scope} note about today's standup.`, ttlSeconds: 60, scope });
      assert.equal(r.status, 'created');
      if (r.status === 'created') ids.push(r.memory.id);
    }
    const deleted = () =>
      events.filter((e) => e.type === 'memory.changed' && e.kind === 'expired').flatMap((e) => (e.type === 'memory.changed' ? e.ids : []));
    now += 120_000; // both have expired
    mock.timers.tick(9_000);
    assert.deepEqual(deleted(), [], 'not before memory.cleanup_interval');
    mock.timers.tick(1_000);
    assert.deepEqual(deleted().sort(), [...ids].sort(), 'the sweep ran over both stores');
    await new Promise((r) => setTimeout(r, 1100)); // the stores are idle for store.snapshotIdleMs (real time)…
    mock.timers.tick(1000); // …when the snapshot tick comes
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'snapshot'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      events.some((e) => e.type === 'snapshot'),
      'the snapshot policy ticked (idle store with writes)',
    );

    await engine.reloadConfig({ ...settings, 'memory.cleanup_interval': 30_000 });
    const r = await engine.memories.create({ content: 'Another short-lived note about the release checklist.', ttlSeconds: 60 });
    assert.equal(r.status, 'created');
    now += 120_000;
    mock.timers.tick(10_000);
    assert.equal(deleted().length, 2, 'the old 10 s interval is gone after the reload');
    mock.timers.tick(20_000);
    assert.equal(deleted().length, 3, 'the new 30 s interval runs');
  } finally {
    await engine.close();
  }
  const before = events.length;
  mock.timers.tick(60_000);
  assert.equal(events.length, before, 'close stopped every timer');
});

/**
 * Records every setTimeout / setInterval called from src/ until `restore()`: which were cleared or
 * have fired. Unref'd timers do not show in process.getActiveResourcesInfo(), hence the wrapping.
 */
function trackTimers(): { pending(): string[]; restore(): void } {
  const real = { setTimeout, setInterval, clearTimeout, clearInterval };
  const live = new Map<unknown, string>();
  const src = `${path.sep}src${path.sep}`;
  const fromSrc = (stack: string | undefined) => (stack ?? '').split('\n').find((l) => l.includes(src) && !l.includes('node_modules'));
  const g = globalThis as unknown as Record<string, unknown>;
  g.setTimeout = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const where = fromSrc(new Error().stack);
    const t = real.setTimeout(
      (...a: unknown[]) => {
        live.delete(t);
        fn(...a);
      },
      ms,
      ...args,
    );
    if (where) live.set(t, `setTimeout(${ms}) ${where.trim()}`);
    return t;
  };
  g.setInterval = (fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const t = real.setInterval(fn, ms, ...args);
    const where = fromSrc(new Error().stack);
    if (where) live.set(t, `setInterval(${ms}) ${where.trim()}`);
    return t;
  };
  g.clearTimeout = (t: NodeJS.Timeout | undefined) => {
    live.delete(t);
    real.clearTimeout(t);
  };
  g.clearInterval = (t: NodeJS.Timeout | undefined) => {
    live.delete(t);
    real.clearInterval(t);
  };
  return {
    pending: () => [...live.values()],
    restore: () => Object.assign(g, real),
  };
}

test('a closed engine leaves no timer: pipeline workers, backfill, retention, maintenance and the periodic jobs all stopped', async (t) => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'] });
  t.after(() => fake.close());
  const timers = trackTimers();
  t.after(() => timers.restore());
  const timeoutsBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  const warnings: string[] = [];
  const engine = await MemoryEngine.open({
    ...engineDirs(),
    snapshotTickMs: 1000,
    onEvent: (e) => {
      if (e.type === 'warning') warnings.push(e.message);
    },
    settings: {
      'embedding.provider': 'hash',
      'memory.pipelineV2.enabled': true,
      'memory.pipelineV2.ollamaUrl': fake.url,
      'memory.pipelineV2.autonomousEnabled': true,
      'memory.pipelineV2.workerPollMs': 50,
    },
  });
  let closed = false;
  try {
    fake.enqueue('generate', { reply: '{"facts":[],"entities":[]}' });
    const r = await engine.memories.create({ content: 'The release train leaves every second Thursday at noon.' });
    assert.equal(r.status, 'created');
    // The extraction job runs on the scheduler's timer (the worker has none of its own).
    for (let i = 0; i < 750 && engine.pipelines.status().jobs.completed !== 1; i++) await new Promise((res) => setTimeout(res, 20));
    assert.equal(engine.pipelines.status().jobs.completed, 1, 'the scheduler drove the extract worker');
    assert.ok(timers.pending().length > 0, 'the engine runs timers while open');
    await engine.reloadConfig({ 'embedding.provider': 'hash', 'memory.pipelineV2.enabled': false });
    await engine.close();
    closed = true;
  } finally {
    if (!closed) await engine.close();
  }
  assert.deepEqual(
    warnings.filter((w) => /failed/.test(w)),
    [],
    'no background step failed',
  );
  assert.deepEqual(timers.pending(), [], 'every timer set from src/ was cleared or has fired');
  const timeoutsAfter = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  assert.ok(timeoutsAfter <= timeoutsBefore, `active Timeout resources: ${timeoutsBefore} before, ${timeoutsAfter} after`);
});

/**
 * The timers src/core and src/engine may set outside src/engine/worker/scheduler.ts, per file: at most this many calls, each
 * with its reason. Periodic and retried background work is a BackgroundTask the scheduler drives (ARCHITECTURE.md
 * "Threads and timers"); what stays here are deadlines and waits scoped to one call, cleared when it ends.
 */
const TIMER_ALLOWLIST: Record<string, { max: number; why: string }> = {
  'src/engine/worker/services/team.ts': {
    max: 1,
    why: 'a sync asked while a configuration reload replaces the team task waits 100 ms × attempt (at most 10) for the new task, inside that one request',
  },
  'src/core/jobs/worker.ts': {
    max: 2,
    why: 'the lease heartbeat while one job runs and the grace deadline of stop(), both cleared when the job ends',
  },
  'src/core/search/rerank.ts': { max: 1, why: 'the rerank call deadline (timeout keeps the original order), cleared when it answers' },
  'src/core/search/queryExpansion.ts': {
    max: 1,
    why: 'the query expansion call deadline (timeout searches the query as written), cleared when it answers',
  },
  'src/core/store/retryScheduler.ts': {
    max: 1,
    why: 'the store recovers from a failed write (disk full) on its own, also without an engine (CLI); stopped by store.close()',
  },
  'src/core/embed/ollamaHttp.ts': {
    max: 2,
    why: "the HTTP request deadline, cleared when the request ends, and the probe's TCP check deadline (the socket's own, gone with it)",
  },
  'src/core/embed/useLite.ts': { max: 1, why: 'the model load deadline of the model worker thread, cleared when it loads or fails' },
  'src/core/embed/idleRelease.ts': {
    max: 1,
    why: "the built-in model's idle release (its worker or the engine thread's copy; unref), cleared on work and on dispose",
  },
  'src/core/memory/embedOnWrite.ts': {
    max: 1,
    why: 'how long a write waits for its embedding before it is stored pending, cleared when it answers',
  },
  'src/core/memory/reembed.ts': { max: 1, why: 'the wait between retries inside one re-embed run, ended by its AbortSignal' },
  'src/engine/worker/scheduler.ts': { max: 2, why: 'the scheduler: the periodic jobs and one timer per background task' },
  'src/engine/worker/owner/socketServer.ts': { max: 1, why: 'the hello deadline of a new socket connection' },
  'src/engine/worker/owner/drain.ts': {
    max: 2,
    why: "a closing owner's wait for the requests it accepted and the grace before its connections are cut, both cleared when they end",
  },
  'src/engine/worker/owner/globalRoute.ts': {
    max: 2,
    why: "a call's wait for an owner of global/ (cleared when the route settles) and the backoff between link attempts while nobody owns it",
  },
  'src/engine/worker/services/changes.ts': {
    max: 1,
    why: "events.wait's long-poll deadline, cleared when a change, a cancel or the deadline ends the call",
  },
  'src/engine/worker/services/pipelineControl.ts': {
    max: 1,
    why: 'a document.ingest request polling its document, bounded by the call signal',
  },
  'src/engine/client/engineClient.ts': {
    max: 4,
    why: 'the extension host side (request deadlines, start deadline, restart backoff or reconnection), not the engine thread',
  },
  'src/engine/client/socketTransport.ts': { max: 2, why: 'extension host side: the close grace and the connect deadline' },
  'src/engine/client/sharedTransport.ts': { max: 1, why: 'extension host side: the wait before connecting again' },
};

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

test('no new setTimeout / setInterval under src/core or src/engine: background work goes through the scheduler', () => {
  const root = path.resolve(__dirname, '../../..');
  const found: string[] = [];
  for (const file of ['src/core', 'src/engine'].flatMap((d) => tsFiles(path.join(root, d)))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const code = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l));
    const calls = code.filter((l) => /\bset(Timeout|Interval)\(|timers\/promises|from 'node:timers'/.test(l)).length;
    const allowed = TIMER_ALLOWLIST[rel];
    if (calls > (allowed?.max ?? 0)) found.push(`${rel}: ${calls} timer call(s), ${allowed?.max ?? 0} allowed`);
  }
  assert.deepEqual(found, [], 'make it a BackgroundTask (src/core/util/backgroundTask.ts) or add it to TIMER_ALLOWLIST with its reason');
});

/** A task whose due time the test sets; a step takes `stepMs` and may throw. */
class ScriptedTask implements BackgroundTask {
  readonly name = 'scripted';
  due: number | undefined;
  steps = 0;
  /** Steps that have ended (returned or thrown). */
  ended = 0;
  running = 0;
  maxRunning = 0;
  failNext = false;
  readonly wake = new WakeSignal();

  constructor(private readonly stepMs: number) {}

  dueInMs(): number | undefined {
    return this.due;
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  async runStep(): Promise<void> {
    this.steps++;
    this.due = undefined; // the step takes the work that was due; work arriving meanwhile stays due
    this.running++;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    await new Promise((r) => setTimeout(r, this.stepMs));
    this.running--;
    this.ended++;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('step broke');
    }
  }
}

test('TaskDriver: a step when due, none while idle, a wake re-arms, never two steps of a task at once, errors reported', async () => {
  const task = new ScriptedTask(50);
  const errors: string[] = [];
  const driver = new TaskDriver();
  driver.drive([task], (t, e) => errors.push(`${t.name}: ${(e as Error).message}`));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(task.steps, 0, 'nothing due: no step');
  task.due = 0;
  task.wake.fire();
  await until('a wake with work due runs a step', () => task.steps === 1, { timeoutMs: 15_000, intervalMs: 10 });
  task.due = 0;
  task.wake.fire(); // during the step: waits for it
  task.wake.fire();
  await until('the work that came during the step runs after it', () => task.steps === 2, { timeoutMs: 15_000, intervalMs: 10 });
  assert.equal(task.maxRunning, 1, 'never two steps at once');
  // Step 2 must end before the next work is set: set during it, the work (and failNext) would be
  // taken by step 2 or by a step the driver re-arms after it, and the test would race the driver.
  await until('the second step ends', () => task.ended === 2, { timeoutMs: 15_000, intervalMs: 10 });
  task.failNext = true;
  task.due = 0;
  task.wake.fire();
  await until('the failing step is reported', () => errors.length === 1, { timeoutMs: 15_000, intervalMs: 10 });
  assert.deepEqual(errors, ['scripted: step broke']);
  task.due = 0;
  task.wake.fire();
  await until('the task is driven on after a failure', () => task.steps === 4, { timeoutMs: 15_000, intervalMs: 10 });
  task.due = 0;
  task.wake.fire();
  await driver.stop();
  const steps = task.steps;
  task.due = 0;
  task.wake.fire();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(task.steps, steps, 'stopped: no step, wakes are ignored');
});
