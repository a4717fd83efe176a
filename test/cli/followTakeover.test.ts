// @tier durability
// `agent-memory events --follow` as a client of another process that owns the store: the owner
// is killed with SIGKILL, the follower takes the store over and goes on printing changes from
// where it was (docs/changes.md "Reading it"), then Ctrl+C ends it cleanly with its cursor.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeEvent } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { CLI_TS, ROOT, runCli } from '../helpers/cliProcess';
import { until } from '../helpers/until';

interface Follower {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function follow(ws: string, env: Record<string, string>): Follower {
  const proc = spawn(process.execPath, ['--import', 'tsx', CLI_TS, 'events', '--follow', '--json', '--verbose', '--workspace', ws], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, exited };
}

test('--follow goes on after the owner is killed: the follower takes over and prints every change', { timeout: 240_000 }, async (t) => {
  const root = tmpDir('am-follow-takeover-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const add = async (text: string) => {
    const r = await runCli(['add', text, '--json', '--workspace', ws], env);
    assert.equal(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { memory: { id: string } }).memory.id;
  };

  const owner = follow(ws, env);
  t.after(() => owner.proc.kill('SIGKILL'));
  await until('the first process to own the store', () => owner.err().includes('store owned by this process'), {
    timeoutMs: 90_000,
    intervalMs: 100,
  });
  const follower = follow(ws, env);
  t.after(() => follower.proc.kill('SIGKILL'));
  await until('the follower to connect as a client', () => follower.err().includes('connected as a client'), {
    timeoutMs: 90_000,
    intervalMs: 100,
  });

  const before = await add('The cache warms up in ninety seconds after a deploy.');
  await until('the change made while the owner lives', () => follower.out().includes(before), { timeoutMs: 90_000, intervalMs: 100 });
  owner.proc.kill('SIGKILL');
  await owner.exited;
  const after = await add('Error budgets are reviewed every second Thursday.');
  await until(`the change made after the owner died (stderr: ${follower.err()})`, () => follower.out().includes(after), {
    timeoutMs: 90_000,
    intervalMs: 100,
  });

  const printed = follower
    .out()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChangeEvent);
  assert.deepEqual(
    printed.map((e) => [e.cursor, e.type, e.memoryId]),
    [
      [1, 'memory.created', before],
      [2, 'memory.created', after],
    ],
    'each change once, in order, none missed across the takeover',
  );
  follower.proc.kill('SIGINT');
  assert.equal(await follower.exited, 0, follower.err());
  assert.equal((JSON.parse(follower.err().trim().split('\n').at(-1)!) as { cursor: number }).cursor, 2);
});
