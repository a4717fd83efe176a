// The shared store home: setting > AGENT_MEMORY_HOME > ~/.agent-memory; two clones with the
// same origin open the same store folder (real engines, one after the other).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { resolveStoreHome, storeDirsIn, storeFolderName } from '../../src/engine/storeLocation';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';

test('the store home: the setting wins over AGENT_MEMORY_HOME, which wins over ~/.agent-memory', () => {
  assert.equal(resolveStoreHome(undefined, {}), path.join(os.homedir(), '.agent-memory'));
  assert.equal(resolveStoreHome('', { AGENT_MEMORY_HOME: '/srv/mem' }), '/srv/mem');
  assert.equal(resolveStoreHome('/opt/m', { AGENT_MEMORY_HOME: '/srv/mem' }), '/opt/m');
  assert.equal(resolveStoreHome('~/m', {}), path.join(os.homedir(), 'm'));
  const dirs = storeDirsIn('/h', 'github.com/acme/widgets');
  assert.equal(dirs.global, '/h/global');
  assert.equal(dirs.project, path.join('/h', storeFolderName('github.com/acme/widgets')));
  assert.match(path.basename(dirs.project), /^github.com_acme_widgets-[0-9a-f]{12}$/);
});

test("two clones with the same origin open the same store and see each other's memories", async () => {
  const root = tmpDir('am-loc-');
  const home = path.join(root, 'home');
  const a = fakeClone(root, 'clone-a');
  const b = fakeClone(root, 'clone-b');
  const settings = { 'embedding.provider': 'hash' };
  const first = await MemoryEngine.open({ home, workspaceRoot: a, settings, snapshotTickMs: 0 });
  const made = await first.memories.create({ content: 'The widgets service reads its port from WIDGETS_PORT, never from a file.' });
  assert.equal(made.status, 'created');
  await first.close();
  assert.equal(fs.statSync(home).mode & 0o777, 0o700, 'the home is private to its OS user');
  const second = await MemoryEngine.open({ home, workspaceRoot: b, settings, snapshotTickMs: 0 });
  try {
    assert.equal(second.projectId, first.projectId);
    const stats = second.diagnostics.stats();
    assert.equal(stats.project.dir, storeDirsIn(home, first.projectId).project);
    assert.equal(stats.project.memories, 1, 'the second clone sees the memory saved from the first');
  } finally {
    await second.close();
  }
});
