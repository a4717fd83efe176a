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
