// @tier process
// The schedule tools of `agent-memory mcp` driven by the MCP SDK's own Client over stdio (a real
// process, the store's owner): create from a phrase, list with the next run in words, errors that
// say what is wrong, a one-shot that runs and completes, its run history and the notice sent back
// to the client that made it, the reminders in the project context, pause and delete.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpProject } from '../helpers/mcpClient';
import { resultData, textOf } from '../helpers/mcpOutput';

interface ScheduleData {
  id: string;
  status: string;
  nextRunAt: string | null;
  channelId: string | null;
  channelContextId: string | null;
  cadence: { kind: string; expr?: string; timezone: string };
  inWords: string;
}
interface RunData {
  status: string;
  output: string | null;
  outputSummary: string | null;
  inWords: string;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test(
  'an agent schedules a reminder through agent-memory mcp: it runs once, is told back, and shows in the project context',
  { timeout: 180_000 },
  async () => {
    const { transport } = mcpProject('am-mcp-sched-');
    const client = new Client({ name: 'sched-agent', version: '1.0.0' });
    const told: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      told.push(String(n.params.data));
    });
    await client.connect(transport);
    try {
      await client.callTool({
        name: 'store_memory',
        arguments: {
          content: 'The feature flag new-checkout guards the new checkout flow; remove it once rollout is complete.',
          title: 'new-checkout flag',
        },
      });

      const weekly = resultData<ScheduleData>(
        await client.callTool({
          name: 'create_schedule',
          arguments: { goal: 'Tell me what changed in this project memory.', when: 'every Monday at 10', timezone: 'Europe/Berlin' },
        }),
      );
      assert.deepEqual(weekly.cadence, { kind: 'cron', expr: '0 10 * * 1', timezone: 'Europe/Berlin' });
      assert.equal(weekly.channelId, 'mcp');
      assert.equal(weekly.channelContextId, 'sched-agent', 'where it was made: the MCP client name');
      assert.match(weekly.inWords, /^every Monday at 10:00 Europe\/Berlin, next /);

      for (const [when, why] of [
        ['every 2 minutes', /5 minutes/],
        ['*/1 * * * * *', /cron|five fields|field/i],
        ['2020-01-01T09:00:00Z', /future|ago/],
        ['whenever you like', /every Monday at 10|in 2 hours/],
      ] as const) {
        const r = await client.callTool({ name: 'create_schedule', arguments: { goal: 'x', when } });
        assert.equal(r.isError, true, `"${when}" is refused`);
        assert.match(textOf(r), why, `"${when}" says what is wrong: ${textOf(r)}`);
      }
      const zone = await client.callTool({ name: 'create_schedule', arguments: { goal: 'x', when: 'daily', timezone: 'Mars/Olympus' } });
      assert.equal(zone.isError, true);
      assert.match(textOf(zone), /IANA/);

      // A one-shot a few seconds ahead: the owner (this agent-memory mcp) runs it once.
      const at = new Date(Date.now() + 3000).toISOString();
      const once = resultData<ScheduleData>(
        await client.callTool({
          name: 'create_schedule',
          arguments: { goal: 'Remind me to remove the new-checkout feature flag.', when: at, name: 'flag cleanup' },
        }),
      );
      const runs = await until('the one-shot to run', async () => {
        const r = resultData<RunData[]>(await client.callTool({ name: 'schedule_runs', arguments: { id: once.id } }));
        return r.length && r[0]!.status !== 'running' ? r : undefined;
      });
      assert.equal(runs.length, 1, 'run once');
      assert.equal(runs[0]!.status, 'succeeded');
      assert.match(runs[0]!.output ?? '', /remove the new-checkout feature flag/, 'without a model: the goal');
      assert.match(runs[0]!.output ?? '', /new-checkout flag/, 'and the memories relevant to it');
      assert.match(runs[0]!.inWords, /^ran /);

      const list = resultData<{ total: number; items: ScheduleData[] }>(await client.callTool({ name: 'list_schedules', arguments: {} }));
      assert.equal(list.total, 2);
      assert.equal(list.items.find((s) => s.id === once.id)?.status, 'completed', 'a one-shot completes');
      const active = resultData<{ total: number }>(await client.callTool({ name: 'list_schedules', arguments: { status: 'active' } }));
      assert.equal(active.total, 1);

      const notice = await until('the notice told to this client', async () => told.find((t) => t.includes('flag cleanup')));
      assert.match(notice, /ran /);

      const briefing = textOf(await client.callTool({ name: 'get_project_context', arguments: {} }));
      assert.match(briefing, /Reminders/);
      assert.match(briefing, /ran [^\n]*flag cleanup/, 'the recent run');

      const soon = resultData<ScheduleData>(
        await client.callTool({
          name: 'create_schedule',
          arguments: { goal: 'Check the nightly build after the deploy.', when: 'in 2 hours' },
        }),
      );
      const briefing2 = textOf(await client.callTool({ name: 'get_project_context', arguments: {} }));
      assert.match(
        briefing2,
        new RegExp(
          `due (today|tomorrow) \\d\\d:\\d\\d: Check the nightly build after the deploy\\. \\(once, [^\\n]*schedule ${soon.id}\\)`,
        ),
      );

      const paused = resultData<ScheduleData>(
        await client.callTool({ name: 'update_schedule', arguments: { id: weekly.id, status: 'paused' } }),
      );
      assert.equal(paused.status, 'paused');
      assert.equal(paused.nextRunAt, null);
      assert.match(paused.inWords, /paused/);
      const moved = resultData<ScheduleData>(
        await client.callTool({
          name: 'update_schedule',
          arguments: { id: weekly.id, status: 'active', when: 'every weekday at 09:00', timezone: 'Europe/Berlin' },
        }),
      );
      assert.match(moved.inWords, /^every weekday at 09:00 Europe\/Berlin, next /);

      assert.match(textOf(await client.callTool({ name: 'delete_schedule', arguments: { id: weekly.id } })), /deleted/);
      const gone = await client.callTool({ name: 'schedule_runs', arguments: { id: weekly.id } });
      assert.equal(gone.isError, true, 'an unknown schedule is a tool error');
    } finally {
      await client.close();
    }
  },
);
