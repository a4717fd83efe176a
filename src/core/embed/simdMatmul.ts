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

function uleb(value: number): number[] {
  const out: number[] = [];
  let n = value >>> 0;
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(value: number): number[] {
  const out: number[] = [];
  let n = value | 0;
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const sized = (bytes: number[]): number[] => [...uleb(bytes.length), ...bytes];
const name = (s: string): number[] => sized([...Buffer.from(s, 'utf8')]);
const section = (id: number, content: number[]): number[] => [id, ...sized(content)];

// Opcodes (WebAssembly core 2.0, fixed-width SIMD).
const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  void: 0x40,
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  if: 0x04,
  i32Eq: 0x46,
  i32Sub: 0x6b,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32And: 0x71,
  simd: 0xfd,
} as const;
const SIMD = { load: 0x00, load32Splat: 0x09, store: 0x0b, const: 0x0c, f32x4Add: 0xe4, f32x4Mul: 0xe6 } as const;
const I32 = 0x7f;
const V128 = 0x7b;

/** The module's bytes: imports `env.memory`, exports `mm`. */
export function matmulModuleBytes(): Uint8Array {
  // Locals: the 6 parameters, then 11 i32 and 14 v128.
  const [X, W, Y, T, K, N] = [0, 1, 2, 3, 4, 5];
  const [t, n, k, xp, wp, N4, yp, T4] = [6, 7, 8, 9, 10, 11, 12, 13];
  const rowBytes = [14, 15, 16]; // K*4, K*8, K*12: from a row of x to the next three
  const acc = (i: number): number => 17 + i; // 8 accumulators: row i>>1, column half i&1
  const a = (i: number): number => 25 + i; // 4 broadcast values of x
  const wv = (i: number): number => 29 + i; // 2 vectors of w

  // Each helper returns the bytes of one instruction; emit() appends a sequence of them.
  const c: number[] = [];
  const emit = (...instructions: number[][]): void => void c.push(...instructions.flat());
  const get = (i: number): number[] => [OP.localGet, ...uleb(i)];
  const set = (i: number): number[] => [OP.localSet, ...uleb(i)];
  const int = (v: number): number[] => [OP.i32Const, ...sleb(v)];
  const simd = (op: number, ...imm: number[]): number[] => [OP.simd, ...uleb(op), ...imm];
  const add = [OP.i32Add];
  const mul = [OP.i32Mul];
  const splat = simd(SIMD.load32Splat, 2, 0); // align 2^2, offset 0
  /** `for (i = from; i < limit; i += step) body()`, as block/loop/br_if. */
  const forLoop = (i: number, from: number[], limit: number, step: number, body: () => void): void => {
    emit(from, set(i), [OP.block, OP.void, OP.loop, OP.void]);
    emit(get(i), get(limit), [OP.i32GeU, OP.brIf, 1]);
    body();
    emit(get(i), int(step), add, set(i), [OP.br, 0, OP.end, OP.end]);
  };
  /** Columns n…n+7 of `rows` rows from row t, the sums kept in registers over all of K. */
  const block = (rows: number): void => {
    for (let i = 0; i < rows * 2; i++) emit(simd(SIMD.const, ...new Array<number>(16).fill(0)), set(acc(i)));
    emit(get(X), get(t), get(rowBytes[0]!), mul, add, set(xp)); // xp = x + t*K*4
    emit(get(W), get(n), int(4), mul, add, set(wp)); // wp = w + n*4
    forLoop(k, int(0), K, 1, () => {
      emit(get(xp), splat, set(a(0)));
      for (let row = 1; row < rows; row++) emit(get(xp), get(rowBytes[row - 1]!), add, splat, set(a(row)));
      emit(get(wp), simd(SIMD.load, 4, 0), set(wv(0)));
      emit(get(wp), simd(SIMD.load, 4, 16), set(wv(1)));
      for (let row = 0; row < rows; row++) {
        for (let half = 0; half < 2; half++) {
          const sum = acc(row * 2 + half);
          emit(get(sum), get(a(row)), get(wv(half)), simd(SIMD.f32x4Mul), simd(SIMD.f32x4Add), set(sum));
        }
      }
      emit(get(xp), int(4), add, set(xp));
      emit(get(wp), get(N4), add, set(wp));
    });
    emit(get(Y), get(t), get(N), mul, get(n), add, int(4), mul, add, set(yp)); // yp = y + (t*N + n)*4
    for (let row = 0; row < rows; row++) {
      for (let half = 0; half < 2; half++) emit(get(yp), get(acc(row * 2 + half)), simd(SIMD.store, 4, half * 16));
      emit(get(yp), get(N4), add, set(yp));
    }
  };

  for (let i = 0; i < 3; i++) emit(get(K), int(4 * (i + 1)), mul, set(rowBytes[i]!));
  emit(get(N), int(4), mul, set(N4));
  emit(get(T), int(~(MATMUL_ROW_BLOCK - 1)), [OP.i32And], set(T4)); // whole blocks of 4 rows
  // Columns outside, rows inside: the 8 columns of w (K × 32 bytes) stay in cache for every row,
  // where rows outside would stream all of w (up to 3 MB) from memory once per 4 rows.
  forLoop(n, int(0), N, MATMUL_COL_BLOCK, () => {
    forLoop(t, int(0), T4, MATMUL_ROW_BLOCK, () => block(MATMUL_ROW_BLOCK));
    // The last 1–3 rows as one block of their size (one row at a time would load w once per row).
    for (let rest = 1; rest < MATMUL_ROW_BLOCK; rest++) {
      emit(get(T), get(T4), [OP.i32Sub], int(rest), [OP.i32Eq, OP.if, OP.void], get(T4), set(t));
      block(rest);
      emit([OP.end]);
    }
  });
  emit([OP.end]);

  const locals = [...uleb(2), ...uleb(11), I32, ...uleb(14), V128];
  const body = sized([...locals, ...c]);
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]), // type: (i32 ×6) → ()
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]), // import memory, min 1 page
    ...section(3, [1, 0]), // one function of type 0
    ...section(7, [1, ...name('mm'), 0x00, 0]), // export it as "mm"
    ...section(10, [1, ...body]),
  ]);
}

/** A WebAssembly memory, as far as it is used here. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
}

/** The parts of the WebAssembly global used here (its types are not in this project's libs). */
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}
const wasm = (): WasmApi => (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A memory of at least `bytes` bytes for the kernel. */
export function kernelMemory(bytes: number): WasmMemory {
  return new (wasm().Memory)({ initial: Math.ceil(bytes / 65_536) });
}

/** The kernel over `memory`; throws a clear error where WebAssembly SIMD is not available. */
export function instantiateMatmul(memory: WasmMemory): MatmulKernel {
  const bytes = matmulModuleBytes();
  const api = wasm();
  if (!api.validate(bytes)) throw new Error('this runtime has no WebAssembly SIMD (needed by the built-in embedder)');
  const instance = new api.Instance(new api.Module(bytes), { env: { memory } });
  const mm = instance.exports.mm as (...args: number[]) => void; // (x, w, y, T, K, N)
  return (x, w, y, rows) => mm(x, w.at, y, rows, w.inner, w.cols);
}
