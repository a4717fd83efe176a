// The near-duplicate stage searches a few bigram phrases instead of every word. These tests
// check it against brute force: it finds a near-duplicate whenever one exists, and only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/core/store/store';
import { MemoryService } from '../../src/core/memory/memoryService';
import { candidateBigrams, findNearDuplicate } from '../../src/core/memory/nearDuplicate';
import { isNearDuplicate } from '../../src/core/text/overlap';
import { tokenizeWords } from '../../src/core/text/tokenize';
import { syntheticMemories } from '../../bench/corpus';
import { tmpDir } from '../helpers/tmp';

test('candidate bigrams: at most ⌊0.4·B⌋ + 1 distinct two-word phrases, content words first; none for short texts', () => {
  assert.equal(candidateBigrams('hi there'), null);
  const text = 'the cache of the build server is flushed every night by the cron job';
  const b = candidateBigrams(text)!;
  const words = tokenizeWords(text);
  const distinct = new Set(words.slice(1).map((w, i) => `${words[i]} ${w}`)).size;
  assert.equal(b.length, Math.floor(distinct * 0.4) + 1);
  assert.equal(new Set(b).size, b.length);
  for (const p of b) assert.match(p, /^"[a-z]+ [a-z]+"$/);
  assert.ok(!b.slice(0, 3).some((p) => /"(the|of|is|by) |\s(the|of|is|by)"/.test(p)), `content bigrams first: ${b.join(' ')}`);
  // Hostile text stays inside quoted phrases.
  for (const p of candidateBigrams('a "quoted" OR NOT (x*) - y: NEAR/3 z^ done here')!) assert.match(p, /^"[^"]+"$/);
});

test('findNearDuplicate agrees with brute force over a corpus and its edits', async () => {
  const store = await Store.open({ dir: tmpDir() });
  const svc = new MemoryService(store, { projectId: 'p' });
  const corpus = [...syntheticMemories(400, 3)].map((m) => m.content.replace(/ #\d+$/, ''));
  svc.createMany(corpus.map((content) => ({ content, allowNearDuplicate: true })));
  const stored = store.all<{ id: string; content: string }>('SELECT id, content FROM memories');

  // Edits of stored texts: drop a word, drop two, swap in a new word, append words, or an unrelated text.
  const edits: string[] = [];
  for (let i = 0; i < 120; i++) {
    const words = corpus[(i * 7) % corpus.length]!.split(' ');
    const k = i % 5;
    if (k === 0) edits.push(words.filter((_, j) => j !== (i % words.length)).join(' '));
    else if (k === 1) edits.push(words.filter((_, j) => j % 9 !== 4).join(' '));
    else if (k === 2) edits.push(words.map((w, j) => (j === 3 ? 'zzqxv' : w)).join(' '));
    else if (k === 3) edits.push(`${words.join(' ')} and also the staging cluster`);
    else edits.push([...syntheticMemories(1, 1000 + i)][0]!.content);
  }
  let positives = 0;
  for (const text of edits) {
    const truth = stored.some((m) => isNearDuplicate(text, m.content, 0.8));
    const found = findNearDuplicate(store, 'p', text, 0.8);
    if (found) {
      const hit = stored.find((m) => m.id === found.id)!;
      assert.ok(isNearDuplicate(text, hit.content, 0.8), 'what it returns is a near-duplicate');
    }
    assert.equal(Boolean(found), truth, `found ⇔ a near-duplicate exists, for: ${text.slice(0, 80)}`);
    if (truth) positives++;
  }
  assert.ok(positives >= 40 && positives < edits.length, `the edits mix both outcomes (${positives} positives)`);
  await store.close();
});
