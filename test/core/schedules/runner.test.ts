// The schedule runner over a real store and real recall (hybrid search), with a fake clock: a due
// time runs once; a one-shot completes; failures retry with backoff and pause the schedule after
// N in a row with the reason; a run an earlier owner left under way is recorded as interrupted and
// retried, never run again for its due time; runs missed while nothing ran happen once, late;
// clock jumps forward and back; a digest by the pipeline's LLM (the fake Ollama) or, without a
// model, the goal and the recalled memories; notices claimed once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { searchFixture } from '../search/fixture';
import { ScheduleStore } from '../../../src/core/schedules/scheduleStore';
import { ScheduleRunner } from '../../../src/core/schedules/runner';
import { executeRun, memoriesChangedSince, type ExecuteDeps, type RunMemory } from '../../../src/core/schedules/digest';
import { claimDue } from '../../../src/core/schedules/runs';
import { claimNotice, pendingNotices, reminders, wantsNotice } from '../../../src/core/schedules/notices';
import type { ScheduleCadence, ScheduleDefinition, ScheduleRunRecord } from '../../../src/core/schedules/types';
import { OllamaProvider } from '../../../src/core/llm/ollamaProvider';
import type { LlmProvider } from '../../../src/core/llm/types';
import { FakeOllama } from '../../helpers/fakeOllama';

const T0 = Date.parse('2026-03-02T08:00:00.000Z'); // a Monday

async function setup(opts: { llm?: LlmProvider; fail?: () => boolean } = {}) {
  const f = await searchFixture();
  const clock = { t: T0 };
  const now = () => new Date(clock.t);
  const schedules = new ScheduleStore(f.store, { now, minIntervalSeconds: 60 });
  const search = f.searcher({ now });
  const deps: ExecuteDeps = {
    recall: async (query, limit): Promise<RunMemory[]> => {
      const r = await search.search({ query, limit });
      return r.results.map((h) => {
        const m = f.svc.get(h.memory.id)!;
        return { id: m.id, title: m.title, content: m.content, type: m.type, updatedAt: m.updatedAt };
      });
    },
    changedSince: (since, limit) => memoriesChangedSince(f.store, { projectId: f.svc.projectId, since, limit, now: now() }),
    llm: async () => opts.llm,
  };
  const executed: string[] = [];
  const finished: { schedule: ScheduleDefinition; run: ScheduleRunRecord }[] = [];
  const runner = (owner = 'test owner (pid 1)') =>
    new ScheduleRunner({
      schedules,
      owner,
      now,
      execute: async (s, run, signal) => {
        executed.push(`${s.id}@${run.dueAt}`);
        if (opts.fail?.()) throw new Error('the search index is damaged');
        return executeRun(s, run, deps, signal);
      },
      onRun: (done) => finished.push(done),
    });
  return { ...f, clock, now, schedules, runner, executed, finished, deps };
}

const cron = (expr: string, timezone = 'UTC'): ScheduleCadence => ({ kind: 'cron', expr, timezone });

test('a due time runs once: stepping again at the same moment runs nothing; the next due time follows the cadence', async () => {
  const t = await setup();
  await t.add({ content: 'The staging deploy needs the VPN and the deploy key from the vault.', title: 'Staging deploy' });
  const s = t.schedules.create({ goal: 'Check the staging deploy', cadence: cron('0 9 * * *') });
  const r = t.runner();
  await r.runStep(); // the first step only closes what an earlier owner left
  assert.equal(t.executed.length, 0);
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  await r.runStep();
  assert.deepEqual(t.executed, [`${s.id}@2026-03-02T09:00:00.000Z`]);
  const [done] = t.finished;
  assert.equal(done!.run.status, 'succeeded');
  assert.equal(done!.run.late, false);
  assert.match(done!.run.output!, /^Check the staging deploy\n\nRelevant memories:\n- Staging deploy: The staging deploy needs the VPN/);
  assert.deepEqual(done!.run.memoryIds.length, 1);
  assert.equal(done!.run.turnCount, 0, 'no model: no model call');
  assert.equal(done!.schedule.nextRunAt, '2026-03-03T09:00:00.000Z');
  assert.equal(done!.schedule.lastRunStatus, 'succeeded');
  assert.ok(r.dueInMs()! <= 60_000, 'the runner looks again within a minute');
  await t.store.close();
});

test('a one-shot completes after its run and is never due again', async () => {
  const t = await setup();
  const s = t.schedules.create({ goal: 'Remove the feature flag', cadence: { kind: 'once', at: '2026-03-02T10:00:00Z', timezone: 'UTC' } });
  const r = t.runner();
  t.clock.t = Date.parse('2026-03-02T10:00:30Z');
  await r.runStep();
  const after = t.schedules.get(s.id);
  assert.equal(after.status, 'completed');
  assert.equal(after.nextRunAt, null);
  assert.match(t.finished[0]!.run.output!, /No memory is relevant to it yet/);
  t.clock.t += 86_400_000;
  await r.runStep();
  assert.equal(t.executed.length, 1);
  assert.equal(r.dueInMs(), undefined, 'nothing active: the runner sleeps until woken');
  await t.store.close();
});

test('failures retry with backoff (1 and 4 minutes) and pause the schedule after 3 in a row, with the reason', async () => {
  let failing = true;
  const t = await setup({ fail: () => failing });
  const s = t.schedules.create({ goal: 'Nightly digest', cadence: cron('0 9 * * *') });
  const r = t.runner();
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  let now = t.schedules.get(s.id);
  assert.equal(now.consecutiveFailures, 1);
  assert.equal(now.nextRunAt, '2026-03-02T09:01:00.000Z');
  assert.equal(now.nextTrigger, 'retry');
  assert.equal(t.finished[0]!.run.error, 'the search index is damaged');
  t.clock.t = Date.parse('2026-03-02T09:01:00Z');
  await r.runStep();
  now = t.schedules.get(s.id);
  assert.equal(now.consecutiveFailures, 2);
  assert.equal(now.nextRunAt, '2026-03-02T09:05:00.000Z');
  t.clock.t = Date.parse('2026-03-02T09:05:00Z');
  await r.runStep();
  now = t.schedules.get(s.id);
  assert.equal(now.status, 'paused');
  assert.equal(now.nextRunAt, null);
  assert.equal(
    now.pauseReason,
    'Paused after 3 failed runs in a row. The last one: the search index is damaged. Resume it once the cause is fixed.',
  );
  const history = t.schedules.runHistory(s.id);
  assert.deepEqual(
    history.map((h) => h.trigger),
    ['retry', 'retry', 'schedule'],
  );
  assert.deepEqual(new Set(history.map((h) => h.dueAt)).size, 3, 'each attempt is its own due time');
  // Fixed and resumed: the failures are forgotten and the cadence goes on.
  failing = false;
  const resumed = t.schedules.update(s.id, { status: 'active' });
  assert.equal(resumed.consecutiveFailures, 0);
  assert.equal(resumed.nextRunAt, '2026-03-03T09:00:00.000Z');
  await t.store.close();
});

test('a run left under way by an owner that stopped is recorded as interrupted and retried, never run again for its due time', async () => {
  const t = await setup();
  const s = t.schedules.create({ goal: 'Weekly review', cadence: cron('0 9 * * *') });
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  // The first owner claims the due time (durably) and dies before finishing.
  const claimed = claimDue(t.schedules, s.id, { owner: 'agent-memory mcp (pid 41) #abcd', leaseMs: 600_000, now: t.now() })!;
  assert.equal(claimed.status, 'running');
  assert.equal(t.schedules.due(t.now(), 10).length, 0, 'under lease: not due for anyone else');
  // The next owner starts a minute later.
  t.clock.t += 60_000;
  const r = t.runner('VS Code window (pid 42)');
  await r.runStep();
  const old = t.schedules.runById(claimed.id);
  assert.equal(old.status, 'interrupted');
  assert.match(old.error!, /The process running it \(agent-memory mcp \(pid 41\)\) stopped before the run finished/);
  const after = t.schedules.get(s.id);
  assert.equal(after.nextTrigger, 'retry');
  assert.equal(after.nextRunAt, '2026-03-02T09:02:00.000Z');
  assert.equal(t.executed.length, 0, 'the interrupted due time is not run again');
  t.clock.t = Date.parse('2026-03-02T09:02:00Z');
  await r.runStep();
  assert.deepEqual(t.executed, [`${s.id}@2026-03-02T09:02:00.000Z`]);
  const runs = t.schedules.runHistory(s.id);
  assert.deepEqual(
    runs.map((x) => [x.dueAt, x.status]),
    [
      ['2026-03-02T09:02:00.000Z', 'succeeded'],
      ['2026-03-02T09:00:00.000Z', 'interrupted'],
    ],
  );
  // The unique (schedule, due time) index refuses a second claim of the old due time outright.
  assert.throws(
    () =>
      t.store.transaction((tx) =>
        tx.run("INSERT INTO schedule_runs (run_id, schedule_id, due_at, started_at, status) VALUES ('x', ?, ?, ?, 'running')", [
          s.id,
          '2026-03-02T09:00:00.000Z',
          t.now().toISOString(),
        ]),
      ),
    /UNIQUE/,
  );
  await t.store.close();
});

test('runs missed while nothing ran happen once at the next start, marked late, standing for the missed due times', async () => {
  const t = await setup();
  const s = t.schedules.create({ goal: 'Daily stand-up notes', cadence: cron('0 9 * * *') });
  // Nothing runs for three days and a bit (no owner, or a sleeping laptop: a clock jump forward).
  t.clock.t = Date.parse('2026-03-05T10:30:00Z');
  const r = t.runner();
  await r.runStep();
  assert.equal(t.executed.length, 1, 'once, not once per missed day');
  const run = t.finished[0]!.run;
  assert.equal(run.late, true);
  assert.equal(run.missed, 3, 'the 3rd, 4th and 5th at 09:00 came after the first missed one');
  assert.match(run.output!, /\(Late: this run stands for 4 due times missed while nothing ran\.\)/);
  assert.equal(t.schedules.get(s.id).nextRunAt, '2026-03-06T09:00:00.000Z', 'from now on, by the cadence');
  await t.store.close();
});

test('a clock set back never brings a due time back: no second run', async () => {
  const t = await setup();
  const s = t.schedules.create({
    goal: 'Hourly check',
    cadence: { kind: 'interval', everySeconds: 3600, anchor: '2026-03-02T09:00:00Z', timezone: 'UTC' },
  });
  const r = t.runner();
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  assert.equal(t.schedules.get(s.id).nextRunAt, '2026-03-02T10:00:00.000Z');
  // The clock goes back an hour (NTP correction, a manual change): 09:00 must not run again.
  t.clock.t = Date.parse('2026-03-02T08:10:00Z');
  await r.runStep();
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  assert.equal(t.executed.length, 1);
  assert.equal(t.schedules.get(s.id).nextRunAt, '2026-03-02T10:00:00.000Z');
  await t.store.close();
});

test('run now: a manual run records its outcome and leaves the course alone; refused while a run is under way', async () => {
  const t = await setup();
  const s = t.schedules.create({ goal: 'Release checklist', cadence: cron('0 9 * * 1') });
  const r = t.runner();
  const done = await r.runNow(s.id);
  assert.equal(done!.run.trigger, 'manual');
  assert.equal(done!.run.status, 'succeeded');
  assert.equal(t.schedules.get(s.id).nextRunAt, s.nextRunAt);
  claimDue(t.schedules, s.id, { owner: 'other', leaseMs: 60_000, now: new Date(s.nextRunAt!) });
  t.clock.t = Date.parse(s.nextRunAt!);
  await assert.rejects(r.runNow(s.id), /is running now; wait for that run to finish/);
  await t.store.close();
});

test('with the pipeline LLM (fake Ollama) a run writes a short digest; a failing model falls back to the memories', async () => {
  const fake = await FakeOllama.start({
    models: ['qwen3:4b'],
    reply: '<think>plan</think>Two things changed: the deploy key moved to the vault.',
  });
  const llm = new OllamaProvider({ host: fake.url, model: 'qwen3:4b', timeoutMs: 5000 });
  const t = await setup({ llm });
  await t.add({ content: 'The deploy key moved to the vault at secrets/deploy.', title: 'Deploy key' });
  const s = t.schedules.create({ goal: 'Tell me what changed in the deploy setup', cadence: cron('0 9 * * *') });
  const r = t.runner();
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  const run = t.finished[0]!.run;
  assert.equal(run.scheduleId, s.id);
  assert.equal(run.turnCount, 1);
  assert.equal(run.cost, 0);
  assert.match(
    run.output!,
    /^Tell me what changed in the deploy setup\n\nTwo things changed: the deploy key moved to the vault\.\n\n\(From 1 memory\.\)$/,
  );
  const prompt = String(fake.requestsTo('generate')[0]!.body.prompt);
  assert.match(prompt, /DATA from the memory store/);
  assert.match(prompt, /Deploy key: The deploy key moved to the vault/);
  // The model fails: the reminder still says what it is for and what is relevant.
  fake.enqueue('generate', { status: 500, body: { error: 'model crashed' } });
  t.clock.t = Date.parse('2026-03-03T09:00:00Z');
  await r.runStep();
  const second = t.finished[1]!.run;
  assert.equal(second.status, 'succeeded');
  assert.match(second.output!, /Relevant memories:\n- Deploy key/);
  assert.match(second.output!, /The model could not write a digest \(.*model crashed.*\), so the memories are listed instead\./);
  await t.store.close();
  await fake.close();
});

test('notices by policy: pending until one window claims each; on_failure only for failures; never for none', async () => {
  let failing = false;
  const t = await setup({ fail: () => failing });
  const always = t.schedules.create({ goal: 'a', cadence: cron('0 9 * * *') });
  const onFailure = t.schedules.create({ goal: 'b', cadence: cron('0 9 * * *'), notificationPolicy: 'on_failure' });
  const never = t.schedules.create({ goal: 'c', cadence: cron('0 9 * * *'), notificationPolicy: 'never' });
  const r = t.runner();
  t.clock.t = Date.parse('2026-03-02T09:00:00Z');
  await r.runStep();
  let pending = pendingNotices(t.store, t.now());
  assert.deepEqual(
    pending.map((n) => n.schedule.id),
    [always.id],
  );
  assert.equal(claimNotice(t.store, pending[0]!.run.id), true);
  assert.equal(claimNotice(t.store, pending[0]!.run.id), false, 'a second window does not show it again');
  assert.equal(pendingNotices(t.store, t.now()).length, 0);
  failing = true;
  t.clock.t = Date.parse('2026-03-03T09:00:00Z');
  await r.runStep();
  pending = pendingNotices(t.store, t.now());
  assert.deepEqual(pending.map((n) => n.schedule.id).sort(), [always.id, onFailure.id].sort());
  assert.ok(!pending.some((n) => n.schedule.id === never.id));
  assert.equal(wantsNotice('on_failure', 'interrupted'), true);
  assert.equal(wantsNotice('never', 'failed'), false);
  const seen = reminders(t.store, t.now());
  assert.equal(seen.recent.length, 6);
  assert.deepEqual(
    seen.dueSoon.map((s) => s.nextTrigger),
    ['retry', 'retry', 'retry'],
  );
  await t.store.close();
});
