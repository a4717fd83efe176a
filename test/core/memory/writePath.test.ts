/** The composed write path as the engine uses it: open, smart store, backfill kick, switch, scan, snapshot, close, reopen. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { WritePath } from '../../../src/core/memory/writePath';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { consolidationSettingsFrom } from '../../../src/core/consolidation/settings';
import { defaultConfig } from '../../../src/core/config';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';

test('WritePath: config-driven open, smart store, embedder switch, dedup scan, snapshot + close, reopen from the saved index', async () => {
  const dir = tmpDir('am-wp-');
  const config = defaultConfig();
  let store = await Store.open({ dir });
  let memory = new MemoryService(store, { projectId: 'github.com/acme/app' });
  const first = new HashEmbedder({ dimension: 128 });
  let wp = await WritePath.open({ store, memory, embedder: first, vector: config.vector, consolidation: consolidationSettingsFrom(config.memory), startBackfill: false });
  const a = await wp.smart.save({ content: 'Postgres connection pool size is 20 in production and 5 in staging.' });
  const b = await wp.smart.save({ content: 'The webview bundle is built separately with its own esbuild config.' });
  assert.equal(a.action, 'stored');
  assert.equal(b.action, 'stored');
  assert.equal(wp.vectors.size, 2);

  const second = new HashEmbedder({ dimension: 256 });
  const seen: number[] = [];
  const r = await wp.switchEmbedder(second, { onProgress: (p) => seen.push(p.done) });
  assert.equal(r.status, 'switched');
  assert.equal(wp.space.embedder, second);
  assert.equal(wp.vectors.space, second.space);
  assert.equal(wp.vectors.size, 2);
  assert.equal(seen.at(-1), 2);
  const scan = await wp.dedupScan();
  assert.equal(scan.completed, true);
  assert.equal(scan.scanned, 2);
  await wp.snapshot();
  await wp.close();
  await store.close();

  store = await Store.open({ dir });
  memory = new MemoryService(store, { projectId: 'github.com/acme/app' });
  wp = await WritePath.open({ store, memory, embedder: second, vector: config.vector, startBackfill: false });
  try {
    assert.equal(wp.vectors.stats().openedFrom, 'file');
    assert.equal(wp.vectors.state, 'ready');
    const q = (await second.embed([embeddingTextForInput({ content: 'Postgres connection pool size is 20 in production and 5 in staging.' })], 'document'))[0]!;
    assert.equal(wp.vectors.search(q, 1)[0]!.rid, a.memory!.rid);
  } finally {
    await wp.close();
    await store.close();
  }
});
