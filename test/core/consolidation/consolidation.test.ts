/**
 * Smart store (docs/consolidation.md): auto-merge at ≥ auto_merge_threshold with each strategy, suggestions in
 * the 0.75–0.92 band, accept / reject, project isolation, embedding failure, dedup scanner.
 * Similarities are measured with the real (hash) embedder in each test and the band each pair
 * falls in is asserted first, so every test checks what it claims to.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpDir } from '../../helpers/tmp';
import { openWritePath, sampleTexts } from '../../fixtures/writePath';
import { SmartStore } from '../../../src/core/consolidation/smartStore';
import { mergeContent, splitSentences } from '../../../src/core/consolidation/merge';
import { checkSettings, DEFAULT_CONSOLIDATION, consolidationSettingsFrom } from '../../../src/core/consolidation/settings';
import { consolidationLog, listSuggestions, getSuggestion } from '../../../src/core/consolidation/records';
import { scanForDuplicates, runDedupScan } from '../../../src/core/consolidation/scanner';
import { embeddingTextForInput } from '../../../src/core/memory/embedding';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { ActiveSpace } from '../../../src/core/vectorstore/activeSpace';
import { cosine } from '../../../src/core/embed/vector';
import type { Embedder } from '../../../src/core/embed/types';
import type { MergeStrategy } from '../../../src/core/config/types';

const BASE = 'The build uses esbuild to bundle the extension into dist/extension.js for production.';
const VERY_CLOSE = 'The build uses esbuild to bundle the extension into dist/extension.js for production releases.';
const POOL = 'Postgres connection pool size is 20 in production and 5 in staging.';
const POOL_MORE = 'Postgres connection pool size is 20 in production and 5 in staging. Timeouts are 30 seconds.';
const UNRELATED = 'Dark mode colours come from the theme tokens in webview/theme.css.';

async function sim(e: Embedder, a: string, b: string): Promise<number> {
  const [x, y] = await e.embed([embeddingTextForInput({ content: a }), embeddingTextForInput({ content: b })], 'document');
  return cosine(x!, y!);
}

test('merge strategies are deterministic and keep what they promise', () => {
  const t = { title: 'Pool', content: 'Pool size is 20. Timeouts are 30 s.' };
  const s = { title: '', content: 'Timeouts are 30 s! Retries use backoff.' };
  assert.deepEqual(mergeContent('latest_wins', t, s), { title: 'Pool', content: s.content });
  assert.deepEqual(mergeContent('latest_wins', t, { title: 'New', content: 'x y z' }), { title: 'New', content: 'x y z' });
  assert.deepEqual(
    mergeContent('append', t, s),
    { title: 'Pool', content: 'Pool size is 20. Timeouts are 30 s. Retries use backoff.' },
    'no sentence twice',
  );
  assert.deepEqual(
    mergeContent('append', t, { title: '', content: 'timeouts are 30 s' }),
    { title: 'Pool', content: t.content },
    'already contained',
  );
  const smart = mergeContent('smart_merge', t, s);
  assert.equal(smart.content, 'Pool size is 20. Timeouts are 30 s. Retries use backoff.');
  assert.deepEqual(mergeContent('smart_merge', t, s), smart, 'deterministic');
  assert.deepEqual(splitSentences('One. Two!\nThree? four'), ['One.', 'Two!', 'Three?', 'four']);
  assert.throws(() => mergeContent('llm' as MergeStrategy, t, s), /unknown merge strategy/);
});

test('consolidation settings: config mapping and clear errors', () => {
  const s = consolidationSettingsFrom({ similarity_threshold: 0.7, auto_merge_threshold: 0.9, merge_strategy: 'append' });
  assert.equal(s.similarityThreshold, 0.7);
  assert.equal(s.autoMergeThreshold, 0.9);
  assert.equal(s.mergeStrategy, 'append');
  assert.throws(() => checkSettings({ ...DEFAULT_CONSOLIDATION, autoMergeThreshold: 0.5 }), /at least memory.similarity_threshold/);
  assert.throws(() => checkSettings({ ...DEFAULT_CONSOLIDATION, similarityThreshold: 1.5 }), /from 0 to 1/);
  assert.throws(
    () => checkSettings({ ...DEFAULT_CONSOLIDATION, mergeStrategy: 'x' as MergeStrategy }),
    /latest_wins, append or smart_merge/,
  );
});

for (const strategy of ['latest_wins', 'append', 'smart_merge'] as const) {
  test(`auto-merge at ≥ 0.92 with ${strategy}: version + 1, merged_from, replaced_by, SUPERSEDES, log, new vector`, async () => {
    const w = await openWritePath({ dir: tmpDir('am-cons-') });
    try {
      const similarity = await sim(w.embedder, BASE, VERY_CLOSE);
      assert.ok(similarity >= 0.92, `precondition: similarity ${similarity} ≥ 0.92`);
      const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space, settings: { mergeStrategy: strategy } });
      const first = await smart.save({ content: BASE, tags: ['build'], importance: 0.4 });
      assert.equal(first.action, 'stored');
      const target = first.memory!;
      // The near-duplicate rule (≥ 80% shared words) would skip this text; the pipeline's writes bypass it.
      // An agent's save: automatic writes merge (a person's explicit save would not, explicitSave.test.ts).
      const r = await smart.save({
        content: VERY_CLOSE,
        tags: ['release'],
        importance: 0.6,
        allowNearDuplicate: true,
        performedBy: 'claude-code',
        origin: 'agent',
      });
      assert.equal(r.action, 'merged');
      assert.equal(r.embedding, 'ready');
      assert.deepEqual(r.suggestions, []);
      const survivor = w.svc.get(target.id)!;
      assert.deepEqual(r.memory, survivor);
      assert.equal(survivor.version, 2);
      assert.deepEqual(survivor.tags, ['build', 'release']);
      assert.equal(survivor.importance, 0.6);
      const expected = { latest_wins: VERY_CLOSE, append: `${BASE} ${VERY_CLOSE}`, smart_merge: VERY_CLOSE }[strategy]; // smart_merge drops BASE: VERY_CLOSE says it
      assert.equal(survivor.content, expected);
      assert.equal(r.merge!.targetId, target.id);
      assert.equal(r.merge!.strategy, strategy);
      assert.ok(Math.abs(r.merge!.similarity - similarity) < 1e-3);
      const absorbed = w.svc.get(r.merge!.absorbedId, { includeDeleted: true })!;
      assert.equal(absorbed.content, VERY_CLOSE, 'the incoming text is kept as a tombstone');
      assert.equal(absorbed.replacedBy, target.id);
      assert.equal(absorbed.retentionStatus, 'merged');
      assert.ok(absorbed.deletedAt);
      assert.deepEqual(survivor.mergedFrom, [absorbed.id]);
      const rel = w.store.all("SELECT from_memory_id AS f, to_memory_id AS t FROM memory_relationships WHERE relationship = 'SUPERSEDES'");
      assert.deepEqual(rel, [{ f: target.id, t: absorbed.id }]);
      const log = consolidationLog(w.store, { targetId: target.id });
      assert.equal(log.length, 1);
      assert.deepEqual(log[0]!.sourceIds, [absorbed.id]);
      assert.equal(log[0]!.mergeStrategy, strategy);
      assert.equal(log[0]!.contentBefore, BASE);
      assert.equal(log[0]!.contentAfter, survivor.content);
      assert.equal(log[0]!.performedBy, 'claude-code');
      assert.ok(Math.abs(log[0]!.similarityScore! - similarity) < 1e-3);
      // The index holds the survivor's new vector and not the absorbed one.
      const q = (await w.embedder.embed([embeddingTextForInput(survivor)], 'document'))[0]!;
      const hits = w.vectors.search(q, 5);
      assert.equal(hits[0]!.rid, survivor.rid);
      assert.ok(hits[0]!.similarity > 0.999);
      assert.ok(!hits.some((h) => h.rid === absorbed.rid));
      assert.equal(w.vectors.size, 1);
      assert.equal(w.svc.history(target.id).at(-1)!.event, 'merged');
    } finally {
      await w.close();
    }
  });
}

test('0.75–0.92: stored normally AND a pending suggestion; below 0.75: stored, no suggestion', async () => {
  const w = await openWritePath({ dir: tmpDir('am-cons-') });
  try {
    const band = await sim(w.embedder, POOL, POOL_MORE);
    assert.ok(band >= 0.75 && band < 0.92, `precondition: ${band} in [0.75, 0.92)`);
    const low = await sim(w.embedder, POOL, UNRELATED);
    assert.ok(low < 0.75, `precondition: ${low} < 0.75`);
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const a = await smart.save({ content: POOL });
    const b = await smart.save({ content: POOL_MORE });
    assert.equal(b.action, 'stored');
    assert.equal(b.embedding, 'ready');
    assert.equal(b.suggestions.length, 1);
    const s = b.suggestions[0]!;
    assert.equal(s.memoryAId, a.memory!.id);
    assert.equal(s.memoryBId, b.memory!.id);
    assert.equal(s.status, 'pending');
    assert.ok(Math.abs(s.similarity - band) < 1e-3);
    assert.deepEqual(listSuggestions(w.store, { status: 'pending' }), [s]);
    const c = await smart.save({ content: UNRELATED });
    assert.equal(c.action, 'stored');
    assert.deepEqual(c.suggestions, []);
    assert.equal(w.svc.count(), 3);
    // The same pair is never suggested twice.
    const d = await smart.save({ content: POOL_MORE });
    assert.equal(d.action, 'duplicate');
    assert.equal(listSuggestions(w.store).length, 1);
    // Thresholds come from settings: at 0.8 the same band merges.
    const w2 = await openWritePath({ dir: tmpDir('am-cons-') });
    try {
      const lower = new SmartStore({
        store: w2.store,
        memory: w2.svc,
        space: w2.space,
        settings: { autoMergeThreshold: Math.min(0.8, band), similarityThreshold: 0.5 },
      });
      await lower.save({ content: POOL });
      const m = await lower.save({ content: POOL_MORE, origin: 'capture' });
      assert.equal(m.action, 'merged');
      assert.equal(m.memory!.content, POOL_MORE, 'smart_merge: the extra sentence is added once');
    } finally {
      await w2.close();
    }
  } finally {
    await w.close();
  }
});

test('accept merges the newer memory into the older with the chosen strategy; reject dismisses', async () => {
  const w = await openWritePath({ dir: tmpDir('am-cons-') });
  try {
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const a = await smart.save({ content: POOL, tags: ['db'] });
    const b = await smart.save({ content: POOL_MORE, tags: ['timeouts'] });
    assert.equal(b.suggestions.length, 1, 'precondition: a suggestion');
    const sid = b.suggestions[0]!.id;

    const rejected = smart.reject(sid, { by: 'alice' });
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.resolvedBy, 'alice');
    assert.ok(rejected.resolvedAt);
    assert.equal(w.svc.get(a.memory!.id)!.version, 1, 'reject changes no memory');
    assert.equal(w.svc.get(b.memory!.id)!.version, 1);
    await assert.rejects(smart.accept(sid), /already rejected/);

    // A second pending suggestion pair: accept with append.
    const pending = w.store.transaction((tx) => {
      tx.run("UPDATE consolidation_suggestions SET status = 'pending', resolved_at = NULL, resolved_by = NULL WHERE id = ?", [sid]);
      return getSuggestion(w.store, sid)!;
    });
    assert.equal(pending.status, 'pending');
    const acc = await smart.accept(sid, { by: 'bob', strategy: 'append' });
    assert.equal(acc.memory.id, a.memory!.id);
    assert.equal(acc.memory.content, POOL_MORE, 'append adds only the sentence A does not say');
    assert.equal(acc.memory.version, 2);
    assert.deepEqual(acc.memory.tags, ['db', 'timeouts']);
    assert.deepEqual(acc.memory.mergedFrom, [b.memory!.id]);
    assert.equal(acc.absorbed.replacedBy, a.memory!.id);
    assert.equal(w.svc.get(b.memory!.id), undefined, 'absorbed memory is no longer live');
    assert.equal(acc.embedding, 'ready');
    assert.equal(getSuggestion(w.store, sid)!.status, 'accepted');
    assert.equal(getSuggestion(w.store, sid)!.resolvedBy, 'bob');
    assert.equal(acc.log.mergeStrategy, 'append');
    assert.equal(acc.log.contentBefore, POOL);
    assert.equal(
      w.store.get<{ n: number }>(
        "SELECT count(*) AS n FROM memory_relationships WHERE relationship = 'SUPERSEDES' AND from_memory_id = ? AND to_memory_id = ?",
        [a.memory!.id, b.memory!.id],
      )!.n,
      1,
    );
    const q = (await w.embedder.embed([embeddingTextForInput(acc.memory)], 'document'))[0]!;
    assert.equal(w.vectors.search(q, 1)[0]!.rid, acc.memory.rid);
    assert.equal(w.vectors.size, 1);
    await assert.rejects(smart.accept(sid), /already accepted/);
    await assert.rejects(smart.accept('no-such-id'), /No consolidation suggestion/);
  } finally {
    await w.close();
  }
});

test('smart store never merges across projects, and stores as pending without consolidation when embedding fails', async () => {
  const w = await openWritePath({ dir: tmpDir('am-cons-') });
  try {
    const other = new MemoryService(w.store, { projectId: 'github.com/acme/other' });
    const otherSmart = new SmartStore({ store: w.store, memory: other, space: w.space });
    await otherSmart.save({ content: BASE });
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const r = await smart.save({ content: VERY_CLOSE, allowNearDuplicate: true });
    assert.equal(r.action, 'stored');
    assert.deepEqual(r.suggestions, []);

    const broken = new HashEmbedder({ dimension: 512 });
    broken.dispose();
    const down = new SmartStore({ store: w.store, memory: w.svc, space: new ActiveSpace(broken, w.vectors) });
    // Text never embedded before (a stored vector of the same text would be reused without the embedder).
    const p = await down.save({ content: 'Release notes are generated from conventional commit messages.' });
    assert.equal(p.action, 'stored');
    assert.equal(p.embedding, 'pending');
    assert.match(p.embeddingError ?? '', /disposed/);
    assert.equal(p.memory!.embeddingStatus, 'pending');
    const skipped = await smart.save({ content: 'thanks, that is all for now' });
    assert.equal(skipped.action, 'skipped');
    assert.equal(skipped.embedding, 'none');
  } finally {
    await w.close();
  }
});

test('dedup scanner: budgeted passes find exactly the same-project pairs above the threshold, once', async () => {
  const w = await openWritePath({ dir: tmpDir('am-cons-') });
  try {
    const texts = [BASE, VERY_CLOSE, POOL, POOL_MORE, UNRELATED, ...sampleTexts(12, 99)];
    for (const t of texts) await w.ingest.create({ content: t, allowNearDuplicate: true });
    const rows = w.store.all<{ id: string; title: string; content: string }>('SELECT id, title, content FROM memories ORDER BY rid');
    const vecs = await w.embedder.embed(
      rows.map((r) => embeddingTextForInput({ title: r.title, content: r.content })),
      'document',
    );
    const expected = new Set<string>();
    for (let i = 0; i < rows.length; i++)
      for (let j = i + 1; j < rows.length; j++) {
        if (cosine(vecs[i]!, vecs[j]!) >= 0.75) expected.add(`${rows[i]!.id}|${rows[j]!.id}`);
      }
    assert.ok(expected.size >= 2, `precondition: at least two similar pairs (${expected.size})`);
    let cursor = 0;
    const found = new Set<string>();
    let calls = 0;
    for (;;) {
      const r = scanForDuplicates(w.store, w.vectors, { budget: 4, cursor, k: 8 });
      calls++;
      assert.ok(r.scanned <= 4);
      for (const s of r.created) found.add(`${s.memoryAId}|${s.memoryBId}`);
      if (r.done) break;
      cursor = r.nextCursor;
    }
    assert.ok(calls >= 5, 'work is split by the budget');
    assert.deepEqual([...found].sort(), [...expected].sort());
    const again = await runDedupScan(w.store, w.vectors, { budget: 4, k: 8 });
    assert.equal(again.completed, true);
    assert.equal(again.scanned, rows.length);
    assert.deepEqual(again.created, [], 'no pair is suggested twice');
  } finally {
    await w.close();
  }
});

test('neighbours of the own project are found even when another project crowds the neighbourhood', async () => {
  const w = await openWritePath({ dir: tmpDir('am-cons-') });
  try {
    const other = new MemoryService(w.store, { projectId: 'github.com/acme/other' });
    const smartOther = new SmartStore({
      store: w.store,
      memory: other,
      space: w.space,
      settings: { similarityThreshold: 0.99, autoMergeThreshold: 0.999 },
    });
    const crowd = Array.from({ length: 30 }, (_, i) => `${POOL_MORE.slice(0, -1)} and retry ${i} times.`);
    for (const t of crowd) assert.equal((await smartOther.save({ content: t, allowNearDuplicate: true })).action, 'stored');
    const smart = new SmartStore({ store: w.store, memory: w.svc, space: w.space });
    const mine = await smart.save({ content: POOL });
    // Precondition: all 30 of the other project are nearer to the new text than our memory is.
    const q = (await w.embedder.embed([embeddingTextForInput({ content: POOL_MORE })], 'document'))[0]!;
    const ranked = w.vectors.search(q, 31);
    assert.equal(ranked.at(-1)!.rid, mine.memory!.rid, 'our memory ranks last among 31');
    const r = await smart.save({ content: POOL_MORE });
    assert.equal(r.action, 'stored');
    assert.equal(r.suggestions.length, 1);
    assert.equal(r.suggestions[0]!.memoryAId, mine.memory!.id);
    const scan = scanForDuplicates(w.store, w.vectors, { projectId: w.svc.projectId });
    assert.deepEqual(scan.created, [], 'the pair is already suggested; nothing across projects');
  } finally {
    await w.close();
  }
});
