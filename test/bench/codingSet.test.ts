// The coding-memory benchmark set (bench/coding/dataset.ts) is what it says it is: 40 memories,
// 100 off-topic questions, 40 paraphrases that share no stemmed content word with their answer
// (checked with the store's own porter tokenizer), 40 direct questions that do share one.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Store } from '../../src/core/store/store';
import { STOP_WORDS } from '../../src/core/text/stopwords';
import { DIRECT, MEMORIES, OFF_TOPIC, PARAPHRASES } from '../../bench/coding/dataset';
import { tmpDir } from '../helpers/tmp';

describe('coding-memory benchmark set', () => {
  let store: Store;
  before(async () => {
    store = await Store.open({ dir: tmpDir('am-coding-set-') });
  });
  after(async () => {
    await store.close({ snapshot: false });
  });

  /** Porter stems of the words of `text` that are not stop-words, as the keyword leg indexes them. */
  function stems(text: string): Set<string> {
    const table = store.tokenizerTable('porter');
    const out = new Set<string>();
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      if (STOP_WORDS.has(w)) continue;
      const t = store.get<{ t: string | null }>(`SELECT group_concat(token, ' ') AS t FROM ${table} WHERE input = ?`, [w])?.t;
      if (t) for (const s of t.split(' ')) out.add(s);
    }
    return out;
  }

  test('sizes and keys: 40 memories, 100 distinct off-topic questions, 40 paraphrases and 40 direct ones, one per memory', () => {
    assert.equal(MEMORIES.length, 40);
    assert.equal(new Set(MEMORIES.map((m) => m.key)).size, 40);
    assert.equal(new Set(MEMORIES.map((m) => m.content)).size, 40);
    assert.equal(OFF_TOPIC.length, 100);
    assert.equal(new Set(OFF_TOPIC).size, 100);
    const keys = new Set(MEMORIES.map((m) => m.key));
    for (const set of [PARAPHRASES, DIRECT]) {
      assert.equal(set.length, 40);
      assert.deepEqual(new Set(set.map((q) => q.answer)), keys);
    }
  });

  test('no paraphrase shares a stemmed content word with the memory that answers it', () => {
    const byKey = new Map(MEMORIES.map((m) => [m.key, m.content]));
    const shared = PARAPHRASES.map((q) => {
      const answer = stems(byKey.get(q.answer)!);
      return { query: q.query, shared: [...stems(q.query)].filter((s) => answer.has(s)) };
    }).filter((q) => q.shared.length > 0);
    assert.deepEqual(shared, []);
  });

  test('every direct question shares at least one stemmed word with its answer', () => {
    const byKey = new Map(MEMORIES.map((m) => [m.key, m.content]));
    const none = DIRECT.filter((q) => {
      const answer = stems(byKey.get(q.answer)!);
      return ![...stems(q.query)].some((s) => answer.has(s));
    }).map((q) => q.query);
    assert.deepEqual(none, []);
  });
});
