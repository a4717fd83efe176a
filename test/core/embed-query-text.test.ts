/**
 * The text a query is embedded as (src/core/embed/queryText.ts) and how the hybrid search
 * prepares it: stop-words, question marks, and words common in the store left out.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropCommonWords, prepareQueryEmbedText, stripQuestionMarks } from '../../src/core/embed/queryText';
import { DEFAULT_SEARCH_SETTINGS, resolveSearchSettings } from '../../src/core/search/settings';
import type { Embedder, EmbedKind } from '../../src/core/embed/types';
import { searchFixture } from './search-fixture';

describe('query text for the embedder', () => {
  test('question marks go, in any script; a text of only marks is kept', () => {
    assert.equal(stripQuestionMarks('What did Caroline research?'), 'What did Caroline research');
    assert.equal(stripQuestionMarks('¿Dónde está? ok ？ fine'), 'Dónde está ok fine');
    assert.equal(stripQuestionMarks('why?? not'), 'why not');
    assert.equal(stripQuestionMarks('???'), '???');
    assert.equal(stripQuestionMarks('no marks here.'), 'no marks here.');
  });

  test('common words are dropped token by token; never everything', () => {
    const common = new Set(['john', "john's"]);
    const isCommon = (t: string) => common.has(t.toLowerCase());
    assert.equal(dropCommonWords("John's new job", isCommon), 'new job');
    assert.equal(dropCommonWords('john', isCommon), 'john');
    assert.equal(dropCommonWords('', isCommon), '');
  });

  test('prepareQueryEmbedText applies the steps asked for, in order', () => {
    const q = 'What did John give to the shelter?';
    assert.equal(prepareQueryEmbedText(q, { stopwords: true, questionMarks: true }), 'John give shelter');
    assert.equal(prepareQueryEmbedText(q, { stopwords: true, questionMarks: false }), 'John give shelter?');
    assert.equal(prepareQueryEmbedText(q, { stopwords: false, questionMarks: true }), 'What did John give to the shelter');
    assert.equal(prepareQueryEmbedText(q, { stopwords: true, questionMarks: true, isCommon: (t) => t === 'John' }), 'give shelter');
  });
});

/** Records the query texts it is asked to embed; every vector is the same (the leg is not under test). */
class RecordingEmbedder implements Embedder {
  readonly id = 'recording:test';
  readonly space = 'recording-test-3';
  readonly dimension = 3;
  readonly queries: string[] = [];
  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'query') this.queries.push(...texts);
    return texts.map(() => Float32Array.from([1, 0, 0]));
  }
  async available(): Promise<boolean> {
    return true;
  }
  dispose(): void {}
}

describe('hybrid search: the embedded query', () => {
  test('no question marks, no stop-words, and no words found in a large share of the store', async () => {
    const emb = new RecordingEmbedder();
    const f = await searchFixture(emb);
    try {
      // "maria" is in 4 of 5 memories (80 %), "shelter" in 2 (40 %), "medal" in 1 (20 %); a word
      // is common when it is in MORE than the share (0.5 → more than 2 of 5).
      await f.add({ content: 'Maria volunteered at the shelter.' });
      await f.add({ content: 'Maria got a medal from the shelter.' });
      await f.add({ content: 'Maria baked bread.' });
      await f.add({ content: "Maria's dog is called Coco." });
      await f.add({ content: 'John went hiking.' });
      const ask = async (settings: Record<string, unknown>) => {
        emb.queries.length = 0;
        await f.searcher({ settings: { queryCommonMinRows: 5, ...settings } }).search({ query: "What medal did Maria's shelter give?" });
        return emb.queries.at(-1);
      };
      assert.equal(await ask({ queryCommonShare: 0.5 }), 'medal shelter give');
      assert.equal(await ask({ queryCommonShare: 0.3 }), 'medal give');
      // Off: the words stay (question mark still removed).
      assert.equal(await ask({ queryCommonShare: 0 }), "medal Maria's shelter give");
      // Too small a store (fewer than queryCommonMinRows memories): nothing dropped.
      assert.equal(await ask({ queryCommonShare: 0.5, queryCommonMinRows: 6 }), "medal Maria's shelter give");
      // Question marks kept when asked.
      assert.equal(await ask({ queryCommonShare: 0, queryStripQuestionMarks: false }), "medal Maria's shelter give?");
      // A query made only of common words still embeds one of them (counts are capped just above
      // the threshold, so which one is not specified).
      const only = async (query: string) => {
        emb.queries.length = 0;
        await f.searcher({ settings: { queryCommonMinRows: 5, queryCommonShare: 0.3 } }).search({ query });
        return emb.queries.at(-1);
      };
      assert.ok(['Maria', 'shelter'].includes((await only('Maria shelter?'))!));
      assert.equal(await only('Maria?'), 'Maria');
    } finally {
      await f.store.close();
    }
  });

  test('defaults are the measured ones; nonsense is refused', () => {
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryStripQuestionMarks, true);
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryCommonShare, 0.2);
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryCommonMinRows, 200);
    assert.throws(() => resolveSearchSettings({ queryCommonShare: 1.5 }), RangeError);
    assert.throws(() => resolveSearchSettings({ queryCommonShare: -0.1 }), RangeError);
    assert.throws(() => resolveSearchSettings({ queryCommonMinRows: 2.5 }), RangeError);
  });
});
