/**
 * `agent-memory schedule …` (docs/schedules.md): add, list, show, runs, update, pause, resume,
 * run and delete over the engine's schedules.* methods. A schedule made here records channel
 * "cli" and the terminal it was made in. Times are shown in the schedule's own zone, in words.
 */
import type { EngineClient } from '../engine/client/engineClient';
import type { ScheduleDefinition, ScheduleRunRecord } from '../engine/scheduleProtocol';
import { describeRun, describeSchedule, scheduleLabel } from '../core/schedules/describe';
import { localTimeZone } from '../core/schedules/zoned';
import { plural } from '../core/text/plural';
import { UsageError, type CliArgs } from './args';
import type { CommandOutput } from './commands';

const ACTIONS = ['add', 'list', 'show', 'runs', 'update', 'pause', 'resume', 'run', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

const usage = (message: string) => new UsageError(`schedule: ${message}`, 'schedule');

function scheduleLine(s: ScheduleDefinition, now: Date): string {
  const last = s.lastRunStatus ? `; last run ${s.lastRunStatus === 'succeeded' ? 'ok' : s.lastRunStatus}` : '';
  return `${scheduleLabel(s)}: ${describeSchedule(s, now)}${last}  · id ${s.id}`;
}

function runLines(r: ScheduleRunRecord, zone: string, now: Date): string[] {
  return [`${describeRun(r, zone, now)}  · run ${r.id}`, ...(r.outputSummary ? [`  ${r.outputSummary.replace(/\s+/g, ' ')}`] : [])];
}

/** The terminal a schedule was made in, so a notice can name it. */
function terminal(): string {
  return process.env.TERM_PROGRAM ?? process.env.TERM ?? 'terminal';
}

function idOf(a: CliArgs, action: Action): string {
  const id = a.positionals[1];
  if (!id?.trim()) throw usage(`${action}: missing <id> (agent-memory schedule list shows them)`);
  return id;
}

async function show(engine: EngineClient, id: string, limit: number): Promise<CommandOutput> {
  const s = await engine.request('schedules.get', { id });
  if (!s) throw usage(`no schedule with id ${id} (agent-memory schedule list shows them)`);
  const runs = await engine.request('schedules.runs', { id, limit });
  const now = new Date();
  const text = [
    scheduleLine(s, now),
    `goal: ${s.goal}`,
    runs.length ? `${plural(runs.length, 'run')}, newest first:` : 'no runs yet',
    ...runs.flatMap((r) => runLines(r, s.cadence.timezone, now)),
  ];
  return { json: { schedule: s, runs }, text: text.join('\n') };
}

async function add(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const goal = a.positionals.slice(1).join(' ').trim();
  if (!goal) throw usage('add: say what it is for, e.g. schedule add "remove the feature flag" --when "after the 1st"');
  if (!a.when) throw usage('add: say when with --when ("in 2 hours", "tomorrow at 9", "every Monday at 10")');
  const s = await engine.request('schedules.create', {
    goal,
    when: a.when,
    timezone: a.timezone ?? localTimeZone(),
    channelId: 'cli',
    channelContextId: terminal(),
    createdBy: 'user',
    ...(a.name ? { name: a.name } : {}),
    ...(a.notify ? { notificationPolicy: a.notify } : {}),
  });
  return { json: s, text: `scheduled ${scheduleLine(s, new Date())}` };
}

async function update(engine: EngineClient, a: CliArgs, id: string): Promise<CommandOutput> {
  const patch = {
    ...(a.when !== undefined ? { when: a.when, timezone: a.timezone ?? localTimeZone() } : {}),
    ...(a.when === undefined && a.timezone !== undefined ? { timezone: a.timezone } : {}),
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.notify ? { notificationPolicy: a.notify } : {}),
    ...(a.content !== undefined ? { goal: a.content } : {}),
  };
  if (!Object.keys(patch).length) throw usage('update: nothing to change (give --when, --name, --notify or --content)');
  if (a.timezone !== undefined && a.when === undefined) throw usage('update: --timezone goes with --when (the zone it is read in)');
  const s = await engine.request('schedules.update', { id, patch });
  return { json: s, text: `updated ${scheduleLine(s, new Date())}` };
}

async function list(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const r = await engine.request('schedules.list', { ...(a.limit ? { limit: a.limit } : {}), ...(a.offset ? { offset: a.offset } : {}) });
  const now = new Date();
  return { json: r, text: [plural(r.total, 'schedule'), ...r.items.map((s) => scheduleLine(s, now))].join('\n') };
}

async function pauseOrResume(engine: EngineClient, id: string, pause: boolean): Promise<CommandOutput> {
  const s = await engine.request('schedules.update', { id, patch: { status: pause ? 'paused' : 'active' } });
  return { json: s, text: `${pause ? 'paused' : 'resumed'} ${scheduleLine(s, new Date())}` };
}

/** Runs it now (the store's owner does) and prints what the run said; a failed run exits 1. */
async function runNow(engine: EngineClient, id: string): Promise<CommandOutput> {
  const r = await engine.request('schedules.runNow', { id });
  const s = await engine.request('schedules.get', { id });
  const text = [...runLines(r, s?.cadence.timezone ?? localTimeZone(), new Date()), ...(r.output ? ['', r.output] : [])].join('\n');
  return { json: r, text, ...(r.status === 'succeeded' ? {} : { failure: `the run ${r.status}${r.error ? `: ${r.error}` : ''}` }) };
}

async function remove(engine: EngineClient, id: string): Promise<CommandOutput> {
  const r = await engine.request('schedules.delete', { id });
  return { json: { id, ...r }, text: `deleted schedule ${id} and its run history` };
}

const HANDLERS: Record<Action, (engine: EngineClient, a: CliArgs, id: () => string) => Promise<CommandOutput>> = {
  add: (engine, a) => add(engine, a),
  list: (engine, a) => list(engine, a),
  show: (engine, a, id) => show(engine, id(), a.limit ?? 10),
  runs: (engine, a, id) => show(engine, id(), a.limit ?? 10),
  update: (engine, a, id) => update(engine, a, id()),
  pause: (engine, _a, id) => pauseOrResume(engine, id(), true),
  resume: (engine, _a, id) => pauseOrResume(engine, id(), false),
  run: (engine, _a, id) => runNow(engine, id()),
  delete: (engine, _a, id) => remove(engine, id()),
};

export async function scheduleCommand(engine: EngineClient, a: CliArgs): Promise<CommandOutput> {
  const action = a.positionals[0] as Action | undefined;
  if (!action || !ACTIONS.includes(action)) throw usage(`say what to do: ${ACTIONS.join(', ')}${action ? ` (got "${action}")` : ''}`);
  return HANDLERS[action](engine, a, () => idOf(a, action));
}
