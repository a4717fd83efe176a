// @tier durability
// The owner of the global store (a window of project X or Y) is killed with SIGKILL while the
// engines of both projects write global memories through it, several rounds: each time another
// engine takes the global store over (or reconnects to whoever did), the writes go on, and in the
// end every acknowledged global create is in the global store exactly once — none lost, none
// applied twice (each idempotency key at most once).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../../src/core/store/store';
import { engineStoreDirs } from '../../../../src/engine/worker/storeMigration';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { until } from '../../../helpers/until';

const ROOT = path.resolve(__dirname, '../../../..');
const WRITER = path.join(ROOT, 'test/fixtures/shared-writer.ts');
const ROUNDS = Number(process.env.GLOBAL_TAKEOVER_ROUNDS ?? 5);

interface Writer {
  project: string;
  proc: ChildProcess;
  lines: Record<string, unknown>[];
  ready: Promise<void>;
}

function startWriter(home: string, ws: string, project: string, name: string): Writer {
  const proc = spawn(process.execPath, ['--import', 'tsx', WRITER, home, ws, name, 'global'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
  return { project, proc, lines, ready };
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
  `SIGKILL of the global store's owner while two projects write global memories, ${ROUNDS} rounds: none lost, none applied twice`,
  { timeout: 900_000 },
  async () => {
    const root = tmpDir('am-global-takeover-');
    const home = path.join(root, 'home');
    const workspaces = {
      x: fakeClone(root, 'x', 'https://github.com/acme/x.git'),
      y: fakeClone(root, 'y', 'https://github.com/acme/y.git'),
    };
    const globalDir = engineStoreDirs({ home }, 'any').global;
    const writers: Writer[] = [];
    const alive = new Set<Writer>();
    const add = (project: 'x' | 'y', name: string) => {
      const w = startWriter(home, workspaces[project], project, name);
      writers.push(w);
      alive.add(w);
      return w;
    };
    const tookOverFrom: string[] = [];
    try {
      await add('x', 'x0').ready; // the first engine: owner of project X and of global/
      await Promise.all([add('y', 'y0').ready, add('y', 'y1').ready]); // project Y: owner + client, global through X
      for (let round = 1; round <= ROUNDS; round++) {
        const before = acks(writers);
        await until(`traffic in round ${round}`, () => acks(writers) >= before + 6, { timeoutMs: 90_000, intervalMs: 50 });
        const owner = [...alive].find((w) => w.proc.pid === lockPid(globalDir));
        assert.ok(owner, `round ${round}: the global store's lock is held by one of the writers`);
        owner.proc.kill('SIGKILL');
        alive.delete(owner);
        const others = writers.filter((w) => w.project !== owner.project);
        const othersBefore = acks(others);
        // The killed project gets a new window only after the other project had its chance to take over.
        await until(`the other project's global writes go on in round ${round}`, () => acks(others) >= othersBefore + 4, {
          timeoutMs: 90_000,
          intervalMs: 50,
        });
        const newOwner = [...alive].find((w) => w.proc.pid === lockPid(globalDir));
        if (newOwner) tookOverFrom.push(`${owner.project}→${newOwner.project}`);
        add(owner.project as 'x' | 'y', `${owner.project}${round}`);
        const afterKill = acks(writers);
        await until(
          `a live owner of global/ after round ${round}`,
          () => {
            const pid = lockPid(globalDir);
            return acks(writers) >= afterKill + 4 && [...alive].some((w) => w.proc.pid === pid);
          },
          { timeoutMs: 90_000, intervalMs: 50 },
        );
      }
    } finally {
      for (const w of alive) w.proc.kill('SIGTERM');
      await Promise.all([...alive].map((w) => new Promise((r) => (w.proc.exitCode !== null ? r(null) : w.proc.once('exit', r)))));
    }
    assert.ok(
      tookOverFrom.some((t) => t[0] !== t.at(-1)),
      `the other project's engine took the global store over at least once (${tookOverFrom.join(', ')})`,
    );
    const all = writers.flatMap((w) => w.lines);
    const acked = all.filter((l) => 'ack' in l);
    assert.deepEqual(
      acked.filter((l) => l.status !== 'created').map((l) => l.status),
      [],
      'every acknowledged create says created (a retry is not a duplicate)',
    );
    const store = await Store.open({ dir: globalDir, readOnly: true });
    try {
      const rows = store.all<{ id: string; content: string; key: string | null }>(
        "SELECT id, content, json_extract(metadata_json, '$.idempotencyKey') AS key FROM memories WHERE deleted_at IS NULL",
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const a of acked) assert.equal(byId.get(String(a.id))?.content, a.ack, `acknowledged global write ${String(a.id)} is there`);
      const keys = rows.map((r) => r.key).filter((k): k is string => !!k);
      assert.equal(new Set(keys).size, keys.length, 'no idempotency key applied twice');
      const contents = rows.map((r) => r.content);
      assert.equal(new Set(contents).size, contents.length, 'no write applied twice');
      const failed = all.filter((l) => 'fail' in l);
      const codes = [...new Set(failed.map((f) => f.code))].join(', ');
      console.log(
        `global takeover: ${ROUNDS} rounds (${tookOverFrom.join(', ')}), ${acked.length} acknowledged, ` +
          `${failed.length} failed (${codes}), ${rows.length} in the global store`,
      );
    } finally {
      await store.close();
    }
  },
);
