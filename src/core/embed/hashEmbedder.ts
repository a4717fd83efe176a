import { ENGLISH_STOPWORDS } from './stopwords';
import { fmix32, fnv1a32, FNV_PRIME } from './hashing';
import { spaceName, type EmbedKind, type Embedder, EmbedderError } from './types';

/**
 * Deterministic embedder with no model: signed feature hashing ("hashing trick") of
 *  - word unigrams (stop-words down-weighted; code identifiers also split into their parts:
 *    `getUserName` / `get_user_name` → `get`, `user`, `name`),
 *  - word bigrams,
 *  - character 3-, 4- and 5-grams of each word (with `<` `>` word-boundary marks),
 * with sublinear term frequency (1 + ln tf), each feature group scaled to a fixed share of the
 * vector, and the result L2-normalized. Same text → same vector, on every machine, forever (the
 * algorithm version is part of `space`; bump it if anything here changes).
 * Lexical, not semantic: shared words and word pieces raise the cosine, synonyms do not.
 * Symmetric: `document` and `query` are embedded the same way.
 */
export interface HashEmbedderOptions {
  /** Vector length. Default 512. */
  dimension?: number;
}

/** Bump when the feature extraction changes: the space name changes with it. */
export const HASH_EMBEDDER_VERSION = 'fh1';

const SEED_WORD = fnv1a32('agent-memory/word');
const SEED_PART = fnv1a32('agent-memory/part');
const SEED_BIGRAM = fnv1a32('agent-memory/bigram');
const SEED_CHAR = fnv1a32('agent-memory/char');
const SEED_SIGN = 0x9e3779b9;

/** Share of the vector's energy given to each feature group (before the final normalization). */
const GROUP_WEIGHT = { word: 1.0, bigram: 0.55, char: 0.85 } as const;
const STOPWORD_WEIGHT = 0.2;
const PART_WEIGHT = 0.6;

const TOKEN = /[\p{L}\p{N}_]+/gu;

/** Splits an identifier into lower-case parts: camelCase, PascalCase, snake_case, digits. */
function identifierParts(token: string): string[] {
  if (!/[_\d]|\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u.test(token)) return [];
  const parts = token
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})|(\p{N})(\p{L})/gu, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .split(/[\s_]+/)
    .map((p) => p.toLowerCase())
    .filter((p) => p.length > 0);
  return parts.length > 1 ? parts : [];
}

type Counts = Map<number, number>;

function bump(m: Counts, key: number): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

export class HashEmbedder implements Embedder {
  readonly id = `hash:${HASH_EMBEDDER_VERSION}`;
  readonly dimension: number;
  readonly space: string;
  private disposed = false;

  constructor(options: HashEmbedderOptions = {}) {
    const dim = options.dimension ?? 512;
    if (!Number.isInteger(dim) || dim < 8) throw new RangeError(`HashEmbedder: bad dimension ${dim}`);
    this.dimension = dim;
    this.space = spaceName('hash', HASH_EMBEDDER_VERSION, dim);
  }

  async embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    if (this.disposed) throw new EmbedderError('The hash embedder was disposed.', 'disposed', this.id);
    return texts.map((t) => this.embedOne(t));
  }

  async available(): Promise<boolean> {
    return !this.disposed;
  }

  dispose(): void {
    this.disposed = true;
  }

  /** Synchronous embedding of one text (L2-normalized). */
  embedOne(text: string): Float32Array {
    const words: Counts = new Map();
    const bigrams: Counts = new Map();
    const chars: Counts = new Map();
    // per-feature weight of the word group (stop-words and identifier parts weigh less)
    const wordWeight = new Map<number, number>();

    const norm = text.normalize('NFKC');
    let prevKey = -1;
    let prevStop = true;
    for (const m of norm.matchAll(TOKEN)) {
      const raw = m[0];
      const lower = raw.toLowerCase();
      const stop = ENGLISH_STOPWORDS.has(lower);
      const wKey = fnv1a32(lower, SEED_WORD);
      const w = stop ? STOPWORD_WEIGHT : 1;
      bump(words, wKey);
      wordWeight.set(wKey, w);
      for (const part of identifierParts(raw)) {
        const pKey = fnv1a32(part, SEED_PART);
        bump(words, pKey);
        wordWeight.set(pKey, PART_WEIGHT);
      }
      if (prevKey !== -1 && !(stop && prevStop)) {
        bump(bigrams, fmix32((Math.imul(prevKey, 0x01000193) ^ wKey ^ SEED_BIGRAM) >>> 0));
      }
      prevKey = wKey;
      prevStop = stop;
      if (!stop || lower.length > 3) this.charGrams(lower, chars);
    }

    const v = new Float32Array(this.dimension);
    if (words.size === 0) {
      // No word at all (empty, whitespace, pure punctuation): one fixed feature so the vector
      // is still a unit vector, identical for all such texts.
      this.add(v, [[fnv1a32('\u0000empty', SEED_WORD), 1]], 1);
      return v;
    }
    this.add(
      v,
      [...words].map(([k, c]) => [k, (wordWeight.get(k) ?? 1) * (1 + Math.log(c))] as const),
      GROUP_WEIGHT.word,
    );
    if (bigrams.size)
      this.add(
        v,
        [...bigrams].map(([k, c]) => [k, 1 + Math.log(c)] as const),
        GROUP_WEIGHT.bigram,
      );
    if (chars.size)
      this.add(
        v,
        [...chars].map(([k, c]) => [k, 1 + Math.log(c)] as const),
        GROUP_WEIGHT.char,
      );

    let ss = 0;
    for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
    if (ss === 0) {
      // All features cancelled out (astronomically unlikely): fall back to the fixed vector.
      this.add(v, [[fnv1a32('\u0000empty', SEED_WORD), 1]], 1);
      return v;
    }
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
    return v;
  }

  /** Character 3–5-grams of `<word>`, FNV computed incrementally (no substrings allocated). */
  private charGrams(word: string, out: Counts): void {
    const n = word.length + 2;
    const at = (i: number): number => (i === 0 ? 0x3c : i === n - 1 ? 0x3e : word.charCodeAt(i - 1));
    for (let i = 0; i + 3 <= n; i++) {
      let h = SEED_CHAR;
      const end = Math.min(n, i + 5);
      for (let j = i; j < end; j++) {
        h = Math.imul(h ^ at(j), FNV_PRIME);
        if (j - i + 1 >= 3) bump(out, fmix32(h));
      }
    }
  }

  /** Adds a feature group, scaled so the group's own norm is `groupWeight`. */
  private add(v: Float32Array, features: ReadonlyArray<readonly [number, number]>, groupWeight: number): void {
    let ss = 0;
    for (const [, val] of features) ss += val * val;
    if (ss === 0) return;
    const scale = groupWeight / Math.sqrt(ss);
    const dim = this.dimension;
    for (const [key, val] of features) {
      const idx = key % dim;
      const sign = fmix32((key ^ SEED_SIGN) >>> 0) & 1 ? 1 : -1;
      v[idx] += sign * val * scale;
    }
  }
}
