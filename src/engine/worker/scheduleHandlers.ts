/**
 * The schedule methods of the handler table (handlers.ts spreads them in): wire params checked
 * here — a missing or mistyped param is an invalid_input naming it — then the schedules service
 * (services/schedules.ts), where the core checks values (cadences, goals, zones).
 */
import { checkLimit } from '../../core/memory/limits';
import { CHANNEL_IDS, NOTIFICATION_POLICIES, SCHEDULE_STATUSES } from '../../core/schedules/types';
import { shownValue } from '../../core/util/shownValue';
import type { CallContext, MemoryEngine } from './engine';
import { EngineError } from '../errors';
import type { ScheduleMethods } from '../scheduleProtocol';

type Handler<M extends keyof ScheduleMethods> = (
  engine: MemoryEngine,
  params: ScheduleMethods[M]['params'],
  ctx: CallContext,
) => ScheduleMethods[M]['result'] | Promise<ScheduleMethods[M]['result']>;

type Params = Record<string, unknown> | undefined;

const RUNS = { min: 1, max: 200, default: 20 };
const NOTICES = { min: 1, max: 100, default: 20 };
const REMINDERS = { min: 1, max: 50, default: 10 };
/** Longest snooze: 30 days. */
const MAX_SNOOZE_SECONDS = 30 * 86_400;

function str(params: unknown, key: string): string {
  const v = (params as Params)?.[key];
  if (typeof v !== 'string' || v === '') throw new EngineError('invalid_input', `${key}: must be a non-empty string`);
  return v;
}

function optText(params: unknown, key: string): void {
  const v = (params as Params)?.[key];
  if (v !== undefined && typeof v !== 'string') throw new EngineError('invalid_input', `${key}: must be a string`);
}

function oneOf(params: unknown, key: string, allowed: readonly string[]): void {
  const v = (params as Params)?.[key];
  if (v !== undefined && !allowed.includes(v as string))
    throw new EngineError('invalid_input', `${key}: must be one of ${allowed.join(', ')}, got ${shownValue(v)}`);
}

function obj<T>(v: T, key: string): T {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new EngineError('invalid_input', `${key}: must be an object`);
  return v;
}

/** The `when`, `timezone`, `cadence` trio of create and update. */
function whenParams(p: unknown): void {
  optText(p, 'when');
  optText(p, 'timezone');
  const c = (p as Params)?.cadence;
  if (c !== undefined) obj(c, 'cadence');
}

export const SCHEDULE_HANDLERS: { [M in keyof ScheduleMethods]: Handler<M> } = {
  'schedules.create': (e, p) => {
    obj(p, 'params');
    str(p, 'goal');
    whenParams(p);
    for (const k of ['name', 'channelContextId', 'createdBy']) optText(p, k);
    oneOf(p, 'notificationPolicy', NOTIFICATION_POLICIES);
    oneOf(p, 'channelId', CHANNEL_IDS);
    return e.schedules.create(p);
  },
  'schedules.preview': (e, p) => {
    optText(p, 'timezone');
    return e.schedules.preview(str(p, 'when'), p.timezone);
  },
  'schedules.get': (e, p) => e.schedules.get(str(p, 'id')),
  'schedules.list': (e, p) => {
    const f = p ?? {};
    obj(f, 'params');
    oneOf(f, 'status', SCHEDULE_STATUSES);
    oneOf(f, 'channelId', CHANNEL_IDS);
    oneOf(f, 'order', ['next', 'created', 'name']);
    for (const k of ['text', 'dueBefore', 'userId']) optText(f, k);
    return e.schedules.list(f);
  },
  'schedules.update': (e, p) => {
    const id = str(p, 'id');
    const patch = obj(p.patch, 'patch');
    whenParams(patch);
    optText(patch, 'goal');
    optText(patch, 'pauseReason');
    if (patch.name !== undefined && patch.name !== null) optText(patch, 'name');
    oneOf(patch, 'notificationPolicy', NOTIFICATION_POLICIES);
    oneOf(patch, 'status', ['active', 'paused']);
    return e.schedules.update(id, patch);
  },
  'schedules.delete': (e, p) => e.schedules.delete(str(p, 'id')),
  'schedules.runNow': (e, p) => e.schedules.runNow(str(p, 'id')),
  'schedules.snooze': (e, p) => {
    const id = str(p, 'id');
    const s = p.seconds;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 60 || s > MAX_SNOOZE_SECONDS)
      throw new EngineError(
        'invalid_input',
        `seconds: must be a whole number from 60 to ${MAX_SNOOZE_SECONDS} (30 days), got ${shownValue(s)}`,
      );
    return e.schedules.snooze(id, s);
  },
  'schedules.runs': (e, p) => e.schedules.runs(str(p, 'id'), checkLimit(p.limit, RUNS, 'schedules.runs')),
  'schedules.run': (e, p) => e.schedules.run(str(p, 'runId')),
  'schedules.notices': (e, p) => e.schedules.notices(checkLimit(p?.limit, NOTICES, 'schedules.notices')),
  'schedules.claimNotice': (e, p) => e.schedules.claimNotice(str(p, 'runId')),
  'schedules.reminders': (e, p) => {
    const hours = p?.withinHours ?? 24;
    if (typeof hours !== 'number' || !(hours > 0) || hours > 24 * 31)
      throw new EngineError('invalid_input', `withinHours: must be a number of hours from 1 to 744, got ${shownValue(hours)}`);
    return e.schedules.reminders(hours, checkLimit(p?.limit, REMINDERS, 'schedules.reminders'));
  },
};
