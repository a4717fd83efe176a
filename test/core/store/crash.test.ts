/**
 * Durability under kill -9: a child process writes memories in a loop and is killed
 * with SIGKILL at random moments, 24 times. After each kill the store is reopened
 * here: every acknowledged write is present (at least at its acknowledged version),
 * PRAGMA integrity_check and FTS4's integrity check pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { tmpDir } from '../../helpers/tmp';

const ROUNDS = 24;
const writer = path.join(__dirname, '..', '..', 'fixtures', 'crash-writer.ts');

function runAndKill(dir: string, run: number, killAfterMs: number): Promise<{ acked: Map<string, number>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, String(run)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<string, number>();
    let buf = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line === 'READY' && !timer) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        const m = /^ACK (\S+) (\d+)$/.exec(line);
        if (m) acked.set(m[1]!, Math.max(acked.get(m[1]!) ?? 0, Number(m[2])));
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code ?? signal} before the kill: ${stderr}`));
      else resolve({ acked, stderr });
    });
  });
}

test(`acknowledged memories survive SIGKILL at random moments (${ROUNDS} rounds)`, { timeout: 600_000 }, async () => {
  const dir = tmpDir('am-crash-');
  const expected = new Map<string, number>();
  let totalAcked = 0;
  let tornTails = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const killAfter = 50 + Math.floor(Math.random() * 700);
    const { acked } = await runAndKill(dir, round, killAfter);
    for (const [id, v] of acked) expected.set(id, Math.max(expected.get(id) ?? 0, v));
    totalAcked += acked.size;
    const warnings: string[] = [];
    const store = await Store.open({ dir, onWarning: (w) => warnings.push(w) });
    if (warnings.some((w) => /cut short while it was being written|could not be read/.test(w))) tornTails++;
    const rows = new Map(
      store.all<{ id: string; version: number }>('SELECT id, version FROM memories').map((r) => [r.id, Number(r.version)]),
    );
    for (const [id, v] of expected) {
      assert.ok(rows.has(id), `round ${round}: acknowledged memory ${id} is missing after kill -9`);
      assert.ok(rows.get(id)! >= v, `round ${round}: memory ${id} at version ${rows.get(id)}, acknowledged ${v}`);
    }
    assert.deepEqual(store.integrityCheck(), [], `round ${round}: integrity`);
    const fts = store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts')!.n;
    assert.equal(Number(fts), rows.size, `round ${round}: FTS rows match memories`);
    // Alternate between leaving the log long and compacting it, like real use.
    await store.close({ snapshot: round % 3 === 0 });
  }
  assert.ok(expected.size > ROUNDS * 5, `only ${expected.size} memories were acknowledged in ${ROUNDS} rounds`);
  console.log(
    `crash test: ${ROUNDS} kills, ${expected.size} memories acknowledged (${totalAcked} acks), ${tornTails} torn tails recovered`,
  );
});
