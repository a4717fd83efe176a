/**
 * Notices of schedule runs in VS Code (docs/schedules.md "Notices"): when a run finishes whose
 * policy wants a notice, and at start for runs nobody was shown yet, this window claims each
 * notice (a compare-and-set in the store, so of several windows exactly one shows it) and shows
 * it with Open (the run as a document), Snooze (an hour; a done one-shot comes back once) and
 * Pause (what still runs).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { ScheduleNotice } from '../../engine/scheduleProtocol';
import { noticeText, runDocument } from '../../core/schedules/describe';
import { Debounced } from '../common/debounce';
import type { Logger } from '../host/log';
import { showReadOnlyMarkdown } from '../common/readOnlyDocument';

const SNOOZE_SECONDS = 3600;
const AT_ONCE = 5;

export function registerScheduleNotices(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): void {
  let checking: Promise<void> = Promise.resolve();
  const later = new Debounced(() => {
    checking = checking.then(() => showPending(engine, log)).catch((e: unknown) => log.error('schedule notices', e));
  }, 500);
  context.subscriptions.push(
    { dispose: () => later.cancel() },
    engine.onEvent((e) => {
      if (e.type === 'schedule.ran' && e.notify) later.trigger();
    }),
    engine.onStateChange((s) => {
      later.hold(s.state === 'stopping' || s.state === 'stopped');
      if (s.state === 'ready') later.trigger(); // runs finished while no window was open
    }),
  );
}

async function showPending(engine: EngineClient, log: Logger): Promise<void> {
  const pending = await engine.request('schedules.notices', { limit: AT_ONCE });
  for (const n of pending) {
    const { claimed } = await engine.request('schedules.claimNotice', { runId: n.run.id });
    if (claimed) void show(engine, n).catch((e: unknown) => log.error('schedule notice', e));
  }
}

async function show(engine: EngineClient, n: ScheduleNotice): Promise<void> {
  const text = noticeText(n, new Date());
  const failed = n.run.status !== 'succeeded';
  // Snooze brings a completed one-shot back once; Pause is for what still runs.
  const { status } = n.schedule;
  const actions = ['Open', ...(status === 'paused' ? [] : ['Snooze']), ...(status === 'active' ? ['Pause'] : [])];
  const pick = await (failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(text, ...actions);
  if (pick === 'Open') await openRuns(engine, n.schedule.id, n.run.id);
  if (pick === 'Snooze') {
    await engine.request('schedules.snooze', { id: n.schedule.id, seconds: SNOOZE_SECONDS });
    void vscode.window.setStatusBarMessage('Reminder snoozed for an hour.', 5000);
  }
  if (pick === 'Pause') {
    await engine.request('schedules.update', { id: n.schedule.id, patch: { status: 'paused' } });
    void vscode.window.setStatusBarMessage('Reminder paused: resume it from its schedule.', 5000);
  }
}

/** The schedule and its runs (this one first when given) as a Markdown document. */
export async function openRuns(engine: EngineClient, scheduleId: string, runId?: string): Promise<void> {
  const s = await engine.request('schedules.get', { id: scheduleId });
  if (!s) {
    void vscode.window.showWarningMessage('That reminder was deleted.');
    return;
  }
  const runs = await engine.request('schedules.runs', { id: scheduleId, limit: 20 });
  const first = runId ? [...runs.filter((r) => r.id === runId), ...runs.filter((r) => r.id !== runId)] : runs;
  await showReadOnlyMarkdown(`Reminder – ${s.name ?? s.goal.slice(0, 60)}`, runDocument(s, first, new Date()));
}
