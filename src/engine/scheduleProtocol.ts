/**
 * The schedule methods and events of the engine protocol (protocol.ts includes them): schedules
 * and reminders of the project store (docs/schedules.md). Only plain data crosses.
 */
import type {
  ChannelId,
  NotificationPolicy,
  ScheduleCadence,
  ScheduleDefinition,
  SchedulePatch,
  ScheduleRunRecord,
  ScheduleSearchFilters,
  ScheduleSearchResult,
  Notice,
  Reminders,
} from '../core/schedules/types';

export type {
  ChannelId,
  NotificationPolicy,
  ScheduleCadence,
  ScheduleDefinition,
  SchedulePatch,
  ScheduleRunRecord,
  ScheduleSearchFilters,
  ScheduleSearchResult,
  Notice as ScheduleNotice,
  Reminders as ScheduleReminders,
};

/** When: a phrase ("every Monday at 10", "in 2 hours"), or a cadence as data. */
export interface ScheduleWhen {
  /** A phrase of docs/schedules.md "Phrases", a five-field cron expression or an ISO time. */
  when?: string;
  cadence?: ScheduleCadence;
  /** The IANA zone the phrase is read in and times are shown in (default: the engine's). */
  timezone?: string;
}

export interface CreateScheduleParams extends ScheduleWhen {
  goal: string;
  name?: string;
  notificationPolicy?: NotificationPolicy;
  /** Where it is made, so a run's notice can go back there. */
  channelId?: ChannelId;
  channelContextId?: string;
  /** "user", or the agent's MCP client name. */
  createdBy?: string;
}

/** A phrase read as a cadence, without storing anything (the input box says what it understood). */
export interface SchedulePreview {
  cadence: ScheduleCadence;
  /** "every weekday at 09:00 Europe/Berlin, next tomorrow 09:00". */
  description: string;
  nextRunAt: string;
}

export interface ScheduleMethods {
  /** A new schedule in the project store; `when` or `cadence` says when (validated: errors say what is wrong). */
  'schedules.create': { params: CreateScheduleParams; result: ScheduleDefinition };
  /** What a phrase means, in words, with its first due time (nothing is stored). */
  'schedules.preview': { params: { when: string; timezone?: string }; result: SchedulePreview };
  'schedules.get': { params: { id: string }; result: ScheduleDefinition | null };
  /** A page of schedules matching the filters, with the total (soonest due first by default). */
  'schedules.list': { params: ScheduleSearchFilters; result: ScheduleSearchResult };
  /** Changes the fields given; `when` / `cadence` set a new cadence; status paused / active pauses or resumes. */
  'schedules.update': { params: { id: string; patch: SchedulePatch & ScheduleWhen }; result: ScheduleDefinition };
  'schedules.delete': { params: { id: string }; result: { deleted: boolean } };
  /** Runs it now, whatever its cadence (its course stays as it is); resolves when the run is recorded. */
  'schedules.runNow': { params: { id: string }; result: ScheduleRunRecord };
  /** One more due time after `seconds` (a snoozed notice); a completed one-shot comes back once. */
  'schedules.snooze': { params: { id: string; seconds: number }; result: ScheduleDefinition };
  /** The newest runs of a schedule first. */
  'schedules.runs': { params: { id: string; limit?: number }; result: ScheduleRunRecord[] };
  'schedules.run': { params: { runId: string }; result: ScheduleRunRecord };
  /** Finished runs nobody was shown yet whose policy wants a notice (a window shows them when it opens). */
  'schedules.notices': { params: { limit?: number }; result: ScheduleNoticeList };
  /** Marks a run's notice as shown: `claimed` only for the first caller, so one window shows it. */
  'schedules.claimNotice': { params: { runId: string }; result: { claimed: boolean } };
  /** Reminders due soon and recent runs (what agents see in the project context). */
  'schedules.reminders': { params: { withinHours?: number; limit?: number }; result: Reminders };
}

export type ScheduleNoticeList = Notice[];

/** Methods that only read (the client retries them across an engine restart). */
export const SCHEDULE_READ_METHODS = [
  'schedules.preview',
  'schedules.get',
  'schedules.list',
  'schedules.runs',
  'schedules.run',
  'schedules.notices',
  'schedules.reminders',
] as const satisfies readonly (keyof ScheduleMethods)[];

export type ScheduleEvent =
  /** A run finished (or was found interrupted): `notify` when its schedule's policy wants a notice. */
  | { type: 'schedule.ran'; schedule: ScheduleDefinition; run: ScheduleRunRecord; notify: boolean }
  /** Schedules were created, changed or deleted: lists show them again. */
  | { type: 'schedules.changed'; ids: string[] };
