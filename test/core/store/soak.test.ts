// @tier durability
/**
 * A short run of the kill -9 soak (`npm run soak` runs it for ≥ 200 kills): one round per crash
 * point (snapshot rename, torn append, FTS merge, index save, random moment) with disk errors
 * injected; nothing acknowledged lost, nothing reported as failed stored, integrity clean.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { CRASH_POINTS, runSoak } from '../../fixtures/soakRunner';
import { tmpDir } from '../../helpers/tmp';
import { newKey } from '../../../src/core/crypto/aead';
import { formatRecoveryKey } from '../../../src/core/crypto/recoveryKey';

test('soak: a kill at every crash point, with injected disk errors, loses no acknowledged write', { timeout: 300_000 }, async () => {
  const f = await runSoak({ dir: path.join(tmpDir('am-soak-'), 'store'), kills: CRASH_POINTS.length, diskErrors: 1, maxRounds: 12 });
  assert.deepEqual(f.problems, []);
  assert.ok(f.kills >= CRASH_POINTS.length, `kills: ${f.kills}`);
  assert.ok(f.acknowledgedWrites > 20, `acknowledged: ${f.acknowledgedWrites}`);
  assert.equal(f.lostWrites, 0);
  assert.equal(f.resurrectedFailedWrites, 0);
  assert.equal(f.integrityFailures, 0);
  assert.ok(f.diskErrorsInjected >= 1, 'at least one disk error was injected');
});

test('soak on an encrypted store: the same crash points and disk errors lose no acknowledged write', { timeout: 300_000 }, async () => {
  const f = await runSoak({
    dir: path.join(tmpDir('am-soak-enc-'), 'store'),
    kills: CRASH_POINTS.length,
    diskErrors: 1,
    maxRounds: 12,
    recoveryKey: formatRecoveryKey(newKey()),
  });
  assert.deepEqual(f.problems, []);
  assert.ok(f.kills >= CRASH_POINTS.length, `kills: ${f.kills}`);
  assert.ok(f.acknowledgedWrites > 20, `acknowledged: ${f.acknowledgedWrites}`);
  assert.equal(f.lostWrites, 0);
  assert.equal(f.resurrectedFailedWrites, 0);
  assert.equal(f.integrityFailures, 0);
});
