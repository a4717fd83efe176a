// @tier process
// `agent-memory add --capture --ttl`, `removed` and `restore` as real processes: a capture with a
// short lifetime expires (the owner's sweep, memory.cleanup_interval) into the removed list, a
// deleted memory is listed with its reason, and restore brings one back.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CreateMemoryResult, MemoryRecord, RemovedList } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { MemoryEngine } from '../../src/engine/worker/engine';

function json<T>(r: CliRun): T {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout) as T;
}

test(
  'CLI: add is permanent unless --ttl/--capture; removed lists expired and deleted memories; restore brings one back',
  { timeout: 180_000 },
  async () => {
    const root = tmpDir('am-cli-removed-');
    const home = path.join(root, 'home');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const env = { AGENT_MEMORY_HOME: home };
    const cli = (...args: string[]) => runCli([...args, '--workspace', ws], env);

    const mine = json<CreateMemoryResult>(await cli('add', 'We tag releases as vYYYY.MM.DD on the main branch.', '--json'));
    assert.ok(mine.status === 'created' && mine.memory.expiresAt === null, 'a person adding from the CLI: permanent');
    const capture = json<CreateMemoryResult>(await cli('add', 'The agent noticed npm ci takes 80 seconds here.', '--capture', '--json'));
    assert.ok(capture.status === 'created' && capture.memory.ttlSeconds === 86400, 'an automatic capture: short-term by default');
    const brief = json<CreateMemoryResult>(
      await cli('add', 'The demo server is down until noon for a disk swap.', '--ttl', '2s', '--json'),
    );
    assert.ok(brief.status === 'created' && brief.memory.ttlSeconds === 2);
    const gone = json<CreateMemoryResult>(await cli('add', 'Old note: the wiki moved to the handbook repository.', '--json'));
    assert.ok(gone.status === 'created');
    assert.equal((await cli('delete', gone.memory.id, '--reason', 'outdated')).code, 0);

    // The expiry sweep runs in the store's owner; here the engine owns the store for a moment.
    await new Promise((r) => setTimeout(r, 2100));
    const owner = await MemoryEngine.open({ workspaceRoot: ws, home });
    try {
      assert.deepEqual(owner.maintenance.sweepExpired(), [brief.memory.id]);
    } finally {
      await owner.close();
    }

    const removed = json<RemovedList>(await cli('removed', '--json'));
    assert.deepEqual(
      removed.items.map((x) => [x.memory.id, x.reason]),
      [
        [brief.memory.id, 'expired'],
        [gone.memory.id, 'deleted'],
      ],
    );
    const text = await cli('removed', '--expired');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 expired memory \(agent-memory restore <id>\)\n/);
    assert.match(
      text.stdout,
      new RegExp(
        `${brief.memory.id} \\[general\\] The demo server is down .* — expired (just now|\\d+ (second|minute)s? ago); purged \\d{4}-\\d{2}-\\d{2}`,
      ),
    );
    assert.match((await cli('removed', '--deleted')).stdout, /— deleted by user just now: outdated; purged /);
    assert.equal((await cli('removed', '--expired', '--deleted')).code, 2, 'contradictory flags are a usage error');
    assert.equal((await cli('add', 'x'.repeat(20), '--ttl', 'soon')).code, 2, 'a bad --ttl is a usage error');

    const back = json<MemoryRecord>(await cli('restore', brief.memory.id, '--json'));
    assert.equal(back.deletedAt, null);
    assert.ok(Date.parse(back.expiresAt!) - Date.now() > 23 * 3600_000, 'restored with a fresh lifetime of at least a day');
    assert.match((await cli('restore', gone.memory.id)).stdout, /^restored \S+ Old note: the wiki moved .* \(permanent\)\n$/);
    assert.equal(json<RemovedList>(await cli('removed', '--json')).total, 0);
  },
);
