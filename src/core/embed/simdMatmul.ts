/**
 * One WebAssembly function, written here as bytes: a matrix product with 128-bit SIMD,
 * `y[T×N] = x[T×K] · w[K×N]`, all float32, row-major, in the memory the caller gives.
 *
 * Why bytes and not a toolchain: the built-in embedder's whole cost is a few matrix products
 * (useLiteModel.ts), and this kernel is all of its compiled code. Written out, it needs no
 * compiler at build time and no download at run time; the module is ~1.6 KB, validated by
 * WebAssembly itself when it is compiled, and checked against a plain loop in the tests.
 *
 * The kernel works on blocks of 4 rows × 8 columns, kept in eight SIMD registers across the
 * whole inner dimension: each step loads 4 values of x (each broadcast to a vector) and 8 of
 * w, for 32 multiply-adds. The last 1–3 rows are one block of their size (a short query has
 * 5–10 tokens: padding them to 4 rows cost up to a third more). N must be a multiple of 8; T
 * and K are free.
 * Pointers are byte offsets into the memory and must be 4-aligned.
 */

import { BodyEmitter, OP, SIMD, instantiateKernel, kernelModuleBytes, type WasmMemory } from './wasmBytes';

export { kernelMemory } from './wasmBytes';

/** The right-hand matrix of a product: where it is (a byte offset), its rows (the inner dimension) and columns. */
export interface MatmulOperand {
  at: number;
  inner: number;
  cols: number;
}

/** `y[rows × w.cols] = x[rows × w.inner] · w`; x and y are byte offsets. */
export type MatmulKernel = (x: number, w: MatmulOperand, y: number, rows: number) => void;

const MATMUL_ROW_BLOCK = 4;
export const MATMUL_COL_BLOCK = 8;

/** The module's bytes: imports `env.memory`, exports `mm`. */
export function matmulModuleBytes(): Uint8Array {
  // Locals: the 6 parameters, then 11 i32 and 14 v128.
  const [X, W, Y, T, K, N] = [0, 1, 2, 3, 4, 5];
  const [t, n, k, xp, wp, N4, yp, T4] = [6, 7, 8, 9, 10, 11, 12, 13];
  const rowBytes = [14, 15, 16]; // K*4, K*8, K*12: from a row of x to the next three
  const acc = (i: number): number => 17 + i; // 8 accumulators: row i>>1, column half i&1
  const a = (i: number): number => 25 + i; // 4 broadcast values of x
  const wv = (i: number): number => 29 + i; // 2 vectors of w

  const e = new BodyEmitter();
  const { get, set, int, simd } = e;
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  const splat = simd(SIMD.load32Splat, 2, 0); // align 2^2, offset 0
  /** Columns n…n+7 of `rows` rows from row t, the sums kept in registers over all of K. */
  const block = (rows: number): void => {
    for (let i = 0; i < rows * 2; i++) e.emit(e.zero(), set(acc(i)));
    e.emit(get(X), get(t), get(rowBytes[0]!), mul, add, set(xp)); // xp = x + t*K*4
    e.emit(get(W), get(n), int(4), mul, add, set(wp)); // wp = w + n*4
    e.forLoop(k, int(0), K, 1, () => {
      e.emit(get(xp), splat, set(a(0)));
      for (let row = 1; row < rows; row++) e.emit(get(xp), get(rowBytes[row - 1]!), add, splat, set(a(row)));
      e.emit(get(wp), simd(SIMD.load, 4, 0), set(wv(0)));
      e.emit(get(wp), simd(SIMD.load, 4, 16), set(wv(1)));
      for (let row = 0; row < rows; row++) {
        for (let half = 0; half < 2; half++) {
          const sum = acc(row * 2 + half);
          e.emit(get(sum), get(a(row)), get(wv(half)), simd(SIMD.f32x4Mul), simd(SIMD.f32x4Add), set(sum));
        }
      }
      e.emit(get(xp), int(4), add, set(xp));
      e.emit(get(wp), get(N4), add, set(wp));
    });
    e.emit(get(Y), get(t), get(N), mul, get(n), add, int(4), mul, add, set(yp)); // yp = y + (t*N + n)*4
    for (let row = 0; row < rows; row++) {
      for (let half = 0; half < 2; half++) e.emit(get(yp), get(acc(row * 2 + half)), simd(SIMD.store, 4, half * 16));
      e.emit(get(yp), get(N4), add, set(yp));
    }
  };

  for (let i = 0; i < 3; i++) e.emit(get(K), int(4 * (i + 1)), mul, set(rowBytes[i]!));
  e.emit(get(N), int(4), mul, set(N4));
  // A block of 8 columns of w (K × 32 bytes) stays in cache for every row, where rows outside would
  // stream all of w (up to 3 MB) from memory once per 4 rows.
  e.tiles({ n, t, T, T4, N }, MATMUL_ROW_BLOCK, MATMUL_COL_BLOCK, block);
  return kernelModuleBytes({ mm: e.body(6, { i32: 11, v128: 14 }) });
}

/** The kernel over `memory`; throws a clear error where WebAssembly SIMD is not available. */
export function instantiateMatmul(memory: WasmMemory): MatmulKernel {
  const mm = instantiateKernel(matmulModuleBytes(), memory).mm!; // (x, w, y, T, K, N)
  return (x, w, y, rows) => mm(x, w.at, y, rows, w.inner, w.cols);
}
