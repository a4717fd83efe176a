// @tier durability
/**
 * Enabling and disabling encryption under kill -9 (docs/encryption.md "Switching"): a child writes
 * notes and switches its store's encryption on and off between them; it is killed at random
 * moments and at each step of a switch (staged, committed, files moved). After every kill the
 * store opens (with the key), every acknowledged note is there, the switch was finished or
 * undone, and no staging folder is left.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { newKey } from '../../../src/core/crypto/aead';
import { formatRecoveryKey } from '../../../src/core/crypto/recoveryKey';
import { soakKeys } from '../../fixtures/soakKeys';
import { tmpDir } from '../../helpers/tmp';

const child = path.join(__dirname, '..', '..', 'fixtures', 'rekey-child.ts');

function round(
  dir: string,
  n: number,
  mode: 'random' | 'step',
  key: string,
): Promise<{ acked: string[]; switches: number; stderr: string; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, dir, String(n), mode], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SOAK_RECOVERY_KEY: key },
    });
    const acked: string[] = [];
    let switches = 0;
    let buf = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    proc.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const [kind, id] = buf.slice(0, nl).split(' ');
        buf = buf.slice(nl + 1);
        if (kind === 'READY')
          timer = setTimeout(() => proc.kill('SIGKILL'), mode === 'random' ? 30 + Math.floor(Math.random() * 400) : 8000);
        else if (kind === 'ACK') acked.push(id!);
        else if (kind === 'SWITCHED') switches++;
      }
    });
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('error', reject);
    proc.on('exit', (_code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ acked, switches, stderr, signal });
    });
  });
}

test(
  'kill -9 while switching encryption on and off: every acknowledged note survives, never a half-switched store',
  { timeout: 600_000 },
  async () => {
    const dir = path.join(tmpDir('am-rekey-'), 'store');
    const key = formatRecoveryKey(newKey());
    const acked: string[] = [];
    let kills = 0;
    let switches = 0;
    const rounds = Number(process.env.REKEY_KILL_ROUNDS ?? 40);
    for (let n = 0; n < rounds; n++) {
      const r = await round(dir, n, n % 2 ? 'step' : 'random', key);
      assert.equal(r.signal, 'SIGKILL', `round ${n} ended by itself: ${r.stderr}`);
      kills++;
      switches += r.switches;
      acked.push(...r.acked);
      const store = await Store.open({ dir, ...soakKeys({ SOAK_RECOVERY_KEY: key }) });
      try {
        const ids = new Set(store.all<{ id: string }>('SELECT id FROM memories').map((x) => x.id));
        const lost = acked.filter((id) => !ids.has(id));
        assert.deepEqual(lost, [], `round ${n}: acknowledged notes lost`);
        assert.deepEqual(store.integrityCheck(), []);
        assert.deepEqual(
          fs.readdirSync(dir).filter((x) => x.startsWith('rekey')),
          [],
          'no staging folder is left after an open',
        );
        assert.equal(!!store.fileCipher, fs.existsSync(path.join(dir, 'store.key')));
      } finally {
        await store.close({ snapshot: n % 3 === 0 });
      }
    }
    assert.ok(kills >= rounds);
    assert.ok(switches > rounds, `switches completed: ${switches}`);
    assert.ok(acked.length > rounds * 5, `acknowledged: ${acked.length}`);
  },
);
