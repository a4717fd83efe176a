// @tier durability
// The owner of a shared store is killed with SIGKILL during traffic from two other processes,
// 20 times: each time a client takes over, and in the end every acknowledged create is in the
// store exactly once, none is applied twice (each idempotency key at most once), nothing lost.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../../src/core/store/store';
import { projectStoreDir } from '../../../../src/engine/socket/endpoint';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { until } from '../../../helpers/until';

const ROOT = path.resolve(__dirname, '../../../..');
const WRITER = path.join(ROOT, 'test/fixtures/shared-writer.ts');
const ROUNDS = Number(process.env.TAKEOVER_ROUNDS ?? 20);

interface Writer {
  proc: ChildProcess;
  lines: Record<string, unknown>[];
  ready: Promise<void>;
}

function startWriter(home: string, ws: string, name: string): Writer {
  const proc = spawn(process.execPath, ['--import', 'tsx', WRITER, home, ws, name], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  let buf = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  proc.stdout!.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const line = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      lines.push(line);
      if ('ready' in line) onReady();
    }
  });
  return { proc, lines, ready };
}

const acks = (ws: Writer[]) => ws.reduce((n, w) => n + w.lines.filter((l) => 'ack' in l).length, 0);

function lockPid(dir: string): number | undefined {
  try {
    return (JSON.parse(fs.readFileSync(path.join(dir, 'store.lock'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

test(
  `SIGKILL of the owner during traffic from two clients, ${ROUNDS} rounds: no acknowledged write lost, none applied twice`,
  { timeout: 900_000 },
  async () => {
    const root = tmpDir('am-takeover-');
    const home = path.join(root, 'home');
    const ws = fakeClone(root, 'repo');
    const dir = await projectStoreDir({ home, workspaceRoot: ws });
    const writers: Writer[] = [];
    const alive = new Set<Writer>();
    const add = (name: string) => {
      const w = startWriter(home, ws, name);
      writers.push(w);
      alive.add(w);
      return w;
    };
    try {
      await add('w0').ready;
      await Promise.all([add('w1').ready, add('w2').ready]);
      for (let round = 1; round <= ROUNDS; round++) {
        const before = acks(writers);
        await until('traffic', () => acks(writers) >= before + 4, { timeoutMs: 60_000, intervalMs: 50 });
        const owner = [...alive].find((w) => w.proc.pid === lockPid(dir));
        assert.ok(owner, `round ${round}: the lock is held by one of the writers`);
        owner.proc.kill('SIGKILL');
        alive.delete(owner);
        add(`r${round}`);
        const afterKill = acks(writers);
        await until(
          `takeover in round ${round}`,
          () => {
            const pid = lockPid(dir);
            return acks(writers) >= afterKill + 4 && [...alive].some((w) => w.proc.pid === pid);
          },
          { timeoutMs: 60_000, intervalMs: 50 },
        );
      }
    } finally {
      for (const w of alive) w.proc.kill('SIGTERM');
      await Promise.all([...alive].map((w) => new Promise((r) => (w.proc.exitCode !== null ? r(null) : w.proc.once('exit', r)))));
    }
    const all = writers.flatMap((w) => w.lines);
    const acked = all.filter((l) => 'ack' in l);
    assert.ok(acked.length >= ROUNDS * 8, `traffic in every round (${acked.length} acknowledged)`);
    assert.deepEqual(
      acked.filter((l) => l.status !== 'created').map((l) => l.status),
      [],
      'every acknowledged create says created (a retry is not a duplicate)',
    );
    const store = await Store.open({ dir, readOnly: true });
    try {
      const rows = store.all<{ id: string; content: string; key: string | null }>(
        "SELECT id, content, json_extract(metadata_json, '$.idempotencyKey') AS key FROM memories WHERE deleted_at IS NULL",
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const a of acked) assert.equal(byId.get(String(a.id))?.content, a.ack, `acknowledged write ${String(a.id)} is in the store`);
      const keys = rows.map((r) => r.key).filter((k): k is string => !!k);
      assert.equal(new Set(keys).size, keys.length, 'no idempotency key applied twice');
      const contents = rows.map((r) => r.content);
      assert.equal(new Set(contents).size, contents.length, 'no write applied twice');
      const failed = all.filter((l) => 'fail' in l);
      const codes = [...new Set(failed.map((f) => f.code))].join(', ');
      const counts = `${acked.length} acknowledged, ${failed.length} failed (${codes}), ${rows.length} in the store`;
      console.log(`takeover: ${ROUNDS} rounds, ${counts}`);
    } finally {
      await store.close();
    }
  },
);
