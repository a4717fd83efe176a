/**
 * Reminders in VS Code (docs/schedules.md): "New Reminder…" as a two-step input (what, then when
 * in words, with what it understood shown as you type), and "Reminders…", a pick of the
 * project's schedules (next run in words, last status) with pause / resume / run now / delete /
 * run history. Notices of runs are scheduleNotice.ts.
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { ScheduleCadence, ScheduleDefinition, ScheduleRunRecord } from '../../engine/scheduleProtocol';
import { describeRun, describeSchedule, scheduleLabel } from '../../core/schedules/describe';
import { wantsNotice } from '../../core/schedules/notices';
import { SCHEDULE_LIMITS } from '../../core/schedules/types';
import { localTimeZone } from '../../core/schedules/zoned';
import { errorLine } from '../../present/errorText';
import { EngineError } from '../../engine/errors';
import { openRuns } from './scheduleNotice';
import type { CommandId } from '../commandIds';

type Register = <A extends unknown[], R>(id: string, what: string, fn: (...args: A) => Promise<R>) => void;

export const NEW_REMINDER_COMMAND = 'agentMemory.newReminder' satisfies CommandId;
export const REMINDERS_COMMAND = 'agentMemory.reminders' satisfies CommandId;

export function registerReminderCommands(run: Register, engine: EngineClient): void {
  run(NEW_REMINDER_COMMAND, 'New Reminder', () => newReminder(engine));
  run(REMINDERS_COMMAND, 'Reminders', () => pickReminder(engine));
}

/** One step of text: resolves with the value, 'back' (the Back button), or undefined (cancelled). */
function textStep(opts: {
  title: string;
  step: number;
  value: string;
  prompt: string;
  placeholder: string;
  check: (v: string) => Promise<{ error?: string; info?: string }>;
}): Promise<{ value: string } | 'back' | undefined> {
  return new Promise((resolve) => {
    const box = vscode.window.createInputBox();
    box.title = opts.title;
    box.step = opts.step;
    box.totalSteps = 2;
    box.value = opts.value;
    box.prompt = opts.prompt;
    box.placeholder = opts.placeholder;
    box.ignoreFocusOut = true;
    box.buttons = opts.step > 1 ? [vscode.QuickInputButtons.Back] : [];
    let done = false;
    let seq = 0;
    const finish = (v: { value: string } | 'back' | undefined) => {
      if (done) return;
      done = true;
      box.dispose();
      resolve(v);
    };
    const validate = async (v: string) => {
      const mine = ++seq;
      const r = await opts.check(v);
      if (mine !== seq) return undefined;
      box.validationMessage = r.error ?? (r.info ? { message: r.info, severity: vscode.InputBoxValidationSeverity.Info } : undefined);
      return r;
    };
    box.onDidChangeValue((v) => void validate(v));
    box.onDidTriggerButton(() => finish('back'));
    box.onDidAccept(async () => {
      const r = await validate(box.value);
      if (r && !r.error) finish({ value: box.value.trim() });
    });
    box.onDidHide(() => finish(undefined));
    box.show();
  });
}

/** What is wrong with a "when", as a sentence: "Every 2 minutes is too often: the shortest interval is 5 minutes." */
function whenError(e: unknown): string {
  if (!(e instanceof EngineError) || e.code !== 'invalid_input') return errorLine(e);
  const m = e.message.replace(/^(cadence|when): /, '');
  return `${m.charAt(0).toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? '' : '.'}`;
}

/** The two steps (what, then when) with the values given; undefined when cancelled. */
async function reminderSteps(
  engine: EngineClient,
  title: string,
  timezone: string,
  first: { goal: string; when: string },
): Promise<{ goal: string; when: string } | undefined> {
  let { goal, when } = first;
  for (let step = 1; step <= 2;) {
    const v =
      step === 1
        ? await textStep({
            title,
            step,
            value: goal,
            prompt: 'What should it remind you of, or what should it look up in the project memory?',
            placeholder: 'Remove the new-checkout feature flag',
            check: async (g) => ({
              ...(g.trim() ? {} : { error: 'Say what the reminder is for.' }),
              ...(g.length > SCHEDULE_LIMITS.goalChars ? { error: `At most ${SCHEDULE_LIMITS.goalChars} characters.` } : {}),
            }),
          })
        : await textStep({
            title,
            step,
            value: when,
            prompt: `When? In words, read in ${timezone}.`,
            placeholder: 'in 2 hours · tomorrow at 9 · every Monday at 10 · every weekday at 09:00',
            check: async (w) => {
              if (!w.trim()) return { error: 'Say when: "tomorrow at 9", "every Monday at 10".' };
              try {
                return { info: (await engine.request('schedules.preview', { when: w, timezone })).description };
              } catch (e) {
                return { error: whenError(e) };
              }
            },
          });
    if (v === undefined) return undefined;
    if (v === 'back') {
      step--;
      continue;
    }
    if (step === 1) goal = v.value;
    else when = v.value;
    step++;
  }
  return { goal, when };
}

async function newReminder(engine: EngineClient): Promise<ScheduleDefinition | undefined> {
  const timezone = localTimeZone();
  const got = await reminderSteps(engine, 'New Reminder', timezone, { goal: '', when: '' });
  if (!got) return undefined;
  const s = await engine.request('schedules.create', {
    ...got,
    timezone,
    channelId: 'vscode',
    channelContextId: vscode.workspace.name ?? 'VS Code window',
    createdBy: 'user',
  });
  void vscode.window.showInformationMessage(`Reminder set: ${describeSchedule(s, new Date())}.`);
  return s;
}

/** A cadence as a phrase the "when" step reads back as the same cadence (the step starts with it). */
export function cadencePhrase(c: ScheduleCadence): string {
  if (c.kind === 'cron') return c.expr;
  if (c.kind === 'once') return c.at;
  const unit = c.everySeconds % 86_400 === 0 ? ['day', 86_400] : c.everySeconds % 3600 === 0 ? ['hour', 3600] : ['minute', 60];
  const n = Math.max(1, Math.round(c.everySeconds / (unit[1] as number)));
  return `every ${n} ${unit[0]}${n === 1 ? '' : 's'}`;
}

/**
 * "Edit…": the same two steps with the schedule's goal and cadence filled in, read in its own
 * zone. An unchanged "when" keeps its course (an interval keeps its anchor); a changed one is
 * validated like a new one and sets the next due time.
 */
export async function editReminder(engine: EngineClient, s: ScheduleDefinition): Promise<ScheduleDefinition | undefined> {
  const before = { goal: s.goal, when: cadencePhrase(s.cadence) };
  const got = await reminderSteps(engine, `Edit “${scheduleLabel(s, 40)}”`, s.cadence.timezone, before);
  if (!got || (got.goal === before.goal && got.when === before.when)) return undefined;
  const patch = {
    ...(got.goal !== before.goal ? { goal: got.goal } : {}),
    ...(got.when !== before.when ? { when: got.when, timezone: s.cadence.timezone } : {}),
  };
  const updated = await engine.request('schedules.update', { id: s.id, patch });
  void vscode.window.setStatusBarMessage(`Reminder changed: ${describeSchedule(updated, new Date())}.`, 5000);
  return updated;
}

/** Pauses an active schedule or resumes a paused one (resuming forgets earlier failures). */
export async function setPaused(engine: EngineClient, s: ScheduleDefinition, paused: boolean): Promise<ScheduleDefinition> {
  return engine.request('schedules.update', { id: s.id, patch: { status: paused ? 'paused' : 'active' } });
}

/**
 * Runs it now. When its notification policy wants a notice of this run, the notice says how it went
 * (scheduleNotice.ts, with Open, Snooze and Pause); otherwise a message here does, with Open.
 */
export async function runReminderNow(engine: EngineClient, s: ScheduleDefinition): Promise<ScheduleRunRecord> {
  const r = await engine.request('schedules.runNow', { id: s.id });
  if (wantsNotice(s.notificationPolicy, r.status)) return r;
  void (async () => {
    const show = r.status === 'succeeded' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    const pick = await show(`Reminder “${scheduleLabel(s)}” ${describeRun(r, s.cadence.timezone, new Date())}.`, 'Open');
    if (pick) await openRuns(engine, s.id, r.id);
  })();
  return r;
}

/** Deletes it after a modal question; true when deleted. */
export async function deleteReminder(engine: EngineClient, s: ScheduleDefinition): Promise<boolean> {
  const sure = await vscode.window.showWarningMessage(
    `Delete the reminder “${scheduleLabel(s)}” and its run history?`,
    { modal: true },
    'Delete',
  );
  if (!sure) return false;
  return (await engine.request('schedules.delete', { id: s.id })).deleted;
}

interface ScheduleItem extends vscode.QuickPickItem {
  schedule: ScheduleDefinition;
}

const ACTIONS = ['Run history', 'Run now', 'Edit…', 'Pause', 'Resume', 'Delete'] as const;

async function pickReminder(engine: EngineClient): Promise<void> {
  const { items } = await engine.request('schedules.list', { limit: 100 });
  if (!items.length) {
    const pick = await vscode.window.showInformationMessage('No reminders yet.', 'New Reminder…');
    if (pick) await vscode.commands.executeCommand(NEW_REMINDER_COMMAND);
    return;
  }
  const now = new Date();
  const picked = await vscode.window.showQuickPick<ScheduleItem>(
    items.map((s) => ({
      label: scheduleLabel(s),
      description: describeSchedule(s, now),
      ...(s.lastRunStatus ? { detail: `Last run: ${s.lastRunStatus === 'succeeded' ? 'ok' : s.lastRunStatus}` } : {}),
      schedule: s,
    })),
    { title: 'Reminders', placeHolder: 'Pick a reminder', matchOnDescription: true },
  );
  if (!picked) return;
  const s = picked.schedule;
  const offered = ACTIONS.filter((a) => (a === 'Pause' ? s.status === 'active' : a === 'Resume' ? s.status === 'paused' : true));
  const action = await vscode.window.showQuickPick([...offered], { title: scheduleLabel(s), placeHolder: describeSchedule(s, now) });
  if (action === 'Run history') await openRuns(engine, s.id);
  if (action === 'Run now') await runReminderNow(engine, s);
  if (action === 'Edit…') await editReminder(engine, s);
  if (action === 'Pause' || action === 'Resume') await setPaused(engine, s, action === 'Pause');
  if (action === 'Delete') await deleteReminder(engine, s);
}
