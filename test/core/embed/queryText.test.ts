/**
 * The text a query is embedded as (src/core/embed/queryText.ts) and how the hybrid search
 * prepares it: stop-words, question marks, and words common in the store left out.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dropCommonWords, meanOfUnitVectors, prepareQueryEmbedText, stripQuestionMarks } from '../../../src/core/embed/queryText';
import { DEFAULT_SEARCH_SETTINGS, resolveSearchSettings } from '../../../src/core/search/settings';
import type { Embedder, EmbedKind } from '../../../src/core/embed/types';
import { searchFixture } from '../search/fixture';

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

  test('meanOfUnitVectors: the unit mean of the unit vectors; zero vectors skipped', () => {
    const m = meanOfUnitVectors([Float32Array.from([3, 0, 0]), Float32Array.from([0, 0.5, 0])]);
    assert.deepEqual(
      Array.from(m).map((x) => Math.round(x * 1e6) / 1e6),
      [0.707107, 0.707107, 0],
    );
    const z = meanOfUnitVectors([Float32Array.from([0, 2, 0]), new Float32Array(3)]);
    assert.deepEqual(Array.from(z), [0, 1, 0]);
    assert.deepEqual(Array.from(meanOfUnitVectors([new Float32Array(2)])), [0, 0]);
    assert.throws(() => meanOfUnitVectors([new Float32Array(2), new Float32Array(3)]), RangeError);
  });
});

/**
 * Records each batch of query texts it is asked to embed. Vectors come from `table` (x axis for
 * anything not in it), so a test can tell the views apart.
 */
class RecordingEmbedder implements Embedder {
  readonly id = 'recording:test';
  readonly space = 'recording-test-3';
  readonly dimension = 3;
  readonly calls: string[][] = [];
  constructor(private readonly table = new Map<string, number[]>()) {}
  get queries(): string[] {
    return this.calls.map((c) => c[0]!);
  }
  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'query') this.calls.push(texts.slice());
    return texts.map((t) => Float32Array.from(this.table.get(t) ?? [1, 0, 0]));
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
        emb.calls.length = 0;
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
        emb.calls.length = 0;
        await f.searcher({ settings: { queryCommonMinRows: 5, queryCommonShare: 0.3 } }).search({ query });
        return emb.queries.at(-1);
      };
      assert.ok(['Maria', 'shelter'].includes((await only('Maria shelter?'))!));
      assert.equal(await only('Maria?'), 'Maria');
    } finally {
      await f.store.close();
    }
  });

  test('raw view: the query as written (no question marks) is embedded too, and the mean is searched', async () => {
    // The prepared text points along x, the query as written along y; m3 sits between them.
    const table = new Map<string, number[]>([
      ['deploy staging', [1, 0, 0]],
      ['How do we deploy to staging', [0, 1, 0]],
      ['Memory one.', [1, 0, 0]],
      ['Memory two.', [0, 1, 0]],
      ['Memory three.', [1, 1, 0]],
    ]);
    const emb = new RecordingEmbedder(table);
    const f = await searchFixture(emb);
    try {
      const m1 = await f.add({ content: 'Memory one.' });
      await f.add({ content: 'Memory two.' });
      const m3 = await f.add({ content: 'Memory three.' });
      const vectorOnly = { keywordWeight: 0, vectorWeight: 1 };
      const top = async (settings: Record<string, unknown>) =>
        (await f.searcher({ settings: { ...vectorOnly, ...settings } }).search({ query: 'How do we deploy to staging?' })).results.map(
          (r) => r.memory.id,
        );

      assert.equal((await top({}))[0], m3.id);
      assert.deepEqual(emb.calls.at(-1), ['deploy staging', 'How do we deploy to staging']);
      const off = await top({ queryRawView: false });
      assert.equal(off[0], m1.id);
      assert.deepEqual(emb.calls.at(-1), ['deploy staging']);
      // Both views the same text (nothing removed): embedded once.
      emb.calls.length = 0;
      await f.searcher().search({ query: 'deploy staging' });
      assert.deepEqual(emb.calls, [['deploy staging']]);
    } finally {
      await f.store.close();
    }
  });

  test('defaults are the measured ones; nonsense is refused', () => {
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryRawView, true);
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryStripQuestionMarks, true);
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryCommonShare, 0.1);
    assert.equal(DEFAULT_SEARCH_SETTINGS.queryCommonMinRows, 200);
    assert.throws(() => resolveSearchSettings({ queryCommonShare: 1.5 }), RangeError);
    assert.throws(() => resolveSearchSettings({ queryCommonShare: -0.1 }), RangeError);
    assert.throws(() => resolveSearchSettings({ queryCommonMinRows: 2.5 }), RangeError);
  });
});
