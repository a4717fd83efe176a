// @tier durability
// Exactly once per due time across owners (docs/schedules.md "Runs"): the owner of the store
// (`agent-memory mcp`, a real process) claims a due one-shot and is killed with SIGKILL in the
// middle of the run (its model call hangs). The next owner records that run as interrupted — never
// runs the same due time again — and runs the retry once: no run lost, none doubled.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ScheduleDefinition, ScheduleRunRecord } from '../../../../src/engine/scheduleProtocol';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { CLI_TS, ROOT, runCli } from '../../../helpers/cliProcess';
import { FakeOllama } from '../../../helpers/fakeOllama';
import { resultData } from '../../../helpers/mcpOutput';

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 150_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('the owner killed mid-run: the next owner records the run interrupted and runs the retry once', { timeout: 400_000 }, async () => {
  const fake = await FakeOllama.start({
    models: ['qwen3:4b', 'nomic-embed-text:latest'],
    reply: 'Digest: the rollout finished on Monday.',
  });
  fake.enqueue('generate', { hang: true }); // the first owner's run never gets its answer
  const root = tmpDir('am-sched-takeover-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(
    path.join(ws, 'agent.yaml'),
    `embedding:\n  provider: hash\nmemory:\n  pipelineV2:\n    enabled: true\n    ollamaUrl: ${fake.url}\n`,
  );
  const env = { ...(process.env as Record<string, string>), AGENT_MEMORY_HOME: path.join(root, 'home') };
  const owner = async (name: string) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI_TS, 'mcp', '--workspace', ws],
      cwd: ROOT,
      env,
      stderr: 'pipe',
    });
    const client = new Client({ name, version: '1.0.0' });
    await client.connect(transport);
    return { client, transport };
  };
  const runsOf = async (client: Client, id: string) =>
    resultData<ScheduleRunRecord[]>(await client.callTool({ name: 'schedule_runs', arguments: { id, limit: 10 } }));

  // Made from the CLI, due in 20 seconds (a short command runs nothing that is due).
  const at = new Date(Date.now() + 20_000).toISOString();
  const made = await runCli(['schedule', 'add', 'How did the rollout go?', '--when', at, '--json', '--workspace', ws], env);
  assert.equal(made.code, 0, made.stderr);
  const s = JSON.parse(made.stdout) as ScheduleDefinition;

  const a = await owner('first owner');
  let b: Awaited<ReturnType<typeof owner>> | undefined;
  try {
    await a.client.callTool({ name: 'list_schedules', arguments: {} }); // the engine is up: it owns the store
    await until('the first owner to be in the run', () => (fake.count('generate') >= 1 ? true : undefined));
    const claimed = await runsOf(a.client, s.id);
    assert.equal(claimed.length, 1);
    assert.equal(claimed[0]!.status, 'running', 'the claim is recorded before the work');
    assert.equal(claimed[0]!.dueAt, at);
    process.kill(a.transport.pid!, 'SIGKILL');

    b = await owner('next owner');
    const runs = await until('the interrupted run and its retry', async () => {
      const r = await runsOf(b!.client, s.id);
      return r.some((x) => x.status === 'succeeded') ? r : undefined;
    });
    const first = runs.find((r) => r.dueAt === at);
    assert.equal(first?.status, 'interrupted', 'the killed run is recorded, not run again');
    assert.match(first?.error ?? '', /stopped before the run finished/);
    assert.equal(runs.filter((r) => r.dueAt === at).length, 1, 'its due time is claimed once');
    const retry = runs.find((r) => r.status === 'succeeded')!;
    assert.equal(retry.trigger, 'retry');
    assert.match(retry.output ?? '', /Digest: the rollout finished on Monday\./);
    assert.equal(runs.length, 2, 'one interrupted run, one retry');

    // Nothing more runs: the one-shot is complete after its successful retry.
    const after = resultData<{ items: ScheduleDefinition[] }>(await b.client.callTool({ name: 'list_schedules', arguments: {} }));
    assert.equal(after.items.find((x) => x.id === s.id)?.status, 'completed');
    assert.equal(fake.count('generate'), 2, 'one model call per run: the hung one and the retry');
  } finally {
    await b?.client.close();
    await a.client.close().catch(() => undefined);
    await fake.close();
  }
});
