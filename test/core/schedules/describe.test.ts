// Schedules in words for people and agents: a run's notice (succeeded with its summary, failed with
// what happens next, paused with the reason), the run document Open shows, and the reminder lines
// of an agent's project context — all in the schedule's zone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noticeText, reminderLines, runDocument } from '../../../src/core/schedules/describe';
import type { ScheduleDefinition, ScheduleRunRecord } from '../../../src/core/schedules/types';

const NOW = new Date('2026-03-02T09:05:00.000Z'); // Monday, 10:05 in Berlin

const schedule = (over: Partial<ScheduleDefinition> = {}): ScheduleDefinition => ({
  id: 's1',
  userId: 'default',
  name: 'flag cleanup',
  goal: 'Remove the new-checkout feature flag once the rollout is done.',
  cadence: { kind: 'cron', expr: '0 10 * * 1', timezone: 'Europe/Berlin' },
  notificationPolicy: 'always',
  status: 'active',
  createdAt: '2026-02-01T00:00:00.000Z',
  updatedAt: '2026-02-01T00:00:00.000Z',
  nextRunAt: '2026-03-09T09:00:00.000Z',
  nextTrigger: 'schedule',
  lastRunAt: null,
  lastRunStatus: null,
  consecutiveFailures: 0,
  channelId: 'vscode',
  channelContextId: null,
  createdBy: 'user',
  pauseReason: null,
  runningRunId: null,
  ...over,
});

const run = (over: Partial<ScheduleRunRecord> = {}): ScheduleRunRecord => ({
  id: 'r1',
  scheduleId: 's1',
  dueAt: '2026-03-02T09:00:00.000Z',
  trigger: 'schedule',
  startedAt: '2026-03-02T09:00:00.000Z',
  finishedAt: '2026-03-02T09:00:02.000Z',
  status: 'succeeded',
  late: false,
  missed: 0,
  outputSummary: 'The rollout finished on Friday:\nthe flag can go.',
  output: 'Remove the new-checkout feature flag once the rollout is done.\n\nThe rollout finished on Friday: the flag can go.',
  error: null,
  memoryIds: [],
  turnCount: 1,
  cost: 0,
  notified: false,
  ...over,
});

test('a notice names the reminder, says when it ran in its zone and gives the start of what it said', () => {
  assert.equal(
    noticeText({ schedule: schedule(), run: run() }, NOW),
    'Reminder “flag cleanup” ran 5 minutes ago: The rollout finished on Friday: the flag can go.',
  );
  const long = noticeText({ schedule: schedule(), run: run({ outputSummary: 'x'.repeat(500) }) }, NOW);
  assert.equal(long.length, 220);
  assert.ok(long.endsWith('…'));
});

test('a failed run says so and that it retries; a schedule paused after failures says why', () => {
  const failed = run({ status: 'failed', error: 'the search index is damaged', outputSummary: null });
  assert.equal(
    noticeText({ schedule: schedule({ nextTrigger: 'retry', nextRunAt: '2026-03-02T09:06:00.000Z' }), run: failed }, NOW),
    'Reminder “flag cleanup” failed 5 minutes ago: the search index is damaged. It runs again as a retry.',
  );
  const reason = 'Paused after 3 failed runs in a row. The last one: the search index is damaged. Resume it once the cause is fixed.';
  assert.match(
    noticeText({ schedule: schedule({ status: 'paused', nextRunAt: null, pauseReason: reason }), run: failed }, NOW, 400),
    /\. It is paused: Paused after 3 failed runs in a row\./,
  );
});

test('the run document: the schedule in words, its goal, each run with its whole output', () => {
  const doc = runDocument(schedule(), [run()], NOW);
  assert.equal(
    doc,
    [
      '# flag cleanup',
      '',
      'every Monday at 10:00 Europe/Berlin, next 9 Mar 10:00.',
      '',
      'Goal: Remove the new-checkout feature flag once the rollout is done.',
      '',
      '## ran 5 minutes ago',
      '',
      'Remove the new-checkout feature flag once the rollout is done.\n\nThe rollout finished on Friday: the flag can go.',
    ].join('\n'),
  );
  assert.match(runDocument(schedule(), [], NOW), /No runs yet\.$/);
});

test('reminder lines for agents: due soon with the cadence and id, recent runs with their summary', () => {
  const soon = schedule({
    id: 's2',
    name: null,
    goal: 'Check the nightly build.',
    cadence: { kind: 'once', at: '2026-03-02T15:00:00.000Z', timezone: 'Europe/Berlin' },
    nextRunAt: '2026-03-02T15:00:00.000Z',
  });
  assert.deepEqual(reminderLines({ dueSoon: [soon], recent: [{ schedule: schedule(), run: run() }] }, NOW), [
    '- due today 16:00: Check the nightly build. (once, on Mon 2 Mar 2026 at 16:00 Europe/Berlin; schedule s2)',
    '- ran 5 minutes ago: flag cleanup — The rollout finished on Friday: the flag can go. (run r1)',
  ]);
});
