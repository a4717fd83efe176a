/**
 * The Schedules view (docs/schedules.md "Where you meet them"): the project's schedules, soonest
 * first, each with its next run in words and its zone, paused or failing with the reason; its
 * recent runs below it (a click opens the run as a document). Pause / Resume / Run Now / Edit /
 * Delete (asks first) are inline and context-menu actions. Refreshed by the engine's schedule
 * events, and every minute while shown ("in 25 minutes" must not go stale).
 */
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { ScheduleDefinition, ScheduleRunRecord } from '../../engine/scheduleProtocol';
import { describeRun, describeSchedule, scheduleLabel, scheduleRowDescription, scheduleState } from '../../core/schedules/describe';
import { plural } from '../../core/text/plural';
import { truncateLine } from '../../core/text/truncate';
import { errorLine } from '../../present/errorText';
import { commandRegistrar } from '../common/commandTable';
import { Debounced } from '../common/debounce';
import type { Logger } from '../host/log';
import { deleteReminder, editReminder, runReminderNow, setPaused } from './reminderCommands';
import { openRuns } from './scheduleNotice';
import type { CommandId } from '../commandIds';
import { isDeactivating } from '../host/shutdown';

export const SCHEDULES_VIEW_ID = 'agentMemory.schedules';
/** Schedules listed (soonest due first) and runs shown under each. */
const LIST_LIMIT = 200;
const RUNS_SHOWN = 10;
const TICK_MS = 60_000;

export const SCHEDULE_COMMANDS = {
  pause: 'agentMemory.pauseSchedule',
  resume: 'agentMemory.resumeSchedule',
  runNow: 'agentMemory.runScheduleNow',
  edit: 'agentMemory.editSchedule',
  delete: 'agentMemory.deleteSchedule',
  openRun: 'agentMemory.openScheduleRun',
  refresh: 'agentMemory.refreshSchedules',
} as const satisfies Record<string, CommandId>;

export type ScheduleNode =
  | { kind: 'schedule'; schedule: ScheduleDefinition }
  | { kind: 'run'; run: ScheduleRunRecord; schedule: ScheduleDefinition }
  | { kind: 'message'; text: string };

const STATE_ICONS = {
  running: ['sync~spin', undefined],
  failing: ['warning', 'problemsWarningIcon.foreground'],
  active: ['bell', undefined],
  paused: ['debug-pause', 'disabledForeground'],
  completed: ['pass', 'testing.iconPassed'],
} as const;

const RUN_ICONS: Record<ScheduleRunRecord['status'], [string, string | undefined]> = {
  running: ['sync~spin', undefined],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  interrupted: ['debug-disconnect', 'problemsWarningIcon.foreground'],
};

const icon = ([id, colour]: readonly [string, string | undefined]) =>
  new vscode.ThemeIcon(id, colour ? new vscode.ThemeColor(colour) : undefined);

export class SchedulesTreeProvider implements vscode.TreeDataProvider<ScheduleNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<ScheduleNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly refreshLater = new Debounced(() => this.refresh(), 200);
  private readonly subs: vscode.Disposable[] = [];
  private tick: NodeJS.Timeout | undefined;
  /** The last list shown (tests read it). */
  last: ScheduleDefinition[] = [];
  view: vscode.TreeView<ScheduleNode> | undefined;

  constructor(private readonly engine: EngineClient) {
    this.subs.push(
      engine.onEvent((e) => {
        if (e.type === 'schedules.changed' || e.type === 'schedule.ran') this.refreshLater.trigger();
      }),
      engine.onStateChange((s) => {
        this.refreshLater.hold(s.state === 'stopping' || s.state === 'stopped');
        if (s.state === 'ready') this.refresh();
      }),
    );
  }

  /** Refreshes every minute while the view is shown: next runs are said relative to now. */
  attach(view: vscode.TreeView<ScheduleNode>): void {
    this.view = view;
    const ticking = (on: boolean) => {
      if (this.tick) clearInterval(this.tick);
      this.tick = on ? setInterval(() => this.refresh(), TICK_MS) : undefined;
      if (on) this.refresh();
    };
    this.subs.push(view.onDidChangeVisibility((e) => ticking(e.visible)));
    ticking(view.visible);
  }

  refresh(): void {
    if (!isDeactivating()) this.changed.fire(undefined); // see shutdown.ts
  }

  async getChildren(node?: ScheduleNode): Promise<ScheduleNode[]> {
    if (node?.kind === 'schedule') {
      const s = node.schedule;
      try {
        const runs = await this.engine.request('schedules.runs', { id: s.id, limit: RUNS_SHOWN });
        return runs.map((run) => ({ kind: 'run', run, schedule: s }));
      } catch (e) {
        return [{ kind: 'message', text: `Cannot list its runs: ${errorLine(e)}` }];
      }
    }
    if (node) return [];
    try {
      const page = await this.engine.request('schedules.list', { limit: LIST_LIMIT });
      this.last = page.items;
      const failing = page.items.filter((s) => s.consecutiveFailures > 0 || (s.status === 'paused' && s.lastRunStatus === 'failed'));
      if (this.view)
        this.view.badge = failing.length ? { value: failing.length, tooltip: plural(failing.length, 'failing schedule') } : undefined;
      // Empty → no children, so the view's welcome text (with New Reminder…) shows.
      return page.items.map((schedule) => ({ kind: 'schedule', schedule }));
    } catch (e) {
      return [{ kind: 'message', text: `Cannot list schedules: ${errorLine(e)}` }];
    }
  }

  getTreeItem(node: ScheduleNode): vscode.TreeItem {
    if (node.kind === 'message') return new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
    return node.kind === 'run' ? runItem(node.run, node.schedule) : scheduleItem(node.schedule, new Date());
  }

  dispose(): void {
    if (this.tick) clearInterval(this.tick);
    this.refreshLater.cancel();
    for (const s of this.subs) s.dispose();
    this.changed.dispose();
  }
}

function scheduleItem(s: ScheduleDefinition, now: Date): vscode.TreeItem {
  const state = scheduleState(s);
  const label = scheduleLabel(s, 60);
  const item = new vscode.TreeItem(
    label,
    s.lastRunAt || s.runningRunId ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  item.id = `schedule:${s.id}`;
  item.description = scheduleRowDescription(s, now);
  const tip = new vscode.MarkdownString();
  // appendText escapes: a schedule's goal is never rendered as markdown.
  tip.appendText(`${describeSchedule(s, now)}.`);
  tip.appendMarkdown('\n\n---\n\n');
  tip.appendText(s.goal);
  const made = s.channelId
    ? `Made in ${s.channelId === 'vscode' ? 'VS Code' : s.channelId === 'mcp' ? 'an agent (MCP)' : 'the terminal'}`
    : '';
  const by = s.createdBy && s.createdBy !== 'user' ? ` by ${s.createdBy}` : '';
  if (made) tip.appendText(`\n\n${made}${by}.`);
  item.tooltip = tip;
  item.accessibilityInformation = { label: `${label}, ${item.description}` };
  item.iconPath = icon(STATE_ICONS[state]);
  // "schedule.active", "schedule.failing", "schedule.paused", … : the menus offer what fits.
  item.contextValue = `schedule.${state}`;
  return item;
}

function runItem(r: ScheduleRunRecord, s: ScheduleDefinition): vscode.TreeItem {
  const text = describeRun(r, s.cadence.timezone, new Date());
  const item = new vscode.TreeItem(truncateLine(text, 60), vscode.TreeItemCollapsibleState.None);
  item.id = `scheduleRun:${r.id}`;
  const summary = runSummary(r, s);
  if (summary) item.description = truncateLine(summary, 100);
  const tip = new vscode.MarkdownString();
  tip.appendText(text);
  if (r.outputSummary) tip.appendText(`\n\n${r.outputSummary}`);
  item.tooltip = tip;
  item.accessibilityInformation = { label: `${text}${r.outputSummary ? `, ${truncateLine(r.outputSummary, 100)}` : ''}` };
  item.iconPath = icon(RUN_ICONS[r.status]);
  item.contextValue = 'scheduleRun';
  item.command = { command: SCHEDULE_COMMANDS.openRun, title: 'Open Run', arguments: [node(r, s)] };
  return item;
}

/** What a run said, on one line, without the goal a run without a model starts with. */
function runSummary(r: ScheduleRunRecord, s: ScheduleDefinition): string {
  const text = (r.outputSummary ?? r.error ?? '').replace(/\s+/g, ' ').trim();
  const goal = s.goal.replace(/\s+/g, ' ').trim();
  return text.startsWith(goal) ? text.slice(goal.length).trim() : text;
}

const node = (run: ScheduleRunRecord, schedule: ScheduleDefinition): ScheduleNode => ({ kind: 'run', run, schedule });

function scheduleOf(arg: unknown): ScheduleDefinition | undefined {
  const n = arg as ScheduleNode | undefined;
  return n && typeof n === 'object' && n.kind === 'schedule' ? n.schedule : undefined;
}

export function registerSchedulesView(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): SchedulesTreeProvider {
  const tree = new SchedulesTreeProvider(engine);
  const view = vscode.window.createTreeView(SCHEDULES_VIEW_ID, { treeDataProvider: tree });
  tree.attach(view);
  context.subscriptions.push(tree, view);
  const run = commandRegistrar(context, log);
  /** A command on a schedule row: the schedule as it is now (another window may have changed it). */
  const onSchedule = (what: string, fn: (s: ScheduleDefinition) => Promise<unknown>) => async (arg?: unknown) => {
    const shown = scheduleOf(arg);
    if (!shown) return undefined;
    const s = await engine.request('schedules.get', { id: shown.id });
    if (!s) {
      void vscode.window.showWarningMessage(`The schedule “${scheduleLabel(shown)}” was deleted.`);
      tree.refresh();
      return undefined;
    }
    log.info(`schedules: ${what} ${s.id}`);
    return fn(s);
  };
  run(
    SCHEDULE_COMMANDS.pause,
    'pause schedule',
    onSchedule('pause', (s) => setPaused(engine, s, true)),
  );
  run(
    SCHEDULE_COMMANDS.resume,
    'resume schedule',
    onSchedule('resume', (s) => setPaused(engine, s, false)),
  );
  run(
    SCHEDULE_COMMANDS.edit,
    'edit schedule',
    onSchedule('edit', (s) => editReminder(engine, s)),
  );
  run(
    SCHEDULE_COMMANDS.delete,
    'delete schedule',
    onSchedule('delete', (s) => deleteReminder(engine, s)),
  );
  run(
    SCHEDULE_COMMANDS.runNow,
    'run schedule',
    onSchedule('run now', async (s) =>
      vscode.window.withProgress({ location: { viewId: SCHEDULES_VIEW_ID }, title: 'Running…' }, () => runReminderNow(engine, s)),
    ),
  );
  run(SCHEDULE_COMMANDS.openRun, 'open schedule run', async (arg?: unknown) => {
    const n = arg as ScheduleNode | undefined;
    if (n?.kind === 'run') await openRuns(engine, n.schedule.id, n.run.id);
  });
  run(SCHEDULE_COMMANDS.refresh, 'refresh schedules', async () => tree.refresh());
  return tree;
}
