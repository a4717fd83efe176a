/**
 * The built-in embedder's dense layers in 16-bit integers: WebAssembly SIMD functions written as
 * bytes (like simdMatmul.ts) — the product `y[T×N] = x[T×K] · w[K×N]` with x and w in int16 and the
 * sums exact in int32, and the functions that quantize its inputs and pack its weights.
 *
 * Why: a float32 product costs two SIMD instructions (mul, add) per 4 multiply-adds; WebAssembly's
 * `i32x4.dot_i16x8_s` does 8 in one, and int16 weights are half the bytes to hold and to stream
 * (the model's 4.9M weights: 19.6 MB as float32, 9.8 MB here). The vectors stay those of the
 * float model to a cosine of 1 − 2·10⁻⁶ (useLiteModel.test.ts; bench/RESULTS-recall.md).
 *
 * The numbers:
 * - w: each column scaled on its own so its largest magnitude is 32,767 (`pack`, at load).
 * - x: each row scaled so its largest magnitude is 2,047 (`quantize`): 12 bits, because a
 *   product is then at most 32,767 × 2,047 and 32 of them (one chunk of K) stay below 2³¹, so
 *   the int32 sums cannot overflow whatever the values. After each chunk the sums are converted to
 *   float32 and added to float accumulators.
 * - y: the float sums times row t's and column n's factors back, plus the bias (and with ReLU,
 *   negatives as 0), as each block is stored.
 *
 * Layout of the packed weights: for each block of 8 columns, K/2 pairs of rows (k, k+1), each
 * 16 int16 — [w(k,n), w(k+1,n)] for n = 0…7 of the block — so one 32-bit load of x's pair
 * (x[k], x[k+1]) broadcast against a 128-bit load of 4 columns' pairs gives 4 columns' two
 * multiply-adds in one `dot`. K must be a multiple of 32, N of 8; T is free (blocks of 4 rows,
 * the last 1–3 as one block of their size). Byte offsets: x 4-aligned, w and y 16-aligned.
 */
import type { MatmulOperand } from './simdMatmul';
import { BodyEmitter, OP, SIMD, instantiateKernel, kernelModuleBytes, type KernelFunction, type WasmMemory } from './wasmBytes';

/** The largest magnitude of a packed weight. */
export const INT16_WEIGHT_MAX = 32_767;
/** The largest magnitude of a quantized input: 32 products of the two maxima stay below 2³¹. */
export const INT16_INPUT_MAX = 2_047;
/** K is summed in int32 over chunks of this many, then in float32. */
export const INT16_CHUNK = 32;
const ROW_BLOCK = 4;
/**
 * Pairs of K per turn of the product's inner loop. Measured on a short query (one process, float32
 * beside it): a whole chunk unrolled (16) 0.68× float32's CPU, 4 0.53×, 2 and 1 about 0.5× — the
 * long unrolled body also took ~25 ms more to generate and compile at load.
 */
const UNROLL = 2;
const COL_BLOCK = 8;

/** A packed matrix: where it is, its shape, and where its columns' factors and then its bias are (N floats each). */
export interface Int16Operand extends MatmulOperand {
  meta: number;
}

/** Quantized input rows (`quantize`): the int16 values and each row's factor back (float32); byte offsets. */
export interface Int16Input {
  at: number;
  factors: number;
}

/**
 * `y[rows × w.cols] = (x · w) × row factor × column factor + bias`, and with `relu` negatives as
 * 0; y is a byte offset.
 */
export type Int16MatmulKernel = (x: Int16Input, w: Int16Operand, y: number, rows: number, relu?: boolean) => void;

/** The module's bytes: imports `env.memory`, exports `mmq`, `mmqRelu`, `quantize` and `pack`. */
export function int16MatmulModuleBytes(): Uint8Array {
  return kernelModuleBytes({
    mmq: productBody(false),
    mmqRelu: productBody(true),
    quantize: quantizeBody(),
    colmax: columnMaxBody(),
    pack: packBody(),
  });
}

/** `mmq(x, w, y, T, K, N, factors, meta)` (see {@link Int16MatmulKernel}). */
function productBody(relu: boolean): KernelFunction {
  const [X, W, Y, T, K, N, FACTORS, META] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [t, n, c, xp, wp, yp, T4, N4] = [8, 9, 10, 11, 12, 13, 14, 15];
  const rowBytes = [16, 17, 18]; // K*2, K*4, K*6: from a row of x to the next three
  const [columns, bias, pairEnd] = [19, 20, 21]; // the block's column factors and bias; the chunk's end in x
  const acc = (i: number): number => 22 + i; // 8 int32 sums of the chunk: row i>>1, column half i&1
  const total = (i: number): number => 30 + i; // 8 float32 sums over the chunks
  const a = (i: number): number => 38 + i; // 4 broadcast pairs of x (then the row's factor)
  const wv = (i: number): number => 42 + i; // 2 vectors of w: columns 0–3 and 4–7 of the block

  const e = new BodyEmitter();
  const { get, set, int, simd, memarg } = e;
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  const block = (rows: number): void => {
    for (let i = 0; i < rows * 2; i++) e.emit(e.zero(), set(total(i)));
    e.emit(get(X), get(t), get(rowBytes[0]!), mul, add, set(xp)); // xp = x + t*K*2
    e.emit(get(W), get(n), get(K), mul, int(2), mul, add, set(wp)); // wp = w + (n/8)*K*16
    e.forLoop(c, int(0), K, INT16_CHUNK, () => {
      for (let i = 0; i < rows * 2; i++) e.emit(e.zero(), set(acc(i)));
      // The chunk's pairs, UNROLL of them per turn of the loop.
      e.emit(get(xp), int(INT16_CHUNK * 2), add, set(pairEnd));
      e.emit([OP.block, OP.void, OP.loop, OP.void]);
      for (let p = 0; p < UNROLL; p++) {
        e.emit(get(xp), simd(SIMD.load32Splat, ...memarg(2, p * 4)), set(a(0)));
        for (let row = 1; row < rows; row++) {
          e.emit(get(xp), get(rowBytes[row - 1]!), add, simd(SIMD.load32Splat, ...memarg(2, p * 4)), set(a(row)));
        }
        e.emit(get(wp), simd(SIMD.load, ...memarg(4, p * 32)), set(wv(0)));
        e.emit(get(wp), simd(SIMD.load, ...memarg(4, p * 32 + 16)), set(wv(1)));
        for (let row = 0; row < rows; row++) {
          for (let half = 0; half < 2; half++) {
            const sum = acc(row * 2 + half);
            e.emit(get(sum), get(a(row)), get(wv(half)), simd(SIMD.i32x4DotI16x8S), simd(SIMD.i32x4Add), set(sum));
          }
        }
      }
      e.emit(get(xp), int(UNROLL * 4), add, set(xp));
      e.emit(get(wp), int(UNROLL * 32), add, set(wp));
      e.emit(get(xp), get(pairEnd), [OP.i32GeU, OP.brIf, 1, OP.br, 0, OP.end, OP.end]);
      for (let i = 0; i < rows * 2; i++) {
        e.emit(get(total(i)), get(acc(i)), simd(SIMD.f32x4ConvertI32x4S), simd(SIMD.f32x4Add), set(total(i)));
      }
    });
    e.emit(get(Y), get(t), get(N), mul, get(n), add, int(4), mul, add, set(yp)); // yp = y + (t*N + n)*4
    e.emit(get(META), get(n), int(4), mul, add, set(columns)); // meta + n*4
    e.emit(get(columns), get(N4), add, set(bias)); // meta + (N + n)*4
    for (let row = 0; row < rows; row++) {
      // The row's factor, broadcast: factors[t + row].
      e.emit(get(FACTORS), get(t), int(4), mul, add, [OP.f32Load, ...memarg(2, row * 4)], simd(SIMD.f32x4Splat), set(a(0)));
      for (let half = 0; half < 2; half++) {
        e.emit(get(yp), get(total(row * 2 + half)), get(a(0)), simd(SIMD.f32x4Mul));
        e.emit(get(columns), simd(SIMD.load, ...memarg(2, half * 16)), simd(SIMD.f32x4Mul));
        e.emit(get(bias), simd(SIMD.load, ...memarg(2, half * 16)), simd(SIMD.f32x4Add));
        if (relu) e.emit(e.zero(), simd(SIMD.f32x4Max));
        e.emit(simd(SIMD.store, ...memarg(4, half * 16)));
      }
      e.emit(get(yp), get(N4), add, set(yp));
    }
  };

  for (let i = 0; i < 3; i++) e.emit(get(K), int(2 * (i + 1)), mul, set(rowBytes[i]!));
  e.emit(get(N), int(4), mul, set(N4));
  e.tiles({ n, t, T, T4, N }, ROW_BLOCK, COL_BLOCK, block); // a block of 8 columns of w: K × 16 bytes
  return e.body(8, { i32: 14, v128: 22 });
}

/**
 * `quantize(src, dst, T, K, factors)`: each of T rows of K floats at src scaled to
 * ±{@link INT16_INPUT_MAX}, rounded, as int16 at dst; each row's factor back at `factors`
 * (0 for a row of zeros). K a multiple of 8.
 */
function quantizeBody(): KernelFunction {
  const [SRC, DST, T, K, FACTORS] = [0, 1, 2, 3, 4];
  const [t, from, to, end] = [6, 7, 8, 9];
  const [max, scale] = [10, 11];
  const [m, vs] = [12, 13];
  const e = new BodyEmitter();
  const { get, set, int, simd, memarg } = e;
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  const lane = (i: number): number[][] => [get(m), simd(SIMD.f32x4ExtractLane, i)];
  const rounded = (offset: number): number[][] => [
    get(from),
    simd(SIMD.load, ...memarg(2, offset)),
    get(vs),
    simd(SIMD.f32x4Mul),
    simd(SIMD.f32x4Nearest),
    simd(SIMD.i32x4TruncSatF32x4S),
  ];
  e.forLoop(t, int(0), T, 1, () => {
    e.emit(get(SRC), get(t), get(K), mul, int(4), mul, add, set(from));
    e.emit(get(from), get(K), int(4), mul, add, set(end));
    e.emit(e.zero(), set(m));
    e.forLoop(from, get(from), end, 16, () => {
      e.emit(get(m), get(from), simd(SIMD.load, ...memarg(2, 0)), simd(SIMD.f32x4Abs), simd(SIMD.f32x4Max), set(m));
    });
    e.emit(...lane(0), ...lane(1), [OP.f32Max], ...lane(2), ...lane(3), [OP.f32Max], [OP.f32Max], set(max));
    // scale = max > 0 ? INPUT_MAX / max : 0, and the factor back max / INPUT_MAX (0 when max is 0).
    e.emit(e.f32(INT16_INPUT_MAX), get(max), [OP.f32Div], e.f32(0), get(max), e.f32(0), [OP.f32Gt, OP.select], set(scale));
    e.emit(get(FACTORS), get(t), int(4), mul, add, get(max), e.f32(INT16_INPUT_MAX), [OP.f32Div], [OP.f32Store, ...memarg(2, 0)]);
    e.emit(get(scale), simd(SIMD.f32x4Splat), set(vs));
    e.emit(get(SRC), get(t), get(K), mul, int(4), mul, add, set(from));
    e.emit(get(DST), get(t), get(K), mul, int(2), mul, add, set(to));
    e.forLoop(from, get(from), end, 32, () => {
      e.emit(get(to), ...rounded(0), ...rounded(16), simd(SIMD.i16x8NarrowI32x4S), simd(SIMD.store, ...memarg(4, 0)));
      e.emit(get(to), int(16), add, set(to));
    });
  });
  return e.body(6, { i32: 4, f32: 2, v128: 2 });
}

/**
 * `colmax(src, K, N, dst)`: the largest magnitude of each column of w (K × N float32 at src, row by
 * row as it lies in memory, 4 columns at a time) into dst (N float32).
 */
function columnMaxBody(): KernelFunction {
  const [SRC, K, N, DST] = [0, 1, 2, 3];
  const [from, end, at, rowEnd] = [6, 7, 8, 9];
  const e = new BodyEmitter();
  const { get, set, int, simd, memarg } = e;
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  e.emit(get(DST), set(at));
  e.emit(get(DST), get(N), int(4), mul, add, set(rowEnd));
  e.forLoop(at, get(DST), rowEnd, 16, () => e.emit(get(at), e.zero(), simd(SIMD.store, ...memarg(2, 0))));
  e.emit(get(SRC), get(K), get(N), mul, int(4), mul, add, set(end));
  e.emit(get(SRC), set(from));
  e.emit([OP.block, OP.void, OP.loop, OP.void], get(from), get(end), [OP.i32GeU, OP.brIf, 1]);
  e.forLoop(at, get(DST), rowEnd, 16, () => {
    e.emit(get(at), get(at), simd(SIMD.load, ...memarg(2, 0)), get(from), simd(SIMD.load, ...memarg(2, 0)), simd(SIMD.f32x4Abs));
    e.emit(simd(SIMD.f32x4Max), simd(SIMD.store, ...memarg(2, 0)));
    e.emit(get(from), int(16), add, set(from));
  });
  e.emit([OP.br, 0, OP.end, OP.end]);
  return e.body(6, { i32: 4 });
}

/**
 * `pack(src, dst, K, N, scales)`: w (K × N float32 at src) times each column's scale (N float32
 * at scales), rounded, into the product's layout at dst.
 */
function packBody(): KernelFunction {
  const [SRC, DST, K, N, SCALES] = [0, 1, 2, 3, 4];
  const [b, k, even, o, N4] = [6, 7, 8, 9, 10];
  const [s0, s1, lo, hi] = [11, 12, 13, 14];
  const e = new BodyEmitter();
  const { get, set, int, simd, memarg } = e;
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  // Scaled, rounded and saturated to int32: the value at `get(even)` + offset, times `scale`.
  const scaled = (offset: number, scale: number, odd: boolean): number[][] => [
    get(even),
    ...(odd ? [get(N4), add] : []),
    simd(SIMD.load, ...memarg(2, offset)),
    get(scale),
    simd(SIMD.f32x4Mul),
    simd(SIMD.f32x4Nearest),
    simd(SIMD.i32x4TruncSatF32x4S),
  ];
  // [e0 e1 e2 e3 o0 o1 o2 o3] (int16) → [e0 o0 e1 o1 e2 o2 e3 o3]: pairs of rows per column.
  const interleave = simd(SIMD.i8x16Shuffle, 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
  e.emit(get(N), int(4), mul, set(N4));
  e.forLoop(b, int(0), N, COL_BLOCK, () => {
    e.emit(get(SCALES), get(b), int(4), mul, add, simd(SIMD.load, ...memarg(2, 0)), set(s0));
    e.emit(get(SCALES), get(b), int(4), mul, add, simd(SIMD.load, ...memarg(2, 16)), set(s1));
    e.emit(get(DST), get(b), get(K), mul, int(2), mul, add, set(o)); // dst + (b/8)*K*16
    e.forLoop(k, int(0), K, 2, () => {
      e.emit(get(SRC), get(k), get(N), mul, get(b), add, int(4), mul, add, set(even)); // src + (k*N + b)*4
      e.emit(...scaled(0, s0, false), ...scaled(0, s0, true), simd(SIMD.i16x8NarrowI32x4S), set(lo));
      e.emit(...scaled(16, s1, false), ...scaled(16, s1, true), simd(SIMD.i16x8NarrowI32x4S), set(hi));
      e.emit(get(o), get(lo), get(lo), interleave, simd(SIMD.store, ...memarg(4, 0)));
      e.emit(get(o), get(hi), get(hi), interleave, simd(SIMD.store, ...memarg(4, 16)));
      e.emit(get(o), int(32), add, set(o));
    });
  });
  return e.body(6, { i32: 5, v128: 4 });
}

export interface Int16Kernels {
  /** The product (see {@link Int16MatmulKernel}). */
  matmul: Int16MatmulKernel;
  /** `rows` rows of `width` floats at byte `src` as int16 at byte `dst`, each row's factor back at byte `factors`. */
  quantize: (src: number, rows: number, width: number, dst: number, factors: number) => void;
  /** Packs w (K × N float32 at byte `src`) into the product's layout at byte `dst`; returns each column's factor back. */
  pack: (src: number, K: number, N: number, dst: number) => Float32Array;
}

/** The kernels over `memory`; throws a clear error where WebAssembly SIMD is not available. */
export function instantiateInt16Matmul(memory: WasmMemory, scratch: number): Int16Kernels {
  const { mmq, mmqRelu, quantize, colmax, pack } = instantiateKernel(int16MatmulModuleBytes(), memory);
  const check = (K: number, N: number): void => {
    if (K % INT16_CHUNK !== 0 || N % COL_BLOCK !== 0) {
      throw new RangeError(`int16 product: K ${K} must be a multiple of ${INT16_CHUNK} and N ${N} of ${COL_BLOCK}`);
    }
  };
  return {
    matmul: (x, w, y, rows, relu = false) => {
      check(w.inner, w.cols);
      (relu ? mmqRelu! : mmq!)(x.at, w.at, y, rows, w.inner, w.cols, x.factors, w.meta);
    },
    quantize: (src, rows, width, dst, factors) => {
      check(width, COL_BLOCK);
      quantize!(src, dst, rows, width, factors, 0);
    },
    pack: (src, K, N, dst) => {
      check(K, N);
      const heap = new Float32Array(memory.buffer);
      colmax!(src, K, N, scratch, 0, 0);
      const back = new Float32Array(N);
      for (let n = 0; n < N; n++) {
        const max = heap[scratch / 4 + n]!;
        heap[scratch / 4 + n] = max > 0 ? INT16_WEIGHT_MAX / max : 0; // the scale `pack` multiplies by
        back[n] = max > 0 ? max / INT16_WEIGHT_MAX : 0;
      }
      pack!(src, dst, K, N, scratch, 0);
      return back;
    },
  };
}

/** Where {@link quantizeRows} writes: int16 values from element `at`, and each row's factor back. */
export interface QuantizedRows {
  values: Int16Array;
  at: number;
  factors: Float32Array;
}

/**
 * Quantizes `rows` rows of `width` floats of `src` (from element `from`) into `into`, each row
 * scaled to ±{@link INT16_INPUT_MAX}; its factor back to the float values is 0 for a row of zeros.
 */
export function quantizeRows(src: Float32Array, from: number, rows: number, width: number, into: QuantizedRows): void {
  const { values, at, factors } = into;
  for (let t = 0; t < rows; t++) {
    const row = from + t * width;
    let max = 0;
    for (let k = 0; k < width; k++) {
      const v = src[row + k]!;
      if (v > max) max = v;
      else if (-v > max) max = -v;
    }
    const scale = max > 0 ? INT16_INPUT_MAX / max : 0;
    factors[t] = max > 0 ? max / INT16_INPUT_MAX : 0;
    const to = at + t * width;
    for (let k = 0; k < width; k++) values[to + k] = Math.round(src[row + k]! * scale);
  }
}
