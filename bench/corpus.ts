/**
 * Deterministic synthetic memories for benchmarks: developer-note-like sentences over a
 * Zipf-distributed vocabulary (a few very common words, a long tail of rare ones), so
 * full-text posting lists have realistic lengths. Same seed → same corpus.
 */
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'pa',
  'qui',
  'dor',
  'fen',
  'gal',
  'hux',
  'jor',
  'bex',
  'cyn',
  'wim',
  'yal',
];
const COMMON =
  'the a to of and in is for on with that this it we use when should not from by be are as at or config test build error fix api function module file server client cache database query index user request response type value'.split(
    ' ',
  );
const TYPES = ['general', 'solution', 'problem', 'code_pattern', 'fix', 'error', 'workflow', 'decision'] as const;
const TAGS = ['auth', 'db', 'ui', 'build', 'ci', 'perf', 'api', 'tests', 'infra', 'docs', 'security', 'deps'];

export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0 || 1;
  }
  next(): number {
    // xorshift32
    let x = this.s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.s = x >>> 0;
    return this.s / 0x100000000;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

export function vocabulary(size: number, seed = 7): string[] {
  const rng = new Rng(seed);
  const seen = new Set<string>(COMMON);
  const words = [...COMMON];
  while (words.length < size) {
    const n = 2 + rng.int(3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[rng.int(SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  return words;
}

export interface SyntheticMemory {
  content: string;
  title: string;
  type: (typeof TYPES)[number];
  tags: string[];
  importance: number;
}

export function* syntheticMemories(count: number, seed = 42, vocabSize = 20000): Generator<SyntheticMemory> {
  const vocab = vocabulary(vocabSize);
  const rng = new Rng(seed);
  // Zipf(s≈1): rank r with probability ∝ 1/r, sampled by inverse CDF on the harmonic series.
  const cdf = new Float64Array(vocab.length);
  let acc = 0;
  for (let r = 0; r < vocab.length; r++) cdf[r] = acc += 1 / (r + 1);
  const pick = () => {
    const u = rng.next() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo]!;
  };
  for (let i = 0; i < count; i++) {
    const len = 12 + rng.int(40);
    const words: string[] = [];
    for (let k = 0; k < len; k++) words.push(pick());
    const title = `${pick()} ${pick()} ${pick()}`;
    yield {
      content: `${words.join(' ')} #${i}`,
      title,
      type: TYPES[rng.int(TYPES.length)]!,
      tags: [TAGS[rng.int(TAGS.length)]!, TAGS[rng.int(TAGS.length)]!],
      importance: Math.round(rng.next() * 100) / 100,
    };
  }
}
