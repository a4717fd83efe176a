// The near-duplicate stage searches a few bigram phrases instead of every word. These tests
// check it against brute force: it finds a near-duplicate whenever one exists, and only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../../src/core/store/store';
import { MemoryService } from '../../../src/core/memory/memoryService';
import { candidateWords, documentFrequencies, findNearDuplicate } from '../../../src/core/memory/nearDuplicate';
import { isNearDuplicate } from '../../../src/core/text/overlap';
import { tokenizeWords } from '../../../src/core/text/tokenize';
import { syntheticMemories } from '../../../bench/corpus';
import { agentMemories } from '../../../bench/agentCorpus';
import { tmpDir } from '../../helpers/tmp';

test('candidate words: the m − z + 2 rarest indexed words of which two must be held, or null when too many words are in no document', () => {
  // 10 distinct words at threshold 0.8: a near-duplicate may lack at most 2 of them.
  const text = 'alpha beta gamma delta epsilon zeta eta theta iota kappa';
  const df = new Map(text.split(' ').map((w, i) => [w, (i + 1) * 10]));
  const freq = (ws: string[]) => new Map(ws.map((w) => [w, df.get(w) ?? 0]));
  assert.deepEqual(candidateWords(text, 0.8, freq), { words: ['alpha', 'beta', 'gamma', 'delta'], minHits: 2 });
  df.set('alpha', 0); // in no document: one fewer indexed word may be missing
  assert.deepEqual(candidateWords(text, 0.8, freq), { words: ['beta', 'gamma', 'delta'], minHits: 2 });
  df.set('beta', 0);
  assert.deepEqual(candidateWords(text, 0.8, freq), { words: ['gamma', 'delta'], minHits: 2 });
  df.set('gamma', 0); // three words nowhere: nothing can hold 80 % of them
  assert.equal(candidateWords(text, 0.8, freq), null);
  assert.equal(candidateWords('   ', 0.8, freq), null);
  // Too few indexed words for two hits: any one of the m − z + 1 rarest.
  assert.deepEqual(
    candidateWords('solo', 0.8, () => new Map([['solo', 3]])),
    { words: ['solo'], minHits: 1 },
  );
  // Very long texts: one hit of at most 32 words, rarest first.
  const long = Array.from(
    { length: 200 },
    (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
  ).join(' ');
  const c = candidateWords(long, 0.8, (ws: string[]) => new Map(ws.map((w: string, i: number) => [w, 1000 - i])))!;
  assert.equal(c.minHits, 1);
  assert.equal(c.words.length, 32);
  assert.equal(c.words[0], long.split(' ')[199]);
});

test('document frequencies come from the index in one query and match a count over the rows', async () => {
  const store = await Store.open({ dir: tmpDir() });
  const svc = new MemoryService(store, { projectId: 'p' });
  const texts = [...syntheticMemories(200, 5)].map((m) => m.content.replace(/ #\d+$/, ''));
  svc.createMany(texts.map((content) => ({ content, allowNearDuplicate: true })));
  const words = [...new Set(texts.slice(0, 5).flatMap((t) => tokenizeWords(t)))].slice(0, 40);
  const df = documentFrequencies(store, [...words, 'wordthatisnowhere']);
  for (const w of words) {
    const expected = store
      .all<{ content: string; title: string; tags: string }>('SELECT content, title, tags FROM memories')
      .reduce((n, r) => n + Number(tokenizeWords(r.content).includes(w)), 0);
    assert.ok(df.get(w)! >= expected && df.get(w)! >= 1, `${w}: ${df.get(w)} vs ${expected} in content`);
  }
  assert.equal(df.get('wordthatisnowhere'), 0);
  await store.close();
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
    if (k === 0) edits.push(words.filter((_, j) => j !== i % words.length).join(' '));
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

test('stop-words are not looked up, and near-duplicates are still found when one is in no document', async () => {
  // Stop-words count as held by every document (their doclists are the longest to read); this
  // checks the check still agrees with brute force on English text, with stop-words no memory has.
  const store = await Store.open({ dir: tmpDir() });
  const svc = new MemoryService(store, { projectId: 'p' });
  const corpus = agentMemories(300, 23).map((m) => m.content);
  svc.createMany(corpus.map((content) => ({ content, allowNearDuplicate: true })));
  const stored = store.all<{ id: string; content: string }>('SELECT id, content FROM memories');
  assert.ok(!stored.some((m) => /\b(whom|ourselves|hers)\b/.test(m.content)), 'the added stop-words are in no memory');
  const edits: string[] = [];
  for (let i = 0; i < 90; i++) {
    const words = corpus[(i * 11) % corpus.length]!.split(' ');
    const k = i % 3;
    if (k === 0) edits.push(words.map((w, j) => (j === 2 ? 'whom' : w)).join(' '));
    else if (k === 1) edits.push(`${words.join(' ')} whom ourselves hers`);
    else edits.push(`whom ${words.filter((_, j) => j % 7 !== 3).join(' ')}`);
  }
  let positives = 0;
  for (const text of edits) {
    const truth = stored.some((m) => isNearDuplicate(text, m.content, 0.8));
    const found = findNearDuplicate(store, 'p', text, 0.8);
    if (found) assert.ok(isNearDuplicate(text, stored.find((m) => m.id === found.id)!.content, 0.8));
    assert.equal(Boolean(found), truth, `found ⇔ a near-duplicate exists, for: ${text.slice(0, 80)}`);
    if (truth) positives++;
  }
  assert.ok(positives >= 20 && positives < edits.length, `the edits mix both outcomes (${positives} positives)`);
  await store.close();
});
