// The history timeline's words (src/extension/history/historyTimeline.ts): newest first, what happened,
// who and when in words, the current version marked; versions come from the real engine.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryEngine } from '../../../src/engine/worker/engine';
import { eventText, timelineEntries } from '../../../src/extension/history/historyTimeline';
import { engineDirs } from '../../engine/harness';

test('a memory edited, restored and edited by an agent reads as a timeline', async () => {
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  try {
    const r = await engine.memories.create({ content: 'Nightly builds publish to the internal registry at 02:00.' });
    if (r.status !== 'created') throw new Error('not created');
    const id = r.memory.id;
    await engine.memories.update(id, { content: 'Nightly builds publish to the internal registry at 03:00.', tags: ['ci'] });
    await engine.versions.restoreVersion(id, 1);
    const last = await engine.memories.update(id, { title: 'Nightly builds', who: 'claude-code' });
    const versions = engine.versions.versions(id);
    const now = new Date(Date.parse(last.updatedAt) + 2 * 3_600_000);
    const entries = timelineEntries(versions, last.version, now);
    assert.deepEqual(
      entries.map((e) => e.label),
      ['Version 4 · Edited title', 'Version 3 · Restored version 1', 'Version 2 · Edited content and tags', 'Version 1 · Created'],
    );
    assert.equal(entries[0]!.description, 'current · by claude-code · 2 hours ago');
    assert.equal(entries[1]!.description, 'by you · 2 hours ago');
    assert.ok(entries[0]!.current && !entries[1]!.current);
    assert.equal(entries[3]!.detail, 'Nightly builds publish to the internal registry at 02:00.');
    assert.equal(eventText({ ...versions[0]!, event: 'merged_into', reason: null }), 'Merged into another memory');
    assert.equal(eventText({ ...versions[0]!, event: 'expired', reason: null }), 'Expired');
  } finally {
    await engine.close();
  }
});
