/**
 * Approximate nearest-neighbour index over hnswlib-wasm (cosine space), with upsert,
 * idempotent delete, slot reuse, automatic growth, filtered search and byte serialization.
 *
 * hnswlib semantics this class relies on (measured on hnswlib-wasm 0.8.2):
 * - `addPoint(v, label, false)` on an existing live label updates that element in place.
 * - This build enables "replace deleted" (initIndex takes 4 arguments; allow_replace_deleted is
 *   on). `addPoint(v, newLabel, true)` then reuses a deleted slot (evicting the deleted label
 *   from the label table) or appends. `addPoint` on a *deleted* label throws, so a deleted label
 *   is revived with `unmarkDelete` and then updated. `replaceDeleted=true` on a label that still
 *   exists would create a duplicate, so it is only used for labels the index does not hold.
 * - `markDelete` of an unknown or already deleted label throws; `getCurrentCount()` counts deleted
 *   elements; the wrapper refuses any `addPoint` when `getCurrentCount() === getMaxElements()`,
 *   even an update or a slot reuse, so capacity is grown first.
 * - `searchKnn` throws when k > maxElements, returns fewer than k when fewer live elements exist,
 *   and accepts a JS filter callback (about 2x the cost of an unfiltered search).
 * - `getUsedLabels()`/`getDeletedLabels()` are kept up to date (also after `readIndex`), but each
 *   call copies the whole list into JS, so live and deleted labels are tracked here as well.
 */
import * as fs from 'node:fs';
import { CorruptIndexError, HnswlibError } from './errors';
import { loadHnswlib, VIRTUAL_DIR, type HnswlibRuntime, type NativeHnsw } from './hnswlib';
import { checkDim, checkLabel, checkVector, type LabelFilter, type VectorHit, type VectorIndex, type VectorSpace } from './types';

export interface HnswParams {
  dim: number;
  space?: VectorSpace;
  /** Graph degree (hnswlib M). Default 16. */
  M?: number;
  /** Build-time candidate list size. Default 100. */
  efConstruction?: number;
  /** Query-time candidate list size (raised to k when smaller). Default 64. */
  efSearch?: number;
  /** Slots allocated up front; grows automatically. Default 1024. */
  initialCapacity?: number;
  /** Seed of hnswlib's level generator. Default 100. */
  randomSeed?: number;
}

export const HNSW_DEFAULTS = { M: 16, efConstruction: 100, efSearch: 64, initialCapacity: 1024, randomSeed: 100 } as const;

const ENVELOPE_MAGIC = 0x4e484d41; // "AMHN"
const ENVELOPE_VERSION = 1;
const ENVELOPE_HEADER = 48;
const SPACE_CODES: Record<VectorSpace, number> = { cosine: 1 };
const ADD_BATCH = 1000;

/** Name of the scratch file used in the module's in-memory FS. Single-threaded: one at a time. */
const SCRATCH = 'agent-memory-scratch.bin';
const SCRATCH_PATH = `${VIRTUAL_DIR}/${SCRATCH}`;

/** The fields of a serialized index's envelope header. */
interface Envelope {
  dim: number;
  M: number;
  efConstruction: number;
  savedEf: number;
  liveCount: number;
  deletedCount: number;
  nativeLength: number;
  /** Offset of hnswlib's bytes in the payload (after the header and labels). */
  labelsEnd: number;
}

export class HnswIndex implements VectorIndex {
  readonly space: VectorSpace = 'cosine';
  private readonly live = new Set<number>();
  /** Labels we deleted that may still hold a (deleted) slot in the native index. */
  private readonly maybeDeleted = new Set<number>();
  /** Deleted slots in the native index (hnswlib's deleted_elements.size()). */
  private vacant = 0;
  private cap: number;
  private ef: number;
  private disposed = false;

  readonly dim: number;
  readonly M: number;
  readonly efConstruction: number;

  private constructor(
    private readonly rt: HnswlibRuntime,
    private native: NativeHnsw,
    shape: { dim: number; M: number; efConstruction: number; ef: number },
  ) {
    this.dim = shape.dim;
    this.M = shape.M;
    this.efConstruction = shape.efConstruction;
    this.cap = rt.call('getMaxElements', () => native.getMaxElements());
    this.ef = shape.ef;
    rt.call('setEfSearch', () => native.setEfSearch(shape.ef));
  }

  /** A new empty index. Loads hnswlib-wasm on first use. */
  static async create(params: HnswParams): Promise<HnswIndex> {
    const rt = await loadHnswlib();
    return HnswIndex.createWith(rt, params);
  }

  /** Synchronous variant for callers that already hold the runtime. */
  static createWith(rt: HnswlibRuntime, params: HnswParams): HnswIndex {
    const p = resolveParams(params);
    const native = rt.newNative(p.dim);
    try {
      rt.call('initIndex', () => native.initIndex(p.initialCapacity, p.M, p.efConstruction, p.randomSeed));
      return new HnswIndex(rt, native, { dim: p.dim, M: p.M, efConstruction: p.efConstruction, ef: p.efSearch });
    } catch (err) {
      native.delete();
      throw err;
    }
  }

  /** Live vectors. */
  get size(): number {
    return this.live.size;
  }

  /** Slots currently allocated (grows automatically). */
  get capacity(): number {
    return this.cap;
  }

  /** Slots in use, live or deleted (hnswlib's getCurrentCount()). */
  get slotsUsed(): number {
    this.alive();
    return this.rt.call('getCurrentCount', () => this.native.getCurrentCount());
  }

  /** Deleted elements still occupying slots (reused by later inserts). */
  get deletedSlots(): number {
    return this.vacant;
  }

  get efSearch(): number {
    return this.ef;
  }

  setEf(ef: number): void {
    if (!Number.isInteger(ef) || ef < 1) throw new RangeError(`efSearch must be a positive integer, got ${ef}`);
    this.alive();
    this.rt.call('setEfSearch', () => this.native.setEfSearch(ef));
    this.ef = ef;
  }

  has(label: number): boolean {
    return this.live.has(label);
  }

  labels(): number[] {
    return [...this.live];
  }

  /** Insert, or replace the vector of an existing label. Vectors are normalized by hnswlib. */
  add(label: number, vector: ArrayLike<number>): void {
    checkLabel(label);
    checkVector(vector, this.dim, `vector for label ${label}`);
    this.alive();
    const v = vector as Float32Array;
    this.ensureCapacity(1);
    if (this.live.has(label)) {
      this.rt.call(`update label ${label}`, () => this.native.addPoint(v, label, false));
      return;
    }
    if (this.maybeDeleted.has(label) && this.revive(label)) {
      this.rt.call(`update label ${label}`, () => this.native.addPoint(v, label, false));
      this.live.add(label);
      return;
    }
    this.insertNew(label, v);
  }

  /**
   * Bulk insert/replace (last one wins for repeated labels), through hnswlib's `addPoints` in
   * batches of 1000. Same result as `add` in a loop, with fewer JS↔wasm crossings.
   */
  addMany(labels: ArrayLike<number>, vectors: ArrayLike<ArrayLike<number>>): void {
    if (labels.length !== vectors.length) {
      throw new RangeError(`addMany: ${labels.length} labels but ${vectors.length} vectors`);
    }
    this.alive();
    const byLabel = new Map<number, ArrayLike<number>>();
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i]!;
      checkLabel(label);
      checkVector(vectors[i]!, this.dim, `vector for label ${label}`);
      byLabel.set(label, vectors[i]!);
    }
    const updates: [number[], ArrayLike<number>[]] = [[], []];
    const fresh: [number[], ArrayLike<number>[]] = [[], []];
    for (const [label, v] of byLabel) {
      if (this.live.has(label)) {
        updates[0].push(label);
        updates[1].push(v);
      } else if (this.maybeDeleted.has(label)) {
        this.add(label, v); // rare: revive a deleted label
      } else {
        fresh[0].push(label);
        fresh[1].push(v);
      }
    }
    for (let i = 0; i < updates[0].length; i += ADD_BATCH) {
      const ls = updates[0].slice(i, i + ADD_BATCH);
      const vs = updates[1].slice(i, i + ADD_BATCH) as Float32Array[];
      this.ensureCapacity(ls.length);
      this.rt.call('update labels', () => this.native.addPoints(vs, ls, false));
    }
    for (let i = 0; i < fresh[0].length; i += ADD_BATCH) {
      const ls = fresh[0].slice(i, i + ADD_BATCH);
      const vs = fresh[1].slice(i, i + ADD_BATCH) as Float32Array[];
      this.ensureCapacity(ls.length);
      // replaceDeleted=true: the first `vacant` of them take deleted slots, the rest append.
      this.rt.call('add labels', () => this.native.addPoints(vs, ls, true));
      for (const l of ls) this.live.add(l);
      this.consumeVacant(ls.length);
    }
  }

  /** Mark `label` deleted. Returns false (and does nothing) if it is not live. */
  remove(label: number): boolean {
    if (!this.live.has(label)) return false;
    this.alive();
    this.rt.call(`delete label ${label}`, () => this.native.markDelete(label));
    this.live.delete(label);
    this.maybeDeleted.add(label);
    this.vacant++;
    return true;
  }

  /** The stored (normalized) vector of a live label. */
  getVector(label: number): Float32Array | undefined {
    if (!this.live.has(label)) return undefined;
    this.alive();
    return Float32Array.from(this.rt.call(`get label ${label}`, () => this.native.getPoint(label)));
  }

  /**
   * Up to `k` nearest live vectors, best first. With a filter, hnswlib's filtered search is used
   * (the filter runs inside the graph walk, so `k` results come back whenever `k` labels pass and
   * are reachable; with a very selective filter the walk visits most of the graph).
   */
  search(query: ArrayLike<number>, k: number, filter?: LabelFilter): VectorHit[] {
    checkVector(query, this.dim, 'query vector');
    this.alive();
    if (!(k >= 1) || this.live.size === 0) return [];
    const kk = Math.min(Math.floor(k), this.live.size);
    const q = query as Float32Array;
    let res: { distances: number[]; neighbors: number[] };
    if (filter) {
      let thrown: { err: unknown } | undefined;
      // A JS exception unwinding through wasm skips C++ cleanup: catch it here, re-throw after.
      const cb = (label: number): boolean => {
        if (thrown) return false;
        try {
          return filter(label) === true;
        } catch (err) {
          thrown = { err };
          return false;
        }
      };
      res = this.rt.call('search', () => this.native.searchKnn(q, kk, cb));
      if (thrown) throw thrown.err;
    } else {
      res = this.rt.call('search', () => this.native.searchKnn(q, kk, undefined));
    }
    const n = res.neighbors.length;
    const out = new Array<VectorHit>(n);
    for (let i = 0; i < n; i++) {
      const d = Math.min(2, Math.max(0, res.distances[i]!));
      out[i] = { label: res.neighbors[i]!, distance: d, similarity: 1 - d };
    }
    return out;
  }

  /**
   * The index as bytes: a small envelope (params, live and deleted labels) followed by
   * hnswlib's own index file (its `writeIndex` output, captured at the syscall level).
   */
  serialize(): Uint8Array {
    const chunks: Uint8Array[] = [];
    const { envelope, length } = this.serializeTo((chunk) => chunks.push(chunk.slice()));
    const out = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    out.set(envelope, 0);
    return out;
  }

  /**
   * The same bytes as {@link serialize}, handed to `sink` as they are produced (views valid only
   * during the call: copy or write them out at once), so no copy of the index is held. The
   * envelope is emitted first with its hnswlib length still 0; the final one is returned (same
   * size) for the caller to write over it.
   */
  serializeTo(sink: (chunk: Uint8Array) => void): { envelope: Uint8Array; length: number } {
    this.alive();
    const rt = this.rt;
    const labels = new Uint8Array(4 * (this.live.size + this.maybeDeleted.size));
    const ldv = new DataView(labels.buffer);
    let off = 0;
    for (const l of this.live) {
      ldv.setUint32(off, l, true);
      off += 4;
    }
    for (const l of this.maybeDeleted) {
      ldv.setUint32(off, l, true);
      off += 4;
    }
    sink(this.envelope(0));
    if (labels.length) sink(labels);
    let captured: { bytes: number };
    try {
      captured = rt.captureWrites(SCRATCH_PATH, () => rt.call('writeIndex', () => this.native.writeIndex(SCRATCH)), sink);
    } finally {
      rt.truncateMemFile(SCRATCH_PATH);
    }
    if (captured.bytes === 0) throw new HnswlibError('hnswlib: writeIndex produced no bytes');
    return { envelope: this.envelope(captured.bytes), length: ENVELOPE_HEADER + labels.length + captured.bytes };
  }

  private envelope(nativeLength: number): Uint8Array {
    const buf = new Uint8Array(ENVELOPE_HEADER);
    const dv = new DataView(buf.buffer);
    dv.setUint32(0, ENVELOPE_MAGIC, true);
    dv.setUint32(4, ENVELOPE_VERSION, true);
    dv.setUint32(8, this.dim, true);
    dv.setUint32(12, SPACE_CODES[this.space], true);
    dv.setUint32(16, this.M, true);
    dv.setUint32(20, this.efConstruction, true);
    dv.setUint32(24, this.ef, true);
    dv.setUint32(28, this.live.size, true);
    dv.setUint32(32, this.maybeDeleted.size, true);
    dv.setUint32(36, this.vacant, true);
    dv.setFloat64(40, nativeLength, true);
    return buf;
  }

  /**
   * Rebuilds an index from {@link serialize} output. `params.dim`, when given, must match;
   * `efSearch` and `initialCapacity` override the saved ones. Malformed bytes throw
   * {@link CorruptIndexError}.
   */
  static async deserialize(bytes: Uint8Array, params: Partial<HnswParams> = {}): Promise<HnswIndex> {
    const rt = await loadHnswlib();
    return HnswIndex.deserializeWith(rt, bytes, params);
  }

  static deserializeWith(rt: HnswlibRuntime, bytes: Uint8Array, params: Partial<HnswParams> = {}): HnswIndex {
    const env = HnswIndex.readEnvelope(bytes, bytes.length, params);
    if (bytes.length < env.labelsEnd) throw new CorruptIndexError('bad-payload', 'HNSW payload too short for its labels');
    return HnswIndex.fromNative(rt, env, bytes.subarray(ENVELOPE_HEADER, env.labelsEnd), params, () => {
      try {
        rt.writeMemFile(SCRATCH_PATH, bytes.subarray(env.labelsEnd));
        return true;
      } catch (e) {
        rt.truncateMemFile(SCRATCH_PATH);
        throw e;
      }
    });
  }

  /**
   * Like {@link deserialize}, from `length` bytes of the open file `fd` at `offset` (what
   * {@link serializeTo} wrote there), without reading them into memory: hnswlib reads its part
   * straight from the file into its heap. The caller checks the bytes (checksum) first.
   */
  static async loadFromFile(fd: number, offset: number, length: number, params: Partial<HnswParams> = {}): Promise<HnswIndex> {
    const rt = await loadHnswlib();
    const read = (at: number, n: number): Uint8Array => {
      const buf = new Uint8Array(n);
      let done = 0;
      while (done < n) {
        const got = fs.readSync(fd, buf, done, n - done, offset + at + done);
        if (got <= 0) break;
        done += got;
      }
      return buf.subarray(0, done);
    };
    const env = HnswIndex.readEnvelope(read(0, Math.min(length, ENVELOPE_HEADER)), length, params);
    const labels = read(ENVELOPE_HEADER, env.labelsEnd - ENVELOPE_HEADER);
    if (labels.length !== env.labelsEnd - ENVELOPE_HEADER)
      throw new CorruptIndexError('bad-payload', 'HNSW payload too short for its labels');
    return HnswIndex.fromNative(rt, env, labels, params, (readIndex) => {
      rt.readFromHostFile(SCRATCH_PATH, fd, offset + env.labelsEnd, env.nativeLength, readIndex);
      return false;
    });
  }

  /** Parses and checks the envelope header; `total`: the payload's full length. */
  private static readEnvelope(head: Uint8Array, total: number, params: Partial<HnswParams>): Envelope {
    const bad = (reason: 'bad-payload' | 'mismatch' | 'unsupported-version', msg: string) => new CorruptIndexError(reason, msg);
    if (head.length < ENVELOPE_HEADER || total < ENVELOPE_HEADER) throw bad('bad-payload', `HNSW payload too short (${total} bytes)`);
    const dv = new DataView(head.buffer, head.byteOffset, ENVELOPE_HEADER);
    if (dv.getUint32(0, true) !== ENVELOPE_MAGIC) throw bad('bad-payload', 'not a serialized HnswIndex (bad magic)');
    const version = dv.getUint32(4, true);
    if (version !== ENVELOPE_VERSION) throw bad('unsupported-version', `HnswIndex envelope version ${version} is not supported`);
    const env: Envelope = {
      dim: dv.getUint32(8, true),
      M: dv.getUint32(16, true),
      efConstruction: dv.getUint32(20, true),
      savedEf: dv.getUint32(24, true),
      liveCount: dv.getUint32(28, true),
      deletedCount: dv.getUint32(32, true),
      nativeLength: dv.getFloat64(40, true),
      labelsEnd: 0,
    };
    const spaceCode = dv.getUint32(12, true);
    if (spaceCode !== SPACE_CODES.cosine) throw bad('bad-payload', `unknown vector space code ${spaceCode}`);
    if (params.dim !== undefined && params.dim !== env.dim) throw bad('mismatch', `index has dimension ${env.dim}, expected ${params.dim}`);
    if (params.space !== undefined && params.space !== 'cosine')
      throw bad('mismatch', `index space is cosine, expected ${String(params.space)}`);
    env.labelsEnd = ENVELOPE_HEADER + 4 * (env.liveCount + env.deletedCount);
    if (env.labelsEnd + env.nativeLength !== total) {
      throw bad('bad-payload', `HNSW payload length mismatch (${total} bytes, envelope says ${env.labelsEnd + env.nativeLength})`);
    }
    checkDim(env.dim);
    return env;
  }

  /**
   * A native index read by `load` (given the readIndex call to make; returns whether the
   * scratch file must be emptied afterwards), checked against the envelope, with its labels.
   */
  private static fromNative(
    rt: HnswlibRuntime,
    env: Envelope,
    labels: Uint8Array,
    params: Partial<HnswParams>,
    load: (readIndex: () => void) => boolean,
  ): HnswIndex {
    const bad = (msg: string) => new CorruptIndexError('bad-payload', msg);
    const native = rt.newNative(env.dim);
    try {
      const readIndex = () => rt.call('readIndex', () => native.readIndex(SCRATCH, Math.max(0, params.initialCapacity ?? 0)));
      let cleanup = false;
      try {
        cleanup = load(readIndex);
        if (cleanup) readIndex();
      } finally {
        if (cleanup) rt.truncateMemFile(SCRATCH_PATH);
      }
      const nativeDim = rt.call('getNumDimensions', () => native.getNumDimensions());
      const count = rt.call('getCurrentCount', () => native.getCurrentCount());
      const used = rt.call('getUsedLabels', () => native.getUsedLabels().length);
      if (nativeDim !== env.dim || count < env.liveCount || used !== env.liveCount) {
        throw bad(`HNSW payload disagrees with its envelope (dim ${nativeDim}/${env.dim}, live ${used}/${env.liveCount}, slots ${count})`);
      }
      const ef = params.efSearch ?? (env.savedEf || HNSW_DEFAULTS.efSearch);
      const index = new HnswIndex(rt, native, { dim: env.dim, M: env.M, efConstruction: env.efConstruction, ef });
      const dv = new DataView(labels.buffer, labels.byteOffset, labels.byteLength);
      let off = 0;
      for (let i = 0; i < env.liveCount; i++, off += 4) index.live.add(dv.getUint32(off, true));
      for (let i = 0; i < env.deletedCount; i++, off += 4) index.maybeDeleted.add(dv.getUint32(off, true));
      if (index.live.size !== env.liveCount) throw bad('duplicate live labels in HNSW payload');
      index.vacant = count - env.liveCount;
      if (index.vacant === 0) index.maybeDeleted.clear();
      return index;
    } catch (err) {
      native.delete();
      if (err instanceof CorruptIndexError) throw err;
      throw new CorruptIndexError('bad-payload', `hnswlib could not read the index: ${(err as Error).message}`, undefined, { cause: err });
    }
  }

  /** Frees the native index. The object is unusable afterwards. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.native.delete();
    this.live.clear();
    this.maybeDeleted.clear();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  // ---- internals ----

  private alive(): void {
    if (this.disposed) throw new Error('HnswIndex used after dispose()');
  }

  private insertNew(label: number, v: Float32Array): void {
    // replaceDeleted=true: takes a deleted slot if there is one, else appends.
    this.rt.call(`add label ${label}`, () => this.native.addPoint(v, label, true));
    this.live.add(label);
    this.consumeVacant(1);
  }

  /** `n` new labels were added with replaceDeleted: that many deleted slots (at most) were reused. */
  private consumeVacant(n: number): void {
    this.vacant = Math.max(0, this.vacant - n);
    // Which deleted labels got evicted is unknown; once none are left, none can be revived.
    if (this.vacant === 0) this.maybeDeleted.clear();
  }

  /** Un-deletes `label` if its slot was not reused. */
  private revive(label: number): boolean {
    this.maybeDeleted.delete(label);
    try {
      this.native.unmarkDelete(label);
    } catch (err) {
      const native = this.rt.nativeException(err);
      if (native && /label not found/i.test(native.message)) return false; // slot reused by another label
      if (native) throw new HnswlibError(`hnswlib: revive label ${label} failed: ${native.message}`, native.type);
      throw this.rt.toError(err, `revive label ${label}`);
    }
    this.vacant--;
    if (this.vacant === 0) this.maybeDeleted.clear();
    return true;
  }

  private ensureCapacity(extra: number): void {
    const used = this.rt.call('getCurrentCount', () => this.native.getCurrentCount());
    const need = used + extra;
    if (need <= this.cap) return;
    const next = Math.max(need, this.cap + Math.max(256, this.cap >> 1));
    this.rt.call(`resizeIndex to ${next}`, () => this.native.resizeIndex(next));
    this.cap = this.rt.call('getMaxElements', () => this.native.getMaxElements());
  }
}

function resolveParams(params: HnswParams): Required<HnswParams> {
  if (!params || typeof params !== 'object') throw new TypeError('HnswIndex.create needs params');
  checkDim(params.dim);
  const space = params.space ?? 'cosine';
  if (space !== 'cosine') throw new RangeError(`unsupported vector space ${String(space)} (only cosine)`);
  const p = {
    dim: params.dim,
    space,
    M: params.M ?? HNSW_DEFAULTS.M,
    efConstruction: params.efConstruction ?? HNSW_DEFAULTS.efConstruction,
    efSearch: params.efSearch ?? HNSW_DEFAULTS.efSearch,
    initialCapacity: params.initialCapacity ?? HNSW_DEFAULTS.initialCapacity,
    randomSeed: params.randomSeed ?? HNSW_DEFAULTS.randomSeed,
  };
  checkIntegerParams(p);
  return p;
}

function checkIntegerParams(p: Required<HnswParams>): void {
  for (const key of ['M', 'efConstruction', 'efSearch', 'initialCapacity'] as const) {
    if (!Number.isInteger(p[key]) || p[key] < 1) throw new RangeError(`${key} must be a positive integer, got ${p[key]}`);
  }
  if (p.M < 2) throw new RangeError(`M must be at least 2, got ${p.M}`);
  if (!Number.isInteger(p.randomSeed) || p.randomSeed < 0) throw new RangeError(`randomSeed must be a non-negative integer`);
}
