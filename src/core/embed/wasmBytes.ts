/**
 * Writing a WebAssembly module as bytes: the encodings and a small emitter for the kernels of
 * simdMatmul.ts and int16Matmul.ts. Each kernel module imports `env.memory` and exports
 * functions of i32 parameters and no result.
 */

export function uleb(value: number): number[] {
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

export function sleb(value: number): number[] {
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

/** Opcodes (WebAssembly core 2.0). */
export const OP = {
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
  select: 0x1b,
  f32Load: 0x2a,
  f32Store: 0x38,
  f32Const: 0x43,
  f32Gt: 0x5e,
  f32Div: 0x95,
  f32Max: 0x97,
  simd: 0xfd,
} as const;

/** Fixed-width SIMD opcodes (after the 0xfd prefix). */
export const SIMD = {
  load: 0x00,
  load32Splat: 0x09,
  store: 0x0b,
  const: 0x0c,
  i8x16Shuffle: 0x0d,
  f32x4Nearest: 0x6a,
  f32x4Splat: 0x13,
  f32x4ExtractLane: 0x1f,
  i16x8NarrowI32x4S: 0x85,
  i32x4Add: 0xae,
  i32x4DotI16x8S: 0xba,
  f32x4Abs: 0xe0,
  f32x4Add: 0xe4,
  f32x4Mul: 0xe6,
  f32x4Max: 0xe9,
  i32x4TruncSatF32x4S: 0xf8,
  f32x4ConvertI32x4S: 0xfa,
} as const;

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;

/** The instructions of one function body, and helpers that return one instruction's bytes. */
export class BodyEmitter {
  private readonly code: number[] = [];

  emit(...instructions: number[][]): void {
    for (const bytes of instructions) this.code.push(...bytes);
  }

  get = (i: number): number[] => [OP.localGet, ...uleb(i)];
  set = (i: number): number[] => [OP.localSet, ...uleb(i)];
  int = (v: number): number[] => [OP.i32Const, ...sleb(v)];
  simd = (op: number, ...imm: number[]): number[] => [OP.simd, ...uleb(op), ...imm];
  /** A memory access's immediate: alignment (log2) and a constant offset. */
  memarg = (alignLog2: number, offset: number): number[] => [alignLog2, ...uleb(offset)];
  zero = (): number[] => this.simd(SIMD.const, ...new Array<number>(16).fill(0));
  f32 = (v: number): number[] => [OP.f32Const, ...new Uint8Array(new Float32Array([v]).buffer)];

  /** `for (i = from; i < limit; i += step) body()`, as block/loop/br_if. */
  forLoop(i: number, from: number[], limit: number, step: number, body: () => void): void {
    this.emit(from, this.set(i), [OP.block, OP.void, OP.loop, OP.void]);
    this.emit(this.get(i), this.get(limit), [OP.i32GeU, OP.brIf, 1]);
    body();
    this.emit(this.get(i), this.int(step), [OP.i32Add], this.set(i), [OP.br, 0, OP.end, OP.end]);
  }

  /**
   * The tiling both matrix products use: blocks of `colBlock` columns outside, `rowBlock` rows
   * inside (a block's columns of w stay in cache for every row), then the last 1 to rowBlock − 1
   * rows as one block of their size (one row at a time would read w once per row). `block(rows)`
   * emits one block at locals `n` (column) and `t` (row); `T4` receives T rounded down to rowBlock.
   */
  tiles(
    locals: { n: number; t: number; T: number; T4: number; N: number },
    rowBlock: number,
    colBlock: number,
    block: (rows: number) => void,
  ): void {
    const { n, t, T, T4, N } = locals;
    this.emit(this.get(T), this.int(~(rowBlock - 1)), [OP.i32And], this.set(T4));
    this.forLoop(n, this.int(0), N, colBlock, () => {
      this.forLoop(t, this.int(0), T4, rowBlock, () => block(rowBlock));
      for (let rest = 1; rest < rowBlock; rest++) {
        this.emit(this.get(T), this.get(T4), [OP.i32Sub], this.int(rest), [OP.i32Eq, OP.if, OP.void], this.get(T4), this.set(t));
        block(rest);
        this.emit([OP.end]);
      }
    });
  }

  /** The function with its locals, numbered after the parameters: i32 first, then f32, then v128. */
  body(params: number, locals: { i32?: number; f32?: number; v128?: number }): KernelFunction {
    const groups = (
      [
        [locals.i32, I32],
        [locals.f32, F32],
        [locals.v128, V128],
      ] as const
    ).filter(([n]) => (n ?? 0) > 0);
    const declared = [...uleb(groups.length), ...groups.flatMap(([n, type]) => [...uleb(n!), type])];
    return { params, body: sized([...declared, ...this.code, OP.end]) };
  }
}

/** One exported function: its i32 parameters (no result) and its encoded body. */
export interface KernelFunction {
  params: number;
  body: number[];
}

/** A module importing `env.memory` (at least 1 page) and exporting each function by its name. */
export function kernelModuleBytes(functions: Record<string, KernelFunction>): Uint8Array {
  const names = Object.keys(functions);
  const arities = [...new Set(names.map((n) => functions[n]!.params))];
  const types = arities.flatMap((params) => [0x60, ...uleb(params), ...new Array<number>(params).fill(I32), 0]); // (i32 ×params) → ()
  const exports = names.flatMap((exportName, i) => [...name(exportName), 0x00, ...uleb(i)]);
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, [...uleb(arities.length), ...types]),
    ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, ...uleb(1)]), // import memory, min 1 page
    ...section(3, [...uleb(names.length), ...names.flatMap((n) => uleb(arities.indexOf(functions[n]!.params)))]),
    ...section(7, [...uleb(names.length), ...exports]),
    ...section(10, [...uleb(names.length), ...names.flatMap((n) => functions[n]!.body)]),
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

/** A memory of at least `bytes` bytes for the kernels. */
export function kernelMemory(bytes: number): WasmMemory {
  return new (wasm().Memory)({ initial: Math.ceil(bytes / 65_536) });
}

/** The module's exports over `memory`; throws a clear error where WebAssembly SIMD is not available. */
export function instantiateKernel(bytes: Uint8Array, memory: WasmMemory): Record<string, (...args: number[]) => void> {
  const api = wasm();
  if (!api.validate(bytes)) throw new Error('this runtime has no WebAssembly SIMD (needed by the built-in embedder)');
  const instance = new api.Instance(new api.Module(bytes), { env: { memory } });
  return instance.exports as Record<string, (...args: number[]) => void>;
}
