// @tier process
// `agent-memory schedule …` as real processes: add from a phrase (errors that say what is wrong),
// list and show in words, pause and resume, a short command that owns the store runs nothing that
// is due (the next long-lived owner does), `schedule run` runs it now and prints what it said,
// delete.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ScheduleDefinition, ScheduleRunRecord } from '../../src/engine/scheduleProtocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';

function ok(r: CliRun): string {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return r.stdout.trim();
}
const json = <T>(r: CliRun): T => JSON.parse(ok(r)) as T;

test('agent-memory schedule: add, list, show, pause, resume, run now, delete', { timeout: 240_000 }, async () => {
  const root = tmpDir('am-cli-sched-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home'), TERM_PROGRAM: 'test-terminal' };
  const cli = (...args: string[]) => runCli([...args, '--workspace', ws], env);

  ok(await cli('add', 'The new-checkout feature flag guards the new checkout flow.', '--title', 'new-checkout flag'));

  const weekly = json<ScheduleDefinition>(
    await cli(
      'schedule',
      'add',
      "what changed in this project's memory",
      '--when',
      'every Monday at 10',
      '--timezone',
      'Europe/Berlin',
      '--json',
    ),
  );
  assert.deepEqual(weekly.cadence, { kind: 'cron', expr: '0 10 * * 1', timezone: 'Europe/Berlin' });
  assert.equal(weekly.channelId, 'cli');
  assert.equal(weekly.channelContextId, 'test-terminal');

  const bad = await cli('schedule', 'add', 'x', '--when', 'every 2 minutes');
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /5 minutes/, `says the shortest time between runs: ${bad.stderr}`);
  const zone = await cli('schedule', 'add', 'x', '--when', 'daily', '--timezone', 'Mars/Olympus');
  assert.equal(zone.code, 1);
  assert.match(zone.stderr, /IANA/);
  const noWhen = await cli('schedule', 'add', 'x');
  assert.equal(noWhen.code, 2, 'a usage error');
  assert.match(noWhen.stderr, /--when/);
  const noAction = await cli('schedule', 'frobnicate');
  assert.equal(noAction.code, 2);
  assert.match(noAction.stderr, /add, list, show/);

  // A one-shot due in 15 seconds (a CLI process takes a few to start); short commands that own
  // the store meanwhile leave it to a long-lived owner.
  const at = new Date(Date.now() + 15_000).toISOString();
  const once = json<ScheduleDefinition>(
    await cli('schedule', 'add', 'Remind me to remove the new-checkout feature flag', '--when', at, '--name', 'flag cleanup', '--json'),
  );
  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(at) + 500 - Date.now())));
  const listed = ok(await cli('schedule', 'list'));
  assert.match(listed, /^2 schedules$/m);
  assert.match(
    listed,
    new RegExp(`^what changed in this project's memory: every Monday at 10:00 Europe/Berlin, next .*· id ${weekly.id}$`, 'm'),
  );
  const shown = json<{ schedule: ScheduleDefinition; runs: ScheduleRunRecord[] }>(await cli('schedule', 'show', once.id, '--json'));
  assert.equal(shown.runs.length, 0, 'a short command ran nothing that was due');
  assert.equal(shown.schedule.status, 'active');

  const run = await cli('schedule', 'run', once.id);
  const out = ok(run);
  assert.match(out, /^ran just now/);
  assert.match(out, /remove the new-checkout feature flag/);
  assert.match(out, /new-checkout flag/, 'the memories relevant to the goal');
  const after = ok(await cli('schedule', 'show', once.id));
  assert.match(after, /^1 run, newest first:$/m);

  const paused = ok(await cli('schedule', 'pause', weekly.id));
  assert.match(paused, /^paused .*paused: Paused by a person\./);
  const resumed = json<ScheduleDefinition>(await cli('schedule', 'resume', weekly.id, '--json'));
  assert.equal(resumed.status, 'active');
  assert.ok(resumed.nextRunAt);
  const moved = ok(await cli('schedule', 'update', weekly.id, '--when', 'every weekday at 09:00', '--timezone', 'Europe/Berlin'));
  assert.match(moved, /^updated .*every weekday at 09:00 Europe\/Berlin, next /);

  assert.match(ok(await cli('schedule', 'delete', weekly.id)), /deleted schedule/);
  const gone = await cli('schedule', 'show', weekly.id);
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /no schedule with id/);
});
