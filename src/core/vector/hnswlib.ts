/**
 * Loads hnswlib-wasm 0.8.2 once per thread, in plain Node, in a worker thread and inside an
 * esbuild CJS bundle, and gives the rest of the vector layer three things the package does
 * not: real `Error`s, quiet consoles, and byte access to its in-memory file system.
 *
 * What the package does, and what this file does about it:
 * - It is an Emscripten build for the *web* (ENVIRONMENT_IS_WEB hard-wired): its factory throws
 *   unless `typeof window == 'object'`. We define `globalThis.window = globalThis` only until the
 *   factory has passed that check (we take it away as soon as it asks to instantiate the wasm).
 * - The wasm is inlined as a base64 data: URI inside the glue, so there is no .wasm file to
 *   locate (neither under tsx nor in a bundle).
 * - On load it mounts IDBFS and syncs it, which in Node aborts the module
 *   ("Assertion failed: IDBFS used, but indexedDB not supported") and logs three lines. We
 *   replace the `syncIdb_js` import by a no-op that reports success, before instantiation.
 * - `FS` is not exported (reading `lib.FS` aborts the module) and `writeIndex`/`readIndex` only
 *   talk to that in-memory FS. We keep the wasm import object (captured from
 *   `WebAssembly.instantiate`) and drive its syscalls (`__syscall_openat`, `fd_read`,
 *   `fd_write`, `fd_seek`, `fd_close`) ourselves: that is direct access to the same FS, with no
 *   IndexedDB emulation. `writeIndex` output is taken straight from its `fd_write` calls
 *   ({@link HnswlibRuntime.captureWrites}); `readIndex` input is written into the FS first.
 * - Its heap is capped at 2 GiB and never shrinks; embind objects have no finalizer (call
 *   `.delete()`).
 * - C++ exceptions surface as `WebAssembly.Exception`; {@link HnswlibRuntime.call} turns them into
 *   {@link HnswlibError} and frees the exception object (each one leaks ~150 bytes otherwise).
 */
import { HnswlibError } from './errors';
import {
  AT_FDCWD,
  O_CREAT,
  O_RDONLY,
  O_TRUNC,
  O_WRONLY,
  SEEK_END,
  SEEK_SET,
  wrapForCapture,
  type CaptureState,
  type WasmEnv,
} from './hnswlibSyscalls';
import { orUndefined } from '../util/orUndefined';

/** The embind `HierarchicalNSW` object as this build really exposes it (the shipped typings differ). */
export interface NativeHnsw {
  initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
  /** Reads `/hnswlib-index/<filename>`; maxElements 0 keeps the saved capacity. Returns undefined. */
  readIndex(filename: string, maxElements: number): void;
  /** Writes `/hnswlib-index/<filename>`. Returns undefined. */
  writeIndex(filename: string): void;
  resizeIndex(newMaxElements: number): void;
  addPoint(point: Float32Array | number[], label: number, replaceDeleted: boolean): void;
  addPoints(points: Float32Array[], labels: number[], replaceDeleted: boolean): void;
  markDelete(label: number): void;
  unmarkDelete(label: number): void;
  searchKnn(
    query: Float32Array | number[],
    k: number,
    filter: ((label: number) => boolean) | undefined,
  ): { distances: number[]; neighbors: number[] };
  getPoint(label: number): number[];
  /** Live labels (a fresh JS array each call). */
  getUsedLabels(): number[];
  /** Labels marked deleted whose slots were not reused yet. */
  getDeletedLabels(): number[];
  getMaxElements(): number;
  /** Counts deleted (marked) elements too. */
  getCurrentCount(): number;
  getNumDimensions(): number;
  getEfSearch(): number;
  setEfSearch(ef: number): void;
  /** Frees the C++ object. Embind attaches no finalizer to it: without this it leaks. */
  delete(): void;
  isDeleted(): boolean;
}

// Wasm exports and imports are plain functions (no `this`): typed as properties so they may be destructured.
interface WasmExports {
  memory: { readonly buffer: ArrayBuffer };
  malloc: (size: number) => number;
  free: (ptr: number) => void;
  __cpp_exception?: unknown;
}

/** The parts of the Emscripten module object we touch (all of them safe to read). */
export interface HnswlibModule {
  HierarchicalNSW: new (space: 'cosine' | 'ip' | 'l2', dim: number, autoSaveFilename: string) => NativeHnsw;
  setIdbfsSynced(ok: boolean): void;
  getExceptionMessage?(ex: unknown): [string, string | undefined];
  ___thrown_object_from_unwind_exception?(unwindHeader: number): number;
  ___cxa_decrement_exception_refcount?(ptr: number): void;
  asm: WasmExports;
}

/** Where hnswlib-wasm's `writeIndex(name)`/`readIndex(name)` put files: `${VIRTUAL_DIR}/${name}`. */
export const VIRTUAL_DIR = '/hnswlib-index';

const CHUNK = 1 << 20;

type LogSink = (level: 'log' | 'warn' | 'error', text: string) => void;
let logSink: LogSink | undefined;

/** Where hnswlib-wasm's own console output goes (default: nowhere). For debugging. */
export function setHnswlibLogSink(sink: LogSink | undefined): void {
  logSink = sink;
}

/** Lines hnswlib-wasm/Emscripten print on their own; everything else is passed through. */
const NOISE =
  /^(EmscriptenFileSystemManager|[a-e]\. (start syncFS|jsFS|IDBFS|Calling sync)|Aborted\(|-{20,}|Error initializing the library|WriteIndex filename|AutoSave|Embind found a leaked|`\w+` is (a library symbol|not longer defined)|The maximum number of elements|Failed to read the index)/;

/** A loaded hnswlib-wasm, with error wrapping and access to its in-memory file system. */
export class HnswlibRuntime {
  /** @internal */
  constructor(
    readonly module: HnswlibModule,
    private readonly env: WasmEnv,
    private readonly capture: CaptureState,
  ) {}

  /** A new, uninitialised native index (call `initIndex` or `readIndex`). Caller owns `.delete()`. */
  newNative(dim: number): NativeHnsw {
    // '' = no auto-save: otherwise every add/delete would rewrite the whole index file.
    return this.call('create HierarchicalNSW', () => new this.module.HierarchicalNSW('cosine', dim, ''));
  }

  /** Runs `fn`, turning whatever hnswlib-wasm throws into an {@link HnswlibError}. */
  call<T>(context: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw this.toError(err, context);
    }
  }

  /** The C++ exception type and message of a `WebAssembly.Exception`, if it is one; frees it. */
  nativeException(err: unknown): { type: string; message: string } | undefined {
    const WasmException = wasmGlobal().Exception;
    if (!WasmException || !(err instanceof WasmException)) return undefined;
    const ex = err as { message?: unknown; getArg?(tag: unknown, i: number): number; is?(tag: unknown): boolean };
    let type = 'exception';
    let message = '';
    const pair = Array.isArray(ex.message) ? ex.message : orUndefined(() => this.module.getExceptionMessage?.(err));
    if (Array.isArray(pair)) {
      type = String(pair[0] ?? type);
      message = pair[1] === undefined ? '' : String(pair[1]);
    }
    // Free the C++ exception object: nothing else will once it has escaped to JS.
    const tag = this.module.asm.__cpp_exception;
    orUndefined(() => {
      if (tag && ex.is?.(tag) && ex.getArg) {
        const ptr = this.module.___thrown_object_from_unwind_exception?.(ex.getArg(tag, 0));
        if (ptr) this.module.___cxa_decrement_exception_refcount?.(ptr);
      }
    });
    return { type, message };
  }

  toError(err: unknown, context: string): Error {
    if (err instanceof HnswlibError) return err;
    const native = this.nativeException(err);
    if (native) {
      return new HnswlibError(`hnswlib: ${context} failed: ${native.message || native.type}`, native.type, { cause: err });
    }
    if (err instanceof Error) {
      // Embind BindingError/TypeError (bad argument) or a wasm trap (RuntimeError).
      return new HnswlibError(`hnswlib: ${context} failed: ${err.message}`, undefined, { cause: err });
    }
    return new HnswlibError(`hnswlib: ${context} failed: ${String(err)}`, undefined, { cause: err });
  }

  // ---- in-memory file system (the module's MEMFS), through its own syscalls ----

  private heap(): Uint8Array {
    return new Uint8Array(this.module.asm.memory.buffer);
  }

  private view(): DataView {
    return new DataView(this.module.asm.memory.buffer);
  }

  private open(path: string, flags: number): number {
    const { malloc, free } = this.module.asm;
    const bytes = Buffer.from(path + '\0', 'utf8');
    const pathPtr = malloc(bytes.length);
    const modePtr = malloc(4);
    try {
      this.heap().set(bytes, pathPtr);
      this.view().setInt32(modePtr, 0o644, true);
      const fd = this.env.__syscall_openat(AT_FDCWD, pathPtr, flags, modePtr);
      if (fd < 0) throw new HnswlibError(`hnswlib: cannot open ${path} in its in-memory FS (errno ${-fd})`);
      return fd;
    } finally {
      free(pathPtr);
      free(modePtr);
    }
  }

  /**
   * Runs `fn` (which makes the C++ side write the file `path`) and returns what it wrote, taken
   * straight from its `fd_write` calls: the bytes never go into the in-memory FS, whose
   * 1.125x-growth appends made `writeIndex` copy a 20 MB index ~25 times.
   */
  captureWrites(path: string, fn: () => void, sink?: (chunk: Uint8Array) => void): { chunks: Uint8Array[]; bytes: number } {
    const c = this.capture;
    if (c.path !== undefined) throw new Error('captureWrites is not re-entrant');
    c.path = path;
    c.fds.clear();
    c.chunks = [];
    c.bytes = 0;
    c.sink = sink;
    c.sinkError = undefined;
    try {
      fn();
      // fn() sets sinkError through the wrapped wasm imports (invisible to TypeScript's narrowing). Rethrows exactly
      // what the sink threw: boxed, so that even a thrown `undefined` is not lost.
      const failed = c.sinkError as CaptureState['sinkError'];
      if (failed) throw failed.thrown;
      return { chunks: c.chunks, bytes: c.bytes };
    } finally {
      c.sinkError = undefined;
      c.path = undefined;
      c.fds.clear();
      c.chunks = [];
      c.bytes = 0;
      c.sink = undefined;
    }
  }

  /**
   * Runs `fn` (which makes the C++ side read the file `path`) with `path` standing for
   * `length` bytes of the host file `hostFd` from `hostOffset`: its reads are served by
   * `fs.readSync` straight into the wasm heap. The in-memory file only gets the right size
   * (its zero-filled storage is never written, so it costs no memory): loading an index no
   * longer holds it in JS and in the in-memory FS on top of the heap.
   */
  readFromHostFile(path: string, hostFd: number, hostOffset: number, length: number, fn: () => void): void {
    const c = this.capture;
    if (c.redirect) throw new Error('readFromHostFile is not re-entrant');
    this.sizeMemFile(path, length);
    c.redirect = { path, fds: new Set(), hostFd, hostOffset, length };
    try {
      fn();
      if (c.redirect.error) throw c.redirect.error.thrown;
    } finally {
      c.redirect = undefined;
      this.truncateMemFile(path);
    }
  }

  /** Creates or truncates `path` and gives it `length` zero bytes, writing only its last byte. */
  private sizeMemFile(path: string, length: number): void {
    const { malloc, free } = this.module.asm;
    const fd = this.open(path, O_WRONLY | O_CREAT | O_TRUNC);
    const scratch = malloc(16);
    try {
      if (length === 0) return;
      this.seek(fd, length - 1, SEEK_SET, scratch);
      this.heap()[scratch + 12] = 0;
      const dv = this.view();
      dv.setUint32(scratch, scratch + 12, true);
      dv.setUint32(scratch + 4, 1, true);
      const errno = this.env.fd_write(fd, scratch, 1, scratch + 8);
      if (errno !== 0) throw new HnswlibError(`hnswlib: sizing ${path} in its in-memory FS failed (errno ${errno})`);
    } finally {
      free(scratch);
      this.env.fd_close(fd);
    }
  }

  private seek(fd: number, offset: number, whence: number, scratch: number): void {
    const errno = this.env.fd_seek(fd, offset >>> 0, Math.floor(offset / 2 ** 32), whence, scratch);
    if (errno !== 0) throw new HnswlibError(`hnswlib: seek in its in-memory FS failed (errno ${errno})`);
  }

  /** Writes `data` to `path` in the module's FS (created or truncated). */
  writeMemFile(path: string, data: Uint8Array): void {
    const { malloc, free } = this.module.asm;
    const fd = this.open(path, O_WRONLY | O_CREAT | O_TRUNC);
    const buf = malloc(Math.min(CHUNK, Math.max(1, data.length)));
    const iov = malloc(16);
    try {
      if (data.length > 1) {
        // Write the last byte first so the file's storage is allocated once at full size.
        this.seek(fd, data.length - 1, SEEK_SET, iov);
        this.heap()[buf] = data[data.length - 1]!;
        const dv = this.view();
        dv.setUint32(iov, buf, true);
        dv.setUint32(iov + 4, 1, true);
        const errno = this.env.fd_write(fd, iov, 1, iov + 8);
        if (errno !== 0) throw new HnswlibError(`hnswlib: writing ${path} in its in-memory FS failed (errno ${errno})`);
        this.seek(fd, 0, SEEK_SET, iov);
      }
      let off = 0;
      while (off < data.length) {
        const n = Math.min(CHUNK, data.length - off);
        this.heap().set(data.subarray(off, off + n), buf);
        const dv = this.view();
        dv.setUint32(iov, buf, true);
        dv.setUint32(iov + 4, n, true);
        const errno = this.env.fd_write(fd, iov, 1, iov + 8);
        if (errno !== 0) throw new HnswlibError(`hnswlib: writing ${path} in its in-memory FS failed (errno ${errno})`);
        const written = this.view().getUint32(iov + 8, true);
        if (written === 0) throw new HnswlibError(`hnswlib: writing ${path} in its in-memory FS made no progress`);
        off += written;
      }
    } finally {
      free(buf);
      free(iov);
      this.env.fd_close(fd);
    }
  }

  /**
   * Reads `path` from the module's FS into the buffer `allocate(size)` returns (which must be
   * exactly `size` bytes long), so a caller can read straight into a larger envelope.
   */
  readMemFile(path: string, allocate: (size: number) => Uint8Array = (n) => new Uint8Array(n)): Uint8Array {
    const { malloc, free } = this.module.asm;
    const fd = this.open(path, O_RDONLY);
    const iov = malloc(16);
    let buf = 0;
    try {
      // Size: seek to the end (64-bit result written at iov), then back.
      let errno = this.env.fd_seek(fd, 0, 0, SEEK_END, iov);
      if (errno !== 0) throw new HnswlibError(`hnswlib: seeking ${path} failed (errno ${errno})`);
      const size = this.view().getUint32(iov, true) + this.view().getUint32(iov + 4, true) * 2 ** 32;
      errno = this.env.fd_seek(fd, 0, 0, SEEK_SET, iov);
      if (errno !== 0) throw new HnswlibError(`hnswlib: seeking ${path} failed (errno ${errno})`);
      const out = allocate(size);
      if (out.length !== size) throw new Error('readMemFile: allocate() returned a buffer of the wrong size');
      buf = malloc(Math.min(CHUNK, Math.max(1, size)));
      let off = 0;
      while (off < size) {
        const want = Math.min(CHUNK, size - off);
        const dv = this.view();
        dv.setUint32(iov, buf, true);
        dv.setUint32(iov + 4, want, true);
        errno = this.env.fd_read(fd, iov, 1, iov + 8);
        if (errno !== 0) throw new HnswlibError(`hnswlib: reading ${path} failed (errno ${errno})`);
        const got = this.view().getUint32(iov + 8, true);
        if (got === 0) throw new HnswlibError(`hnswlib: ${path} ended after ${off} of ${size} bytes`);
        out.set(this.heap().subarray(buf, buf + got), off);
        off += got;
      }
      return out;
    } finally {
      if (buf) free(buf);
      free(iov);
      this.env.fd_close(fd);
    }
  }

  /** Empties `path` in the module's FS so its bytes do not stay resident (there is no unlink import). */
  truncateMemFile(path: string): void {
    try {
      this.env.fd_close(this.open(path, O_WRONLY | O_CREAT | O_TRUNC));
    } catch {
      // best effort
    }
  }
}

/** The WebAssembly global (its types are not in this project's libs). */
interface WasmGlobal {
  instantiate: (...args: unknown[]) => Promise<unknown>;
  Exception?: new (...args: never[]) => object;
}
const wasmGlobal = (): WasmGlobal => (globalThis as unknown as { WebAssembly: WasmGlobal }).WebAssembly;

let loading: Promise<HnswlibRuntime> | undefined;

/** Loads hnswlib-wasm once per thread (memoized; a failed load may be retried). */
export function loadHnswlib(): Promise<HnswlibRuntime> {
  if (!loading) {
    loading = doLoad();
    loading.catch(() => (loading = undefined));
  }
  return loading;
}

/** The Emscripten factory module of hnswlib-wasm 0.8.2 (what the package's `loadHnswlib` wraps). */
interface FactoryShape {
  default(): Promise<
    HnswlibModule & { EmscriptenFileSystemManager?: { initializeFileSystem(fsType: 'IDBFS'): void; isInitialized(): boolean } }
  >;
}

async function doLoad(): Promise<HnswlibRuntime> {
  const globalsBefore = new Set(Reflect.ownKeys(globalThis));
  const state: LoadState = { env: undefined, module: undefined };
  const capture: CaptureState = {
    path: undefined,
    fds: new Set(),
    chunks: [],
    bytes: 0,
    sink: undefined,
    memory: undefined,
    redirect: undefined,
    sinkError: undefined,
    scratch: 0,
  };
  const unhook = hookInstantiate(state, capture);
  const unquiet = quietConsole();
  const unfetch = dataUriFetch();
  let module: HnswlibModule;
  try {
    module = await importHnswlib();
  } finally {
    unfetch();
    unhook();
    unquiet();
    removeEmscriptenGlobals(globalsBefore);
  }
  const env = checkBuild(module, state.env);
  state.module = module;
  capture.memory = () => module.asm.memory.buffer;
  capture.scratch = module.asm.malloc(16);
  orUndefined(() => module.setIdbfsSynced(true)); // release the lock left by the sync on mount
  return new HnswlibRuntime(module, env, capture);
}

/** What the instantiate hook captured while the factory ran, and the module once it is loaded. */
interface LoadState {
  env: WasmEnv | undefined;
  module: HnswlibModule | undefined;
}

/**
 * Captures the wasm imports (its syscalls) and neutralises the IDBFS sync, which aborts in Node; gives the factory
 * the `window` it insists on. Returns the undo.
 */
function hookInstantiate(state: LoadState, capture: CaptureState): () => void {
  const g = globalThis as Record<string, unknown>;
  const addedWindow = g.window === undefined;
  const wasm = wasmGlobal();
  const originalInstantiate = wasm.instantiate;
  const hook = function (this: unknown, ...args: unknown[]): Promise<unknown> {
    const imports = args[1] as { env?: Partial<WasmEnv> } | undefined;
    const e = imports?.env;
    if (!state.env && e && typeof e.__syscall_openat === 'function' && typeof e.syncIdb_js === 'function') {
      state.env = e as WasmEnv;
      wrapForCapture(state.env, capture);
      e.syncIdb_js = () => {
        // Nothing to sync: we never use IndexedDB. Report success so its sync lock is released.
        const module = state.module;
        if (module) orUndefined(() => module.setIdbfsSynced(true));
      };
      // The factory has passed its `typeof window` check by now; the shim can go.
      if (addedWindow && g.window === globalThis) delete g.window;
    }
    return originalInstantiate.apply(wasm, args);
  };
  wasm.instantiate = hook;
  if (addedWindow) g.window = globalThis;
  return () => {
    if (wasm.instantiate === hook) wasm.instantiate = originalInstantiate;
    if (addedWindow && g.window === globalThis) delete g.window;
  };
}

/**
 * Serves the glue's `fetch` of its own wasm, a base64 data: URI, by decoding it with Buffer.
 * Node's fetch would load undici for it (about 50 ms of a fresh process's start, on the way to an
 * agent's first answer) and decode the 600 KB of base64 in JavaScript. Any other URL goes to the
 * original fetch. Returns the undo.
 */
function dataUriFetch(): () => void {
  const g = globalThis as Record<string, unknown>;
  const original = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  const prefix = /^data:[^;,]*;base64,/;
  const stub = (input: unknown, init?: unknown): Promise<unknown> => {
    if (typeof input === 'string' && prefix.test(input)) {
      const bytes = Buffer.from(input.slice(input.indexOf(',') + 1), 'base64');
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      return Promise.resolve({ ok: true, arrayBuffer: () => Promise.resolve(buffer) });
    }
    const fetch: unknown = original?.value ?? original?.get?.call(globalThis);
    return typeof fetch === 'function'
      ? (fetch as (i: unknown, o?: unknown) => Promise<unknown>)(input, init)
      : Promise.reject(new Error('no fetch'));
  };
  Object.defineProperty(globalThis, 'fetch', { value: stub, writable: true, configurable: true });
  return () => {
    if (g.fetch !== stub) return;
    if (original) Object.defineProperty(globalThis, 'fetch', original);
    else delete g.fetch;
  };
}

/** Quiets the module: it logs on mount, and binds console.log/console.warn as its stdout/stderr. Returns the undo. */
function quietConsole(): () => void {
  const target = console as unknown as Record<string, unknown>;
  const undo: (() => void)[] = [];
  for (const m of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = target[m] as (...a: unknown[]) => void;
    const level = m === 'warn' ? 'warn' : m === 'error' ? 'error' : 'log';
    const wrapper = (...args: unknown[]): void => {
      const text = args.map((a) => (typeof a === 'string' ? a : String(a))).join(' ');
      if (NOISE.test(text)) logSink?.(level, text);
      else original.apply(console, args);
    };
    target[m] = wrapper;
    undo.push(() => {
      if (target[m] === wrapper) target[m] = original;
    });
  }
  return () => undo.forEach((u) => u());
}

/**
 * What the package's `loadHnswlib()` does, without its wait: it mounts the file system, then
 * checks whether the mount is done 100 ms later, and every 100 ms after — 100 ms of every cold
 * start (an agent's first answer waits for the vector index). The mount is synchronous here (the
 * IndexedDB sync is ours, a no-op), so it is checked at once.
 */
async function importHnswlib(): Promise<HnswlibModule> {
  try {
    const factory = (await import('hnswlib-wasm/dist/hnswlib-317962d7.js')) as unknown as FactoryShape;
    const module = await factory.default();
    const files = module.EmscriptenFileSystemManager;
    if (!files) throw new Error('unsupported hnswlib-wasm build (no EmscriptenFileSystemManager)');
    if (!files.isInitialized()) files.initializeFileSystem('IDBFS');
    if (!files.isInitialized()) throw new Error('its file system did not mount');
    return module;
  } catch (err) {
    throw new HnswlibError(`hnswlib: loading hnswlib-wasm failed: ${err instanceof Error ? err.message : String(err)}`, undefined, {
      cause: err,
    });
  }
}

/** The build must be the one this file was written against (0.8.x, with Module.asm and these imports). */
function checkBuild(module: HnswlibModule, env: WasmEnv | undefined): WasmEnv {
  if (!env) {
    throw new HnswlibError('hnswlib: could not reach the wasm module (was hnswlib-wasm loaded earlier by other code?)');
  }
  if (!module?.asm?.memory || typeof module.asm.malloc !== 'function' || typeof module.HierarchicalNSW !== 'function') {
    throw new HnswlibError('hnswlib: unsupported hnswlib-wasm build (expected 0.8.x with Module.asm exports)');
  }
  for (const f of ['__syscall_openat', 'fd_read', 'fd_write', 'fd_seek', 'fd_close'] as const) {
    if (typeof env[f] !== 'function') throw new HnswlibError(`hnswlib: unsupported hnswlib-wasm build (no ${f} import)`);
  }
  return env;
}

/**
 * Emscripten's debug build defines ~150 warning getters on globalThis (`buffer`, `FS_createPath`,
 * …) for symbols it did not include. Remove the ones that appeared while we loaded.
 */
function removeEmscriptenGlobals(before: Set<string | symbol>): void {
  for (const key of Reflect.ownKeys(globalThis)) {
    if (before.has(key)) continue;
    const d = Object.getOwnPropertyDescriptor(globalThis, key);
    if (!d || !d.configurable || typeof d.get !== 'function') continue;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- only the getter's source text is read; it is never called
    const src = orUndefined(() => Function.prototype.toString.call(d.get)) ?? '';
    if (/emscripten|library symbol|DEFAULT_LIBRARY_FUNCS_TO_INCLUDE/.test(src)) {
      delete (globalThis as Record<string | symbol, unknown>)[key];
    }
  }
}
