// The tree's tag groups through the worker: counts per tag over both stores, the untagged
// count, and the untagged memories paged across the project and global stores.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { engineDirs, startClient } from '../../harness';

test('memory.tagCounts and memory.listUntagged', async () => {
  const c = startClient({ ...engineDirs() });
  await c.start();
  try {
    await c.request('memory.create', { content: 'The payments API rate limit is 100 requests per second.', tags: ['api', 'payments'] });
    await c.request('memory.create', { content: 'Grafana dashboards are provisioned from the ops repository.', tags: ['ops'] });
    await c.request('memory.create', { content: 'Cut release candidates from main on Mondays.', scope: 'global', tags: ['ops'] });
    await c.request('memory.create', { content: 'The mobile app is built with Expo and EAS.' });
    await c.request('memory.create', { content: 'Prefer small pull requests with one concern each.', scope: 'global' });
    assert.deepEqual(await c.request('memory.tagCounts', {}), { tags: { api: 1, payments: 1, ops: 2 }, untagged: 2 });
    assert.deepEqual(await c.request('memory.tagCounts', { scope: 'global' }), { tags: { ops: 1 }, untagged: 1 });
    const all = await c.request('memory.listUntagged', {});
    assert.equal(all.total, 2);
    assert.deepEqual(
      all.items.map((m) => m.scope),
      ['project', 'global'],
      'project store first, then global',
    );
    const second = await c.request('memory.listUntagged', { offset: 1, limit: 1 });
    assert.deepEqual(
      second.items.map((m) => m.preview),
      ['Prefer small pull requests with one concern each.'],
    );
    await assert.rejects(c.request('memory.listUntagged', { limit: 0 }), /limit: must be a whole number/);
  } finally {
    await c.shutdown(4000);
  }
});
