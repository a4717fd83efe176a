// The README's reference point: plain BM25 over the turns, in memory, in plain TypeScript.
// k1 = 1.2, b = 0.75, lower-cased word tokens, a small English stop-word list, no stemming.
// It exists to check the harness and metric code against the README's table, and as the
// baseline every engine config must beat. It is not the product's search.
//
// The details, chosen so that the README's table is reproduced within ±0.001–0.003:
//   tokens   runs of [a-z0-9] after lower-casing ("Caroline's" → caroline, s); no stemming
//   stop     NLTK's English list without its contraction fragments (127 words)
//   idf      Lucene's ln(1 + (N − df + 0.5) / (df + 0.5)); avgdl over the sample's turns
//   query    each distinct query term counted once
//   ties     equal scores → the later turn first (recency; ties are common among short turns
//            and move recall_all@20 by ~0.005)
//   results  only documents with a positive score
import { PerSampleRetriever, type RetrieverDoc } from './retriever';

/** A small English stop-word list (NLTK's English list minus its contraction forms). */
export const REFERENCE_STOP_WORDS: ReadonlySet<string> = new Set([
  'i',
  'me',
  'my',
  'myself',
  'we',
  'our',
  'ours',
  'ourselves',
  'you',
  'your',
  'yours',
  'yourself',
  'yourselves',
  'he',
  'him',
  'his',
  'himself',
  'she',
  'her',
  'hers',
  'herself',
  'it',
  'its',
  'itself',
  'they',
  'them',
  'their',
  'theirs',
  'themselves',
  'what',
  'which',
  'who',
  'whom',
  'this',
  'that',
  'these',
  'those',
  'am',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'have',
  'has',
  'had',
  'having',
  'do',
  'does',
  'did',
  'doing',
  'a',
  'an',
  'the',
  'and',
  'but',
  'if',
  'or',
  'because',
  'as',
  'until',
  'while',
  'of',
  'at',
  'by',
  'for',
  'with',
  'about',
  'against',
  'between',
  'into',
  'through',
  'during',
  'before',
  'after',
  'above',
  'below',
  'to',
  'from',
  'up',
  'down',
  'in',
  'out',
  'on',
  'off',
  'over',
  'under',
  'again',
  'further',
  'then',
  'once',
  'here',
  'there',
  'when',
  'where',
  'why',
  'how',
  'all',
  'any',
  'both',
  'each',
  'few',
  'more',
  'most',
  'other',
  'some',
  'such',
  'no',
  'nor',
  'not',
  'only',
  'own',
  'same',
  'so',
  'than',
  'too',
  'very',
  's',
  't',
  'can',
  'will',
  'just',
  'don',
  'should',
  'now',
]);

export interface Bm25Options {
  k1?: number;
  b?: number;
  stopWords?: ReadonlySet<string>;
  tokenize?: (text: string) => string[];
}

/** Lower-cased word tokens: runs of ASCII letters and digits. */
export function referenceTokenize(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** An in-memory BM25 index over one sample's turns. */
export class Bm25Index {
  private readonly k1: number;
  private readonly b: number;
  private readonly stop: ReadonlySet<string>;
  private readonly tokenize: (text: string) => string[];
  private readonly ids: string[] = [];
  private readonly lengths: number[] = [];
  /** term → postings [docIndex, tf, docIndex, tf, …] */
  private readonly postings = new Map<string, number[]>();
  private avgLength = 0;

  constructor(docs: readonly { id: string; text: string }[], opts: Bm25Options = {}) {
    this.k1 = opts.k1 ?? 1.2;
    this.b = opts.b ?? 0.75;
    this.stop = opts.stopWords ?? REFERENCE_STOP_WORDS;
    this.tokenize = opts.tokenize ?? referenceTokenize;
    let total = 0;
    docs.forEach((doc, d) => {
      const terms = this.terms(doc.text);
      this.ids.push(doc.id);
      this.lengths.push(terms.length);
      total += terms.length;
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = []));
        p.push(d, n);
      }
    });
    this.avgLength = docs.length ? total / docs.length : 0;
  }

  private terms(text: string): string[] {
    return this.tokenize(text).filter((t) => !this.stop.has(t));
  }

  /** Lucene's idf: ln(1 + (N − df + 0.5) / (df + 0.5)), never negative. */
  private idf(df: number): number {
    const n = this.ids.length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Scores of every document for `query`: the sum over the query's distinct terms. */
  scores(query: string): Float64Array {
    const scores = new Float64Array(this.ids.length);
    for (const term of new Set(this.terms(query))) {
      const p = this.postings.get(term);
      if (!p) continue;
      const idf = this.idf(p.length / 2);
      for (let i = 0; i < p.length; i += 2) {
        const d = p[i]!;
        const tf = p[i + 1]!;
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[d]!) / this.avgLength);
        scores[d]! += (idf * tf * (this.k1 + 1)) / (tf + norm);
      }
    }
    return scores;
  }

  /**
   * The ids of the best `k` documents with a positive score. Equal scores (frequent: many
   * turns are short) go to the later turn first, as the product breaks ties by recency.
   */
  search(query: string, k: number): string[] {
    const scores = this.scores(query);
    const hits: number[] = [];
    for (let d = 0; d < scores.length; d++) if (scores[d]! > 0) hits.push(d);
    hits.sort((x, y) => scores[y]! - scores[x]! || y - x);
    return hits.slice(0, k).map((d) => this.ids[d]!);
  }
}

/** The `reference-bm25` config's retriever. */
export class ReferenceBm25Retriever extends PerSampleRetriever<Bm25Index> {
  constructor(
    private readonly opts: Bm25Options = {},
    name = 'reference-bm25',
  ) {
    super(name);
  }
  protected async open(_sampleId: string, docs: RetrieverDoc[]): Promise<Bm25Index> {
    return new Bm25Index(docs, this.opts);
  }
  protected async query(index: Bm25Index, query: string, k: number): Promise<string[]> {
    return index.search(query, k);
  }
  protected async dispose(): Promise<void> {}
}
