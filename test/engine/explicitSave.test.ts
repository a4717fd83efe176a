// A person's explicit save through the engine (memory.create with the idempotency handling the
// socket server uses): a close duplicate is stored as its own memory and the answer names the
// similar memory with its suggestion; an agent's save of the same text is merged and says so.
// A retried create is answered as it was the first time, for both.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { MemoryEngine } from '../../src/engine/worker/engine';
import { idempotentCreate } from '../../src/engine/worker/owner/idempotency';
import { IDEMPOTENCY_KEY, asRetry, type CreateMemoryResult } from '../../src/engine/protocol';
import { describeCreate } from '../../src/present/createResultText';
import { engineDirs } from './harness';
import { BACKUP, BACKUP_14, BACKUP_30 } from '../fixtures/closeDuplicates';

function created(r: CreateMemoryResult) {
  assert.equal(r.status, 'created', JSON.stringify(r));
  assert.ok(r.status === 'created');
  return r.memory;
}

test('explicit save of a close duplicate: stored, the answer names the similar memory; an agent save merges and says so', async () => {
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  try {
    const first = created(await idempotentCreate(engine, { content: BACKUP, origin: 'person' }));
    const input = { content: BACKUP_14, origin: 'person' as const, metadata: { [IDEMPOTENCY_KEY]: 'key-explicit-1' } };
    const r = await idempotentCreate(engine, input);
    const second = created(r);
    assert.notEqual(second.id, first.id);
    assert.equal(r.action, 'stored');
    assert.equal(r.similar?.length, 1, JSON.stringify(r));
    const near = r.similar![0]!;
    assert.equal(near.id, first.id);
    assert.equal(near.label, first.title || BACKUP, 'named by its title, or its text');
    assert.ok(near.similarity >= 0.92, `similarity ${near.similarity} is in the auto-merge band`);
    assert.deepEqual(r.suggestions, [near.suggestionId]);
    assert.equal(engine.memories.get(first.id)!.version, 1, 'the older memory is untouched');

    const said = describeCreate(r);
    assert.match(said, /^Memory saved: The nightly backup job runs at 02:00 UTC and keeps 14/);
    assert.match(said, /; similar to “The nightly backup job runs at 02:00 UTC and keeps the[^”]*” \(96%\)/);
    assert.match(said, /kept as its own memory/);
    assert.match(describeCreate(r, { ids: true }), new RegExp(`\\(id ${second.id}\\).*similar to .*\\(id ${first.id}, 96%\\)`));
    const noTitles = describeCreate(r, { ids: true, titles: false });
    assert.ok(!noTitles.includes('nightly'), `no memory text: ${noTitles}`);
    assert.match(noTitles, new RegExp(`memory ${first.id} \\(96%\\)`));

    // Sent again after its engine went away: the same answer, nothing stored twice.
    const again = await idempotentCreate(engine, asRetry(input));
    assert.equal(created(again).id, second.id);
    assert.deepEqual(again.similar, r.similar);
    assert.equal(describeCreate(again), said);
    const unmarked = await idempotentCreate(engine, input); // sent again without the retry mark: the content-hash gate
    assert.equal(created(unmarked).id, second.id);
    assert.equal(describeCreate(unmarked), said);
    assert.equal(engine.memories.list({ scope: 'project' }).total, 2);

    // An agent's save (MCP store_memory) of a close duplicate is merged, and the answer says into what.
    const merged = await idempotentCreate(engine, {
      content: BACKUP_30,
      origin: 'agent',
    });
    assert.equal(merged.action, 'merged', JSON.stringify(merged));
    assert.ok(merged.status !== 'skipped');
    assert.match(
      describeCreate(merged),
      /^Merged into “The nightly backup job runs at 02:00 UTC[^”]*” \(9\d% similar\), which now holds this text too\.$/,
    );
    assert.match(
      describeCreate(merged, { ids: true, titles: false }),
      new RegExp(`^Merged into memory ${merged.memory.id} \\(9\\d% similar\\)`),
    );
    assert.equal(engine.memories.list({ scope: 'project' }).total, 2, 'merged, not added');
  } finally {
    await engine.close();
  }
});

test('a text whose words are nearly all in another memory is not saved, and the answer names that memory, not its id', async () => {
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: { 'embedding.provider': 'hash' } });
  try {
    const first = created(
      await idempotentCreate(engine, { content: 'We use pnpm, never npm, for installing packages in this repository.', origin: 'person' }),
    );
    const r = await idempotentCreate(engine, {
      content: 'We use pnpm and never npm for installing packages in this repository.',
      origin: 'person',
    });
    assert.equal(r.status, 'skipped', JSON.stringify(r));
    assert.ok(r.status === 'skipped');
    assert.equal(r.reason, 'redundant');
    assert.equal(r.existingId, first.id);
    assert.doesNotMatch(r.detail, new RegExp(first.id), 'the detail names the memory by its words');
    const said = describeCreate(r);
    assert.equal(said, 'Not saved: most of its words are already in “We use pnpm, never npm, for installing packages in this repository”.');
    assert.match(describeCreate(r, { ids: true }), new RegExp(`already in “We use pnpm[^”]*” \\(id ${first.id}\\)\\.$`));
    assert.equal(describeCreate(r, { titles: false }), `Not saved: most of its words are already in memory ${first.id}.`);
  } finally {
    await engine.close();
  }
});
