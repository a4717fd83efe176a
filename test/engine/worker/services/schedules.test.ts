// Schedules through the real engine (hosted in-process): the protocol's handlers, phrases read in
// a zone, the runner driven by the engine's scheduler (a run within seconds of its due time, its
// event and notice), run now, snooze, notices claimed once, reminders for agents, the pipeline's
// LLM (fake Ollama) writing the digest, and a read-only store refusing with the reason.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import { EngineError } from '../../../../src/engine/errors';
import type { EngineEvent, EngineMethod, ParamsOf, ResultOf } from '../../../../src/engine/protocol';
import type { CallContext } from '../../../../src/engine/worker/engine';
import { engineDirs } from '../../harness';
import { FakeOllama } from '../../../helpers/fakeOllama';

const HASH = { 'embedding.provider': 'hash' };

/** The first value `read` gives that is not undefined, polled every 50 ms (a real engine's timers run meanwhile). */
async function until<T>(read: () => T | undefined, opts: { timeoutMs: number }): Promise<T> {
  const end = Date.now() + opts.timeoutMs;
  for (;;) {
    const v = read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`nothing after ${opts.timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function open(
  dirs = engineDirs(),
  settings: Record<string, unknown> = {},
  extra: Partial<Parameters<typeof MemoryEngine.open>[0]> = {},
) {
  const events: EngineEvent[] = [];
  const engine = await MemoryEngine.open({
    ...dirs,
    snapshotTickMs: 0,
    purpose: 'test window (pid 1)',
    onEvent: (e) => events.push(e),
    settings: { ...HASH, ...settings },
    ...extra,
  });
  const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
  const ctx = { signal: new AbortController().signal } as unknown as CallContext;
  // As the RPC server calls them: a handler that throws becomes a rejected request.
  const call = async <M extends EngineMethod>(m: M, p: ParamsOf<M>): Promise<ResultOf<M>> => (handlers[m] as any)(engine, p, ctx);
  return { engine, events, dirs, call };
}

const rejectsWith = (p: Promise<unknown>, code: string, re: RegExp) =>
  assert.rejects(p, (e: unknown) => (e as EngineError).code === code && re.test((e as Error).message));

test('create from a phrase in a zone, preview, list, update (pause, resume, new when), delete — through the handlers', async () => {
  const { engine, call, events } = await open();
  const preview = await call('schedules.preview', { when: 'every weekday at 09:00', timezone: 'Europe/Berlin' });
  assert.match(preview.description, /^every weekday at 09:00 Europe\/Berlin, next /);
  const s = await call('schedules.create', {
    goal: 'Check the flaky tests dashboard',
    when: 'every weekday at 09:00',
    timezone: 'Europe/Berlin',
    channelId: 'cli',
    channelContextId: 'terminal',
  });
  assert.deepEqual(s.cadence, { kind: 'cron', expr: '0 9 * * 1-5', timezone: 'Europe/Berlin' });
  assert.equal(s.nextRunAt, preview.nextRunAt);
  assert.ok(events.some((e) => e.type === 'schedules.changed' && e.ids.includes(s.id)));
  const listed = await call('schedules.list', { text: 'flaky' });
  assert.equal(listed.total, 1);
  const paused = await call('schedules.update', { id: s.id, patch: { status: 'paused' } });
  assert.equal(paused.status, 'paused');
  const moved = await call('schedules.update', { id: s.id, patch: { when: 'every Monday at 10', timezone: 'UTC', status: 'active' } });
  assert.deepEqual(moved.cadence, { kind: 'cron', expr: '0 10 * * 1', timezone: 'UTC' });
  assert.equal(moved.status, 'active');
  await rejectsWith(call('schedules.create', { goal: 'x', when: 'whenever' }), 'invalid_input', /not a time this understands/);
  await rejectsWith(call('schedules.create', { goal: 'x' } as never), 'invalid_input', /when: say when it runs/);
  await rejectsWith(call('schedules.create', { goal: 'x', when: 'tomorrow', timezone: 'Moon/Base' }), 'invalid_input', /unknown time zone/);
  await rejectsWith(
    call('schedules.create', { goal: 'x', when: 'in 2 hours', notificationPolicy: 'loud' as never }),
    'invalid_input',
    /notificationPolicy: must be one of always, on_failure, never/,
  );
  await rejectsWith(call('schedules.snooze', { id: s.id, seconds: 5 }), 'invalid_input', /seconds: must be a whole number from 60/);
  assert.deepEqual(await call('schedules.delete', { id: s.id }), { deleted: true });
  await rejectsWith(call('schedules.delete', { id: s.id }), 'not_found', /No schedule with id/);
  await rejectsWith(call('schedules.runs', { id: s.id }), 'not_found', /No schedule with id/);
  assert.equal(await call('schedules.get', { id: s.id }), null);
  await engine.close();
});

test('the scheduler runs a due schedule within seconds, emits its run with notify, and the notice is claimed once', async () => {
  const { engine, call, events } = await open();
  await engine.memories.create({ content: 'The nightly build publishes to the staging bucket at 02:00.', title: 'Nightly build' });
  const at = new Date(Date.now() + 1500).toISOString();
  const s = await call('schedules.create', {
    goal: 'Check the nightly build',
    cadence: { kind: 'once', at, timezone: 'UTC' },
    channelId: 'vscode',
    channelContextId: 'window-a',
  });
  const ran = await until(() => events.find((e): e is Extract<EngineEvent, { type: 'schedule.ran' }> => e.type === 'schedule.ran'), {
    timeoutMs: 10_000,
  });
  assert.equal(ran.schedule.id, s.id);
  assert.equal(ran.run.status, 'succeeded');
  assert.equal(ran.notify, true);
  assert.equal(ran.schedule.status, 'completed');
  assert.match(ran.run.output!, /Nightly build: The nightly build publishes/);
  assert.ok(Date.parse(ran.run.startedAt) - Date.parse(at) < 5000, 'on time');
  const notices = await call('schedules.notices', {});
  assert.deepEqual(
    notices.map((n) => n.run.id),
    [ran.run.id],
  );
  assert.equal(notices[0]!.schedule.channelContextId, 'window-a');
  assert.deepEqual(await call('schedules.claimNotice', { runId: ran.run.id }), { claimed: true });
  assert.deepEqual(await call('schedules.claimNotice', { runId: ran.run.id }), { claimed: false });
  assert.deepEqual(await call('schedules.notices', {}), []);
  const history = await call('schedules.runs', { id: s.id });
  assert.equal(history[0]!.notified, true);
  assert.deepEqual(await call('schedules.run', { runId: ran.run.id }), history[0]);
  const seen = await call('schedules.reminders', {});
  assert.deepEqual(
    seen.recent.map((r) => r.run.id),
    [ran.run.id],
  );
  await engine.close();
});

test('run now and snooze: a manual run leaves the course alone; a snoozed one-shot comes back once', async () => {
  const { engine, call } = await open();
  const s = await call('schedules.create', { goal: 'Rotate the signing key', when: 'in 3 days', timezone: 'UTC' });
  const run = await call('schedules.runNow', { id: s.id });
  assert.equal(run.trigger, 'manual');
  assert.equal(run.status, 'succeeded');
  assert.equal((await call('schedules.get', { id: s.id }))!.nextRunAt, s.nextRunAt);
  const snoozed = await call('schedules.snooze', { id: s.id, seconds: 3600 });
  assert.equal(snoozed.nextTrigger, 'snooze');
  assert.ok(Math.abs(Date.parse(snoozed.nextRunAt!) - (Date.now() + 3_600_000)) < 10_000);
  await engine.close();
});

test('with the pipeline on, the digest is written by its LLM (fake Ollama)', async () => {
  const fake = await FakeOllama.start({ models: ['qwen3:4b'], reply: 'The release checklist says: tag, build, publish.' });
  const { engine, call } = await open(engineDirs(), { 'memory.pipelineV2.enabled': true, 'memory.pipelineV2.ollamaUrl': fake.url });
  await engine.memories.create({ content: 'Release checklist: tag the commit, build the VSIX, publish it.', title: 'Release checklist' });
  const s = await call('schedules.create', { goal: 'What is on the release checklist?', when: 'in 2 days', timezone: 'UTC' });
  const run = await call('schedules.runNow', { id: s.id });
  assert.equal(run.turnCount, 1);
  assert.match(run.output!, /The release checklist says: tag, build, publish\./);
  assert.ok(fake.count('generate') >= 1);
  await engine.close();
  await fake.close();
});

test('a read-only project store refuses schedules with the reason, and runs nothing', async () => {
  const first = await open();
  const second = await open(first.dirs); // the store is locked by the first: opened read-only
  await rejectsWith(second.call('schedules.create', { goal: 'g', when: 'in 2 hours' }), 'store_read_only', /read-only/);
  await rejectsWith(second.call('schedules.runNow', { id: 'x' }), 'store_read_only', /read-only/);
  assert.deepEqual(second.engine.schedules.tasks(), [], 'no runner where the store is not owned');
  await second.engine.close();
  await first.engine.close();
});
