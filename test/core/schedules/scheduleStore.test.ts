// The scheduler's store API over a real store (sql.js + op log), with a fake clock: create, get,
// search with filters (count + page), count, update with a patch, delete (runs cascade), due on
// the next_run_at index, record run + reschedule in one transaction, prune, history, run by id;
// and everything replayed from the op log after a reopen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { Store } from '../../../src/core/store/store';
import { ScheduleStore } from '../../../src/core/schedules/scheduleStore';
import { claimDue } from '../../../src/core/schedules/runs';
import type { ScheduleCadence } from '../../../src/core/schedules/types';
import { UserFacingError } from '../../../src/core/util/errors';

const T0 = Date.parse('2026-03-02T12:00:00.000Z');

async function setup(dir = tmpDir('am-sched-')) {
  const clock = { t: T0 };
  const now = () => new Date(clock.t);
  const store = await Store.open({ dir });
  const schedules = new ScheduleStore(store, { now });
  return { dir, store, schedules, clock, now };
}

const daily = (expr = '0 9 * * *', timezone = 'UTC'): ScheduleCadence => ({ kind: 'cron', expr, timezone });
const code = (c: string, re?: RegExp) => (e: unknown) => e instanceof UserFacingError && e.code === c && (!re || re.test(e.message));

test('create validates and computes the first due time; get, count and find', async () => {
  const { store, schedules } = await setup();
  const s = schedules.create({
    goal: '  Check the release notes  ',
    name: 'Release',
    cadence: daily(),
    channelId: 'cli',
    channelContextId: 'tty',
    createdBy: 'user',
  });
  assert.equal(s.goal, 'Check the release notes');
  assert.equal(s.status, 'active');
  assert.equal(s.notificationPolicy, 'always');
  assert.equal(s.nextRunAt, '2026-03-03T09:00:00.000Z');
  assert.equal(s.channelId, 'cli');
  assert.equal(s.userId, 'local');
  assert.deepEqual(schedules.get(s.id), s);
  assert.equal(schedules.count(), 1);
  assert.equal(schedules.count('someone else'), 0);
  assert.equal(schedules.find('nope'), undefined);
  assert.throws(() => schedules.get('nope'), code('not_found', /No schedule with id nope/));
  await store.close();
});

test('bad input is a clear error and stores nothing', async () => {
  const { store, schedules } = await setup();
  assert.throws(() => schedules.create({ goal: '', cadence: daily() }), code('invalid_input', /goal: say what the reminder is for/));
  assert.throws(
    () => schedules.create({ goal: 'x'.repeat(2001), cadence: daily() }),
    code('invalid_input', /goal: is 2001 characters long; at most 2000 fit/),
  );
  assert.throws(() => schedules.create({ goal: 'g', cadence: daily('nonsense') }), code('invalid_input', /not a valid cron expression/));
  assert.throws(
    () => schedules.create({ goal: 'g', cadence: daily('0 9 * * *', 'Atlantis/Capital') }),
    code('invalid_input', /unknown time zone/),
  );
  assert.throws(
    () => schedules.create({ goal: 'g', cadence: { kind: 'once', at: '2026-03-01T00:00:00Z', timezone: 'UTC' } }),
    code('invalid_input', /in the past/),
  );
  assert.throws(
    () => schedules.create({ goal: 'g', cadence: daily(), notificationPolicy: 'sometimes' as never }),
    code('invalid_input', /notificationPolicy/),
  );
  assert.throws(() => schedules.create({ goal: 'g', cadence: daily(), channelId: 'fax' as never }), code('invalid_input', /channelId/));
  assert.equal(schedules.count(), 0);
  await store.close();
});

test('search filters and pages with a total; order by next due time, creation or name', async () => {
  const { store, schedules, clock } = await setup();
  const a = schedules.create({ goal: 'Rotate the API keys', name: 'keys', cadence: daily('0 8 * * *') });
  clock.t += 1000;
  const b = schedules.create({ goal: 'Review open pull requests', name: 'PRs', cadence: daily('0 7 * * *'), channelId: 'mcp' });
  clock.t += 1000;
  const c = schedules.create({ goal: 'Remove the feature flag', cadence: { kind: 'once', at: '2026-04-02T07:00:00Z', timezone: 'UTC' } });
  schedules.update(c.id, { status: 'paused' });
  assert.deepEqual(
    schedules.search().items.map((s) => s.id),
    [b.id, a.id, c.id],
    'soonest first, paused last',
  );
  assert.deepEqual(
    schedules.search({ order: 'created' }).items.map((s) => s.id),
    [c.id, b.id, a.id],
  );
  assert.deepEqual(
    schedules.search({ order: 'name' }).items.map((s) => s.name ?? s.goal),
    ['keys', 'PRs', 'Remove the feature flag'],
  );
  const page = schedules.search({ limit: 2, offset: 1 });
  assert.equal(page.total, 3);
  assert.deepEqual(
    page.items.map((s) => s.id),
    [a.id, c.id],
  );
  assert.deepEqual(
    schedules.search({ status: 'paused' }).items.map((s) => s.id),
    [c.id],
  );
  assert.deepEqual(
    schedules.search({ channelId: 'mcp' }).items.map((s) => s.id),
    [b.id],
  );
  assert.deepEqual(
    schedules.search({ text: 'the KEYS' }).items.map((s) => s.id),
    [a.id],
    'every word, in the goal or the name',
  );
  assert.deepEqual(
    schedules.search({ dueBefore: '2026-03-03T07:30:00Z' }).items.map((s) => s.id),
    [b.id],
  );
  assert.throws(() => schedules.search({ limit: 0 }), code('invalid_input', /limit/));
  assert.throws(() => schedules.search({ status: 'gone' as never }), code('invalid_input', /status/));
  assert.throws(() => schedules.search({ dueBefore: 'soon' }), code('invalid_input', /dueBefore/));
  await store.close();
});

test('update: a patch of the given fields; pause clears the due time with a reason; resume sets it from now', async () => {
  const { store, schedules, clock } = await setup();
  const s = schedules.create({ goal: 'Weekly digest', cadence: daily('0 10 * * 1', 'Europe/Berlin') });
  assert.equal(s.nextRunAt, '2026-03-09T09:00:00.000Z');
  const renamed = schedules.update(s.id, { name: 'Digest', notificationPolicy: 'on_failure' });
  assert.equal(renamed.name, 'Digest');
  assert.equal(renamed.notificationPolicy, 'on_failure');
  assert.equal(renamed.nextRunAt, s.nextRunAt, 'the due time is untouched by a rename');
  const moved = schedules.update(s.id, { cadence: daily('0 10 * * 3', 'Europe/Berlin') });
  assert.equal(moved.nextRunAt, '2026-03-04T09:00:00.000Z');
  const paused = schedules.update(s.id, { status: 'paused', pauseReason: 'On holiday' });
  assert.equal(paused.status, 'paused');
  assert.equal(paused.nextRunAt, null);
  assert.equal(paused.pauseReason, 'On holiday');
  assert.equal(schedules.due(new Date('2030-01-01T00:00:00Z'), 10).length, 0, 'a paused schedule is never due');
  clock.t = Date.parse('2026-03-05T12:00:00Z');
  const resumed = schedules.update(s.id, { status: 'active' });
  assert.equal(resumed.status, 'active');
  assert.equal(resumed.pauseReason, null);
  assert.equal(resumed.nextRunAt, '2026-03-11T09:00:00.000Z', 'from now, not from when it was paused');
  assert.throws(() => schedules.update(s.id, { cadence: daily('* * * * *') }), code('invalid_input', /shortest time between runs/));
  assert.throws(() => schedules.update(s.id, { goal: ' ' }), code('invalid_input', /goal/));
  assert.throws(() => schedules.update('nope', { name: 'x' }), code('not_found'));
  await store.close();
});

test('due uses the next_run_at index, skips leased schedules, and is soonest first', async () => {
  const { store, schedules } = await setup();
  const late = schedules.create({ goal: 'b', cadence: daily('0 11 * * *') });
  const early = schedules.create({ goal: 'a', cadence: daily('0 10 * * *') });
  schedules.create({ goal: 'c', cadence: daily('0 12 * * 0') });
  const at = new Date('2026-03-03T11:30:00Z');
  assert.deepEqual(
    schedules.due(at, 10).map((s) => s.id),
    [early.id, late.id],
  );
  assert.deepEqual(
    schedules.due(at, 1).map((s) => s.id),
    [early.id],
  );
  const plan = store.all<{ detail: string }>(
    "EXPLAIN QUERY PLAN SELECT * FROM schedules WHERE status = 'active' AND next_run_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?) ORDER BY next_run_at LIMIT ?",
    ['x', 'x', 1],
  );
  assert.ok(
    plan.some((r) => /idx_schedules_due/.test(r.detail)),
    `uses the due index: ${JSON.stringify(plan)}`,
  );
  claimDue(schedules, early.id, { owner: 'test', leaseMs: 60_000, now: at });
  assert.deepEqual(
    schedules.due(at, 10).map((s) => s.id),
    [late.id],
    'a schedule whose run is under way is not due again',
  );
  await store.close();
});

test('record run and reschedule is one transaction; history newest first; run by id; prune keeps N; delete cascades', async () => {
  const { store, schedules } = await setup();
  const s = schedules.create({ goal: 'Stand-up notes', cadence: daily() });
  const runIds: string[] = [];
  let due = new Date(s.nextRunAt!);
  for (let i = 0; i < 5; i++) {
    const run = claimDue(schedules, s.id, { owner: 'test', leaseMs: 60_000, now: due })!;
    assert.ok(run, `run ${i} claimed`);
    assert.equal(run.status, 'running');
    assert.equal(run.finishedAt, null);
    const seqBefore = store.stats().seq;
    const next = new Date(due.getTime() + 86_400_000);
    schedules.recordRunAndReschedule(
      s.id,
      run.id,
      {
        status: 'succeeded',
        finishedAt: due.toISOString(),
        output: `notes ${i} ${'x'.repeat(600)}`,
        memoryIds: ['m1'],
        turnCount: 1,
        cost: 0,
      },
      { nextRunAt: next.toISOString(), consecutiveFailures: 0 },
    );
    assert.equal(store.stats().seq, seqBefore + 1, 'one logged transaction');
    runIds.push(run.id);
    due = next;
  }
  const history = schedules.runHistory(s.id, 10);
  assert.deepEqual(
    history.map((r) => r.id),
    [...runIds].reverse(),
  );
  const last = schedules.runById(runIds[4]!);
  assert.equal(last.status, 'succeeded');
  assert.equal(last.outputSummary!.length, 500, 'the summary is the first 500 characters');
  assert.ok(last.output!.length > 500);
  assert.deepEqual(last.memoryIds, ['m1']);
  assert.equal(last.turnCount, 1);
  const after = schedules.get(s.id);
  assert.equal(after.lastRunStatus, 'succeeded');
  assert.equal(after.nextRunAt, due.toISOString());
  assert.equal(after.runningRunId, null, 'the lease is released');
  assert.equal(schedules.pruneRunHistory(s.id, 2), 3);
  assert.deepEqual(
    schedules.runHistory(s.id).map((r) => r.id),
    [runIds[4], runIds[3]],
  );
  assert.throws(() => schedules.runById(runIds[0]!), code('not_found', /No schedule run/));
  assert.equal(schedules.delete(s.id), true);
  assert.equal(schedules.delete(s.id), false);
  assert.equal(Number(store.get<{ n: number }>('SELECT count(*) AS n FROM schedule_runs')!.n), 0, 'runs go with their schedule');
  await store.close();
});

test('schedules and runs are replayed from the op log after a reopen (no snapshot)', async () => {
  const first = await setup();
  const s = first.schedules.create({ goal: 'Replay me', cadence: daily(), channelId: 'vscode', channelContextId: 'window-1' });
  const run = claimDue(first.schedules, s.id, { owner: 'test', leaseMs: 60_000, now: new Date(s.nextRunAt!) })!;
  first.schedules.recordRunAndReschedule(
    s.id,
    run.id,
    { status: 'succeeded', finishedAt: s.nextRunAt!, output: 'done' },
    { nextRunAt: '2026-03-04T09:00:00.000Z', consecutiveFailures: 0 },
  );
  const before = { schedule: first.schedules.get(s.id), runs: first.schedules.runHistory(s.id) };
  await first.store.close({ snapshot: false });
  const second = await setup(first.dir);
  assert.ok(second.store.stats().replayedRecords >= 3, 'read back from the log');
  assert.deepEqual(second.schedules.get(s.id), before.schedule);
  assert.deepEqual(second.schedules.runHistory(s.id), before.runs);
  await second.store.close();
});

test('a read-only store refuses a new schedule with the reason', async () => {
  const { dir, store } = await setup();
  const reader = await Store.open({ dir, readOnly: true, readOnlyReason: 'Another window owns this store.' });
  const schedules = new ScheduleStore(reader, { now: () => new Date(T0) });
  assert.throws(() => schedules.create({ goal: 'g', cadence: daily() }), code('store_read_only', /Another window owns this store/));
  await reader.close();
  await store.close();
});
