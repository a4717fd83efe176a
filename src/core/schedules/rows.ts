/** Rows of `schedules` and `schedule_runs` as the store API's records. */
import type { Row } from '../store/storeTypes';
import type {
  ChannelId,
  NotificationPolicy,
  RunStatus,
  RunTrigger,
  ScheduleCadence,
  ScheduleDefinition,
  ScheduleRunRecord,
  ScheduleStatus,
} from './types';

const str = (v: Row[string] | undefined): string | null => (v === null || v === undefined ? null : String(v));

function ids(v: Row[string] | undefined): string[] {
  try {
    const parsed: unknown = JSON.parse(typeof v === 'string' ? v : '[]');
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

export function scheduleFromRow(r: Row): ScheduleDefinition {
  return {
    id: String(r.schedule_id),
    userId: String(r.user_id),
    name: str(r.name),
    goal: String(r.goal),
    cadence: JSON.parse(String(r.cadence_json)) as ScheduleCadence,
    notificationPolicy: String(r.notification_policy) as NotificationPolicy,
    status: String(r.status) as ScheduleStatus,
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
    nextRunAt: str(r.next_run_at),
    nextTrigger: (str(r.next_trigger) ?? 'schedule') as ScheduleDefinition['nextTrigger'],
    lastRunAt: str(r.last_run_at),
    lastRunStatus: str(r.last_run_status) as RunStatus | null,
    consecutiveFailures: Number(r.consecutive_failures ?? 0),
    channelId: str(r.channel_id) as ChannelId | null,
    channelContextId: str(r.channel_context_id),
    createdBy: str(r.created_by),
    pauseReason: str(r.pause_reason),
    runningRunId: str(r.lease_run_id),
  };
}

export function runFromRow(r: Row): ScheduleRunRecord {
  return {
    id: String(r.run_id),
    scheduleId: String(r.schedule_id),
    dueAt: String(r.due_at),
    trigger: String(r.trigger) as RunTrigger,
    startedAt: String(r.started_at),
    finishedAt: str(r.finished_at),
    status: String(r.status) as RunStatus,
    late: Number(r.late) === 1,
    missed: Number(r.missed ?? 0),
    outputSummary: str(r.output_summary),
    output: str(r.output),
    error: str(r.error),
    memoryIds: ids(r.memory_ids),
    turnCount: Number(r.turn_count ?? 0),
    cost: Number(r.cost ?? 0),
    notified: Number(r.notified) === 1,
  };
}
