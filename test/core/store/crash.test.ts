// @tier durability
/**
 * Durability under kill -9: a child process writes memories in a loop and is killed
 * with SIGKILL 24 times, each time after a random number of acknowledged writes (so a slow
 * machine kills as deep into the work as a fast one: counted in writes, not milliseconds).
 * After each kill the store is reopened here: every acknowledged write is present (at least
 * at its acknowledged version), PRAGMA integrity_check and FTS4's integrity check pass.
 * The seed is printed; CRASH_SEED=<seed> replays the same kill points.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { tmpDir } from '../../helpers/tmp';
import { rng } from '../vector/data';

const ROUNDS = 24;
/** Kill after this many acknowledged writes (a snapshot starts every 40 creates, so kills land inside some). */
const MIN_ACKS = 8;
const MAX_ACKS = 300;
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const writer = path.join(__dirname, '..', '..', 'fixtures', 'crash-writer.ts');

function runAndKill(dir: string, run: number, killAfterAcks: number): Promise<{ acked: Map<string, number>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, String(run)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<string, number>();
    let buf = '';
    let stderr = '';
    let acks = 0;
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = /^ACK (\S+) (\d+)$/.exec(line);
        if (!m) continue;
        acked.set(m[1]!, Math.max(acked.get(m[1]!) ?? 0, Number(m[2])));
        // The writer goes on while the signal travels: the kill lands a little after this ack.
        if (++acks === killAfterAcks) child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code ?? signal} before the kill: ${stderr}`));
      else resolve({ acked, stderr });
    });
  });
}

test(`acknowledged memories survive SIGKILL after a random number of writes (${ROUNDS} rounds)`, { timeout: 600_000 }, async () => {
  console.log(`crash test: seed ${SEED} (replay with CRASH_SEED=${SEED})`);
  const random = rng(SEED);
  const dir = tmpDir('am-crash-');
  const expected = new Map<string, number>();
  let totalAcked = 0;
  let tornTails = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const killAfter = MIN_ACKS + Math.floor(random() * (MAX_ACKS - MIN_ACKS));
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
      assert.ok(rows.has(id), `round ${round} (seed ${SEED}): acknowledged memory ${id} is missing after kill -9`);
      assert.ok(rows.get(id)! >= v, `round ${round} (seed ${SEED}): memory ${id} at version ${rows.get(id)}, acknowledged ${v}`);
    }
    assert.deepEqual(store.integrityCheck(), [], `round ${round} (seed ${SEED}): integrity`);
    const fts = store.get<{ n: number }>('SELECT count(*) AS n FROM memories_fts')!.n;
    assert.equal(Number(fts), rows.size, `round ${round}: FTS rows match memories`);
    // Alternate between leaving the log long and compacting it, like real use.
    await store.close({ snapshot: round % 3 === 0 });
  }
  // Every round acknowledged at least MIN_ACKS writes, of which at least 7 in 8 are creates.
  assert.ok(
    expected.size >= ROUNDS * Math.floor((MIN_ACKS * 7) / 8),
    `only ${expected.size} memories were acknowledged in ${ROUNDS} rounds`,
  );
  console.log(
    `crash test: ${ROUNDS} kills (seed ${SEED}), ${expected.size} memories acknowledged (${totalAcked} acks), ${tornTails} torn tails recovered`,
  );
});
