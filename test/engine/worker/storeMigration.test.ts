// The old per-window stores (VS Code workspace storage of two windows, and the old global
// storage) merge into the shared store without loss: ids, history and tombstones kept, the
// same text saved in both windows kept once, old folders renamed `.migrated` after the check.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../../src/engine/worker/engine';
import type { EngineEvent } from '../../../src/engine/protocol';
import { storeDirsIn, storeFolderName } from '../../../src/engine/storeLocation';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';

const settings = { 'embedding.provider': 'hash' };

async function oldWindow(storageDir: string, globalStorageDir: string, workspaceRoot: string, texts: string[]) {
  const engine = await MemoryEngine.open({ storageDir, globalStorageDir, workspaceRoot, settings, snapshotTickMs: 0 });
  const ids: string[] = [];
  for (const content of texts) {
    const r = await engine.memories.create({ content, tags: ['old'] });
    assert.notEqual(r.status, 'skipped', JSON.stringify(r));
    if (r.status !== 'skipped') ids.push(r.memory.id);
  }
  return { engine, ids };
}

test('two old per-window stores and the old global store merge into the shared store without loss', async () => {
  const root = tmpDir('am-mig-');
  const ws = fakeClone(root, 'repo');
  const oldGlobal = path.join(root, 'vscode-global');
  const winA = path.join(root, 'vscode-ws-a');
  const winB = path.join(root, 'vscode-ws-b');
  const shared = 'Release builds are signed with the key in the HSM, never with a developer key.';
  const a = await oldWindow(winA, oldGlobal, ws, [
    shared,
    'The staging database is reset every Sunday at 02:00 UTC.',
    'Flaky test: payments retry spec, quarantined.',
  ]);
  const updated = await a.engine.memories.update(a.ids[1]!, {
    content: 'The staging database is reset every Sunday at 03:00 UTC (moved in May).',
  });
  assert.equal(updated.version, 2);
  a.engine.memories.delete(a.ids[2]!, 'fixed');
  const g = await a.engine.memories.create({ content: 'Always answer in British English.', scope: 'global' });
  assert.equal(g.status, 'created');
  const projectId = a.engine.projectId;
  await a.engine.close();
  const b = await oldWindow(winB, path.join(root, 'unused-global'), ws, [shared, 'Feature flags live in LaunchDarkly, project "widgets".']);
  await b.engine.close();

  const home = path.join(root, 'home');
  const events: EngineEvent[] = [];
  const first = await MemoryEngine.open({
    home,
    storageDir: winA,
    globalStorageDir: oldGlobal,
    workspaceRoot: ws,
    settings,
    snapshotTickMs: 0,
    onEvent: (e) => events.push(e),
  });
  const messages = [...first.startupWarnings].filter((w) => w.startsWith('Moved to the shared memory store'));
  assert.equal(messages.length, 1, `one message says what moved: ${first.startupWarnings.join(' | ')}`);
  assert.match(messages[0]!, /3 memories \(0 already present/);
  assert.match(messages[0]!, /1 memory \(0 already present/);
  await first.close();
  const second = await MemoryEngine.open({ home, storageDir: winB, workspaceRoot: ws, settings, snapshotTickMs: 0 });
  assert.match(second.startupWarnings.join(' '), /1 memory \(1 already present/);
  try {
    const list = second.memories.list({ limit: 100, includeDeleted: true, scope: 'project' });
    const contents = list.items.map((m) => m.preview ?? m.title);
    assert.equal(list.total, 4, `3 from window A (one deleted) + 1 new from window B: ${JSON.stringify(contents)}`);
    const kept = second.memories.get(a.ids[1]!);
    assert.ok(kept, 'ids are kept');
    assert.equal(kept.version, 2);
    assert.match(kept.content, /03:00 UTC/);
    const history = second.memories.history(a.ids[1]!);
    assert.deepEqual(history.map((h) => h.event).sort(), ['created', 'updated'], 'history moved with the memory');
    const deleted = second.memories.get(a.ids[2]!, true);
    assert.ok(deleted?.deletedAt, 'the tombstone moved too');
    assert.ok(second.memories.get(b.ids[1]!), "window B's own memory arrived");
    assert.equal(second.memories.get(b.ids[0]!), null, "the text saved in both windows is kept once (window A's copy)");
    assert.deepEqual(
      second.memories.history(a.ids[0]!).filter((h) => h.event === 'created').length,
      2,
      "the duplicate's history points at the kept memory",
    );
    const hits = await second.search.search({ query: 'LaunchDarkly feature flags' });
    assert.ok(
      hits.hits.some((h) => h.memory.id === b.ids[1]),
      'merged memories are searchable',
    );
    const globals = second.memories.list({ scope: 'global', limit: 10 });
    assert.equal(globals.total, 1);
    const folder = storeFolderName(projectId);
    assert.ok(fs.existsSync(path.join(winA, 'projects', `${folder}.migrated`)), 'old folder kept, renamed after the check');
    assert.ok(fs.existsSync(path.join(winB, 'projects', `${folder}.migrated`)));
    assert.ok(fs.existsSync(path.join(oldGlobal, 'global.migrated')));
    assert.ok(!fs.existsSync(path.join(winA, 'projects', folder)));
    assert.equal(second.diagnostics.stats().project.dir, storeDirsIn(home, projectId).project);
  } finally {
    await second.close();
  }
});
