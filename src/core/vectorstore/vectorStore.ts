/**
 * One HNSW index per embedding space over an open Store: label = memories.rid, cosine. The same
 * class indexes the chunks of agent sessions (label = chunks.rid) given their source (source.ts).
 *
 * Source of truth: the `embeddings` table (durable through the store's op log). The index is
 * a cache of it, persisted to `<storeDir>/vectors/<space>.hnsw` with a watermark = the value
 * of the change sequence (migrations/0002_vectors.sql) it is complete up to.
 *
 * - open: load the file and catch up from `vector_dirty` rows newer than its watermark. Only
 *   when the file is missing, damaged, built with other M/efConstruction, ahead of the
 *   database or disagreeing with it after catch-up is the index rebuilt, in the background
 *   (batches, yielding to the event loop) while an ExactIndex over the stored vectors answers
 *   searches, so results never silently degrade.
 * - search/similarities call sync() first: one single-row read when nothing changed, so
 *   every committed write (whoever made it, in whatever transaction) is visible to the next
 *   search without the writer calling this class.
 * - save(): after a store snapshot and on close (the engine calls it; see snapshotWithVectors).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Store } from '../store/store';
import { errorMessage } from '../util/errors';
import { ExactIndex } from '../vector/exactIndex';
import { HnswIndex } from '../vector/hnswIndex';
import { loadIndexFile, removeStaleIndexTemps, saveIndexFile, type IndexFileInfo } from '../vector/indexFile';
import { moveToQuarantine } from '../store/fsutil';
import type { VectorIndex } from '../vector/types';
import { changesSince, currentVectorSeq, liveVectorCount, liveVectorsAfter, pendingChanges, type VectorChange } from './changes';
import { storedSimilarities, storedVectors } from './storedSimilarities';
import { MEMORY_VECTORS, type VectorScope, type VectorSource } from './source';
import { DEFAULT_VECTOR_PARAMS, type VectorIndexParams, type VectorSearcher } from './types';

export interface VectorStoreOptions {
  store: Store;
  /** Embedder.space: names the index file and selects rows of `embeddings`. */
  space: string;
  dimension: number;
  /** What is indexed: memories (default) or session chunks. */
  source?: VectorSource;
  params?: Partial<VectorIndexParams>;
  /** Default `<store.dir>/vectors`. */
  dir?: string;
  /** Background work yields to the event loop after this many vectors… Default 256. */
  rebuildBatch?: number;
  /** …or after this many milliseconds, whichever comes first. Default 15. */
  sliceMs?: number;
  /**
   * Catch-ups of more changes than this run in the background (exact search answers
   * meanwhile) instead of delaying open. Each change costs an HNSW insert (~2–10 ms). Default 500.
   */
  inlineCatchUpMax?: number;
  onWarning?: (message: string) => void;
}

export type VectorStoreState = 'ready' | 'rebuilding' | 'closed';

export interface VectorStoreStats {
  space: string;
  dimension: number;
  state: VectorStoreState;
  size: number;
  watermark: number;
  savedWatermark: number | undefined;
  /** How open() got its index. */
  openedFrom: 'file' | 'rebuild';
  /** The file's changes were caught up in the background (exact search answered meanwhile). */
  backgroundCatchUp: boolean;
  /** Why the index is being (or was) rebuilt. */
  rebuildReason?: string;
  /** Changes applied when catching up from the file's watermark. */
  caughtUp: number;
  rebuildMs?: number;
  /** Slots of the HNSW index (free ones cost address space, not memory; see withHeadroom); undefined while rebuilding. */
  capacity: number | undefined;
}

export class VectorStore implements VectorSearcher {
  readonly space: string;
  readonly dimension: number;
  readonly file: string;
  readonly source: VectorSource;
  /** Space, dimension and source: what every read of the stored vectors is about. */
  private readonly scope: VectorScope;
  private readonly store: Store;
  private readonly params: VectorIndexParams;
  private readonly batch: number;
  private readonly sliceMs: number;
  private hnsw: HnswIndex | undefined;
  /** Answers while the HNSW index is rebuilt. */
  private exact: ExactIndex | undefined;
  private watermark = 0;
  private savedWatermark: number | undefined;
  private rebuilding: Promise<void> | undefined;
  /** Bumped by every rebuild start: a superseded build stops at its next batch. */
  private generation = 0;
  private saving: Promise<IndexFileInfo | undefined> = Promise.resolve(undefined);
  private closed = false;
  private openedFrom: 'file' | 'rebuild' = 'file';
  private rebuildReason: string | undefined;
  private caughtUp = 0;
  private rebuildMs: number | undefined;
  private backgroundCatchUp = false;
  private readonly inlineMax: number;
  readonly warnings: string[] = [];

  private constructor(private readonly opts: VectorStoreOptions) {
    if (!/^[a-z0-9._-]+$/.test(opts.space))
      throw new RangeError(`embedding space name must be file-name safe, got ${JSON.stringify(opts.space)}`);
    this.store = opts.store;
    this.source = opts.source ?? MEMORY_VECTORS;
    this.space = opts.space;
    this.dimension = opts.dimension;
    this.scope = { space: opts.space, dim: opts.dimension, source: this.source };
    this.params = { ...DEFAULT_VECTOR_PARAMS, ...opts.params };
    this.batch = Math.max(1, opts.rebuildBatch ?? 256);
    this.sliceMs = Math.max(1, opts.sliceMs ?? 15);
    this.inlineMax = Math.max(0, opts.inlineCatchUpMax ?? 500);
    this.file = path.join(opts.dir ?? path.join(opts.store.dir, 'vectors'), `${opts.space}${this.source.fileSuffix}.hnsw`);
  }

  /** Opens (load + catch up) or starts a background rebuild; resolves as soon as searches can be answered. */
  static async open(opts: VectorStoreOptions): Promise<VectorStore> {
    const vs = new VectorStore(opts);
    vs.clearIndexFolder();
    await removeStaleIndexTemps(vs.file).catch(() => 0);
    const reason = await vs.tryLoad();
    if (reason !== undefined) {
      vs.openedFrom = 'rebuild';
      vs.startRebuild(reason);
    }
    return vs;
  }

  /**
   * The index folder holds only what can be rebuilt from the embeddings table, so a file in its
   * place (every save would fail) is moved to the store's quarantine/ and the index rebuilt. A
   * read-only opener leaves it (it never saves).
   */
  private clearIndexFolder(): void {
    const folder = path.dirname(this.file);
    let st: fs.Stats;
    try {
      st = fs.statSync(folder);
    } catch {
      return; // absent: the first save creates it
    }
    if (st.isDirectory() || this.store.isReadOnly) return;
    try {
      const kept = moveToQuarantine(this.store.dir, folder);
      this.warn(`${folder} was a file, where the vector indexes are kept: it was moved to ${kept} and the index is rebuilt`);
    } catch (e) {
      this.warn(
        `${folder} is a file, where the vector indexes are kept, and could not be moved away (${errorMessage(e)}): move it, or the index cannot be saved`,
      );
    }
  }

  /** Loads the saved index and catches up; the reason it cannot be used, or undefined on success. */
  private async tryLoad(): Promise<string | undefined> {
    if (!fs.existsSync(this.file)) return 'no index file';
    let index: HnswIndex;
    let watermark: number;
    // The changes since the file's watermark: counted once, to size the index and to catch up.
    let pendingAtLoad: number | undefined;
    try {
      // Room for what the file holds and the changes since it was saved, with headroom: sized
      // from its header, not by counting the database's vectors (a scan of every vector row).
      const loaded = await loadIndexFile(this.file, {
        expectDim: this.dimension,
        efSearch: this.params.efSearch,
        capacityFor: (saved) => withHeadroom(saved.count + (pendingAtLoad = pendingChanges(this.store, saved.watermark, this.source))),
        ...(this.store.fileCipher ? { cipher: this.store.fileCipher } : {}),
      });
      index = loaded.index;
      watermark = loaded.info.watermark;
    } catch (e) {
      return `index file unusable: ${errorMessage(e)}`;
    }
    const fail = (why: string) => {
      index.dispose();
      return why;
    };
    if (index.M !== this.params.M || index.efConstruction !== this.params.efConstruction) {
      return fail(
        `index parameters changed (M ${index.M}→${this.params.M}, efConstruction ${index.efConstruction}→${this.params.efConstruction})`,
      );
    }
    const seq = currentVectorSeq(this.store, this.source);
    if (watermark > seq) return fail(`index watermark ${watermark} is ahead of the database (${seq})`);
    const pending = pendingAtLoad ?? pendingChanges(this.store, watermark, this.source);
    if (pending > this.inlineMax) {
      this.startBackgroundCatchUp(index, watermark, pending);
      return undefined;
    }
    this.hnsw = index;
    this.watermark = watermark;
    this.savedWatermark = watermark;
    this.caughtUp = this.sync();
    const expected = liveVectorCount(this.store, this.scope);
    const held = this.hnsw.size;
    if (held !== expected) {
      this.hnsw.dispose();
      this.hnsw = undefined;
      this.savedWatermark = undefined;
      return `index holds ${held} vectors after catch-up, the database ${expected}`;
    }
    return undefined;
  }

  /**
   * Answers from an exact index over the stored vectors (complete at the returned seq) from now
   * on. It holds them as int8 codes, as the table does (a quarter of float32: 51 MB instead of
   * 205 MB at 100k × 512-d, next to the HNSW index being built), read in pages of rows.
   */
  private useExact(): { seq: number; exact: ExactIndex } {
    this.hnsw?.dispose();
    this.hnsw = undefined;
    const seq = currentVectorSeq(this.store, this.source);
    const expected = liveVectorCount(this.store, this.scope);
    const exact = new ExactIndex({ dim: this.dimension, storage: 'int8', initialCapacity: Math.max(1024, expected) });
    for (let after = 0; ;) {
      const rows = liveVectorsAfter(this.store, this.scope, after, READ_PAGE);
      if (!rows.length) break;
      this.applyTo(exact, rows);
      after = rows[rows.length - 1]!.rid;
    }
    this.exact = exact;
    this.watermark = seq;
    return { seq, exact };
  }

  private track(work: Promise<boolean>, what: string): void {
    const t0 = performance.now();
    const run: Promise<void> = work
      .then((done) => {
        if (done) this.rebuildMs = performance.now() - t0;
      })
      .catch((e) => this.warn(`vector index ${this.space}: background ${what} failed, exact search continues: ${errorMessage(e)}`))
      .finally(() => {
        if (this.rebuilding === run) this.rebuilding = undefined;
      });
    this.rebuilding = run;
  }

  /** Exact index over the stored vectors now; HNSW built in the background, then swapped in. */
  private startRebuild(reason: string): void {
    this.rebuildReason = reason;
    const gen = ++this.generation;
    if (reason !== 'no index file') this.warn(`vector index ${this.space}: rebuilding in the background (${reason})`);
    const { seq, exact } = this.useExact();
    this.track(this.build(seq, exact, gen), 'rebuild');
  }

  /** A long log tail: exact search now, the loaded index brought up to date in the background. */
  private startBackgroundCatchUp(loaded: HnswIndex, fileWatermark: number, pending: number): void {
    const gen = ++this.generation;
    this.backgroundCatchUp = true;
    this.savedWatermark = fileWatermark;
    const { seq } = this.useExact();
    this.track(this.catchUp(loaded, fileWatermark, seq, gen, pending), 'catch-up');
  }

  private async catchUp(h: HnswIndex, from: number, seq0: number, gen: number, pending: number): Promise<boolean> {
    const stale = () => this.closed || gen !== this.generation;
    try {
      // Current vectors of everything changed after the file's watermark: the state at seq0.
      const changes = changesSince(this.store, this.scope, from);
      await this.sliced(changes, (c) => this.applyTo(h, [c]), stale);
    } catch (e) {
      h.dispose();
      if (e instanceof RebuildCancelled) return false;
      throw e;
    }
    this.applyTo(h, changesSince(this.store, this.scope, seq0));
    const seq = currentVectorSeq(this.store, this.source);
    const expected = liveVectorCount(this.store, this.scope);
    if (h.size !== expected) {
      const held = h.size;
      h.dispose();
      this.startRebuild(`index holds ${held} vectors after catch-up, the database ${expected}`);
      return false;
    }
    this.caughtUp = pending;
    this.hnsw = h;
    this.exact = undefined;
    this.watermark = seq;
    this.rebuilding = undefined;
    await this.save().catch((e) => this.warn(`vector index ${this.space}: caught up but not saved: ${errorMessage(e)}`));
    return true;
  }

  /**
   * Builds HNSW from the stored vectors, read in pages of rows by rid, in batches; false when
   * superseded or closed. (`exact`, complete at seq0, answers meanwhile.) The pages hold only rows
   * unchanged since seq0; the rows written meanwhile (a bulk write racing the build) are applied
   * from the change marks afterwards, in slices too. Each vector is so added once: reading it in a
   * page and again as a change made every such vector an HNSW update, which re-links its
   * neighbours and cost ten times an insert (bench/RESULTS-sessions.md).
   */
  private async build(seq0: number, exact: ExactIndex, gen: number): Promise<boolean> {
    const stale = () => this.closed || gen !== this.generation;
    const h = await HnswIndex.create({ dim: this.dimension, ...this.params, initialCapacity: withHeadroom(exact.size) });
    let caught: number;
    try {
      for (let after = 0; ;) {
        const rows = liveVectorsAfter(this.store, this.scope, after, READ_PAGE, seq0);
        if (!rows.length) break;
        after = rows[rows.length - 1]!.rid;
        await this.sliced(
          rows,
          (c) => {
            if (!c.vector) return;
            try {
              h.add(c.rid, c.vector);
            } catch {
              // A zero or non-finite vector: applyTo already warned when the exact index refused it.
            }
          },
          stale,
        );
      }
      await this.sliced([], () => undefined, stale); // yields once even when there was nothing to add
      caught = await this.catchUpSliced(h, seq0, stale);
    } catch (e) {
      h.dispose();
      if (e instanceof RebuildCancelled) return false;
      throw e;
    }
    // Synchronous from here: catch up, swap, persist.
    const seq = currentVectorSeq(this.store, this.source);
    this.applyTo(h, changesSince(this.store, this.scope, caught));
    this.hnsw = h;
    this.exact = undefined;
    this.watermark = seq;
    this.savedWatermark = undefined;
    this.rebuilding = undefined;
    await this.save().catch((e) => this.warn(`vector index ${this.space}: rebuilt but not saved: ${errorMessage(e)}`));
    return true;
  }

  /**
   * Applies the changes after `from` in slices while more than inlineCatchUpMax are waiting (at
   * most a few rounds: writes faster than the inserts are left to the synchronous tail); returns
   * the position applied up to.
   */
  private async catchUpSliced(h: HnswIndex, from: number, stale: () => boolean): Promise<number> {
    let caught = from;
    for (let round = 0; round < 4 && pendingChanges(this.store, caught, this.source) > this.inlineMax; round++) {
      const seq = currentVectorSeq(this.store, this.source);
      const changes = changesSince(this.store, this.scope, caught);
      await this.sliced(changes, (c) => this.applyTo(h, [c]), stale);
      caught = seq;
    }
    return caught;
  }

  /**
   * Runs `fn` over `items` in slices of at most `batch` items or `sliceMs`, yielding to the
   * event loop before each slice (so open() returns and queries run in between).
   * Throws RebuildCancelled when `stale()` becomes true.
   */
  private async sliced<T>(items: T[], fn: (item: T) => void, stale: () => boolean): Promise<void> {
    let i = 0;
    while (i < items.length) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stale()) throw new RebuildCancelled();
      const end = Math.min(items.length, i + this.batch);
      const t0 = performance.now();
      while (i < end) {
        fn(items[i++]!);
        if (performance.now() - t0 >= this.sliceMs) break;
      }
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (stale()) throw new RebuildCancelled();
  }

  get state(): VectorStoreState {
    if (this.closed) return 'closed';
    return this.hnsw ? 'ready' : 'rebuilding';
  }

  /** Resolves when no background rebuild is running (at once when none is). */
  async whenReady(): Promise<void> {
    while (this.rebuilding) await this.rebuilding;
  }

  private get active(): VectorIndex {
    const idx = this.hnsw ?? this.exact;
    if (!idx || this.closed) throw new Error(`vector store ${this.space} is closed`);
    return idx;
  }

  /**
   * Applies every committed change since the watermark. Cheap (one row read) when nothing
   * changed. Returns the number of changes applied.
   */
  sync(): number {
    const idx = this.active;
    const seq = currentVectorSeq(this.store, this.source);
    if (seq === this.watermark) return 0;
    if (seq < this.watermark) {
      // The database went back (an older snapshot was restored): the index cannot be trusted.
      this.startRebuild(`database change sequence ${seq} is behind the index (${this.watermark})`);
      return 0;
    }
    const changes = changesSince(this.store, this.scope, this.watermark);
    this.applyTo(idx, changes);
    this.watermark = seq;
    return changes.length;
  }

  private applyTo(idx: VectorIndex, changes: VectorChange[]): void {
    for (const c of changes) {
      if (c.problem) this.warn(c.problem);
      if (!c.vector) {
        idx.remove(c.rid);
        continue;
      }
      try {
        idx.add(c.rid, c.vector);
      } catch (e) {
        // A zero or non-finite vector has no direction: leave the memory to full-text search.
        idx.remove(c.rid);
        this.warn(`vector of ${this.source.noun} ${c.rid} not indexed: ${errorMessage(e)}`);
      }
    }
  }

  search(query: Float32Array, k: number, filter?: (rid: number) => boolean): { rid: number; similarity: number }[] {
    this.sync();
    const idx = this.active;
    if (idx.size === 0 || !(k >= 1)) return [];
    return idx.search(query, k, filter).map((h) => ({ rid: h.label, similarity: h.similarity }));
  }

  /**
   * Exact cosine with the stored vectors of `rids` (absent: no live vector). Read from the
   * `embeddings` table in one statement, not from the index (see storedSimilarities.ts); after
   * sync() both hold the same live vectors.
   */
  similarities(query: Float32Array, rids: number[]): Map<number, number> {
    this.sync();
    void this.active; // throws when closed
    return storedSimilarities(this.store, this.scope, query, rids);
  }

  /** Stored vectors of live memories (for vector feedback), read like similarities(). */
  vectorsOf(rids: number[]): Map<number, Float32Array> {
    this.sync();
    void this.active; // throws when closed
    return storedVectors(this.store, this.scope, rids);
  }

  /** The stored (normalized) vector of a live memory, if indexed. */
  vectorOf(rid: number): Float32Array | undefined {
    this.sync();
    return (this.active as HnswIndex | ExactIndex).getVector(rid);
  }

  /** Live vectors in the index (after syncing with the database). */
  get size(): number {
    if (this.closed) return 0;
    this.sync();
    return this.hnsw?.size ?? this.exact?.size ?? 0;
  }

  /**
   * Writes the HNSW index to its file (atomically, with the current watermark) if it changed
   * since the last save. Skipped while rebuilding (the rebuild saves when done) and read-only.
   */
  save(): Promise<IndexFileInfo | undefined> {
    const run = async (): Promise<IndexFileInfo | undefined> => {
      if (this.closed || !this.hnsw || this.store.isReadOnly) return undefined;
      this.sync();
      if (this.savedWatermark === this.watermark && fs.existsSync(this.file)) return undefined;
      const wm = this.watermark;
      // saveIndexFile serializes synchronously before its first await: the bytes match `wm`.
      const cipher = this.store.fileCipher;
      const info = await saveIndexFile(this.file, this.hnsw, { watermark: wm }, cipher ? { cipher } : {});
      this.savedWatermark = wm;
      return info;
    };
    this.saving = this.saving.catch(() => undefined).then(run);
    return this.saving;
  }

  stats(): VectorStoreStats {
    return {
      space: this.space,
      dimension: this.dimension,
      state: this.state,
      size: this.size,
      watermark: this.watermark,
      savedWatermark: this.savedWatermark,
      openedFrom: this.openedFrom,
      backgroundCatchUp: this.backgroundCatchUp,
      rebuildReason: this.rebuildReason,
      caughtUp: this.caughtUp,
      rebuildMs: this.rebuildMs,
      capacity: this.hnsw?.capacity,
    };
  }

  /** Stops a running rebuild, saves (unless `save: false`) and frees the index. Idempotent. */
  async close(opts: { save?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.generation++;
    await this.rebuilding;
    if (opts.save !== false) {
      try {
        await this.save();
      } catch (e) {
        this.warn(`vector index ${this.space}: could not save on close: ${errorMessage(e)}`);
      }
    }
    await this.saving.catch(() => undefined);
    this.closed = true;
    this.hnsw?.dispose();
    this.hnsw = undefined;
    this.exact = undefined;
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.opts.onWarning?.(message);
  }
}

class RebuildCancelled extends Error {}

/** Rows per read of the stored vectors when (re)building. */
const READ_PAGE = 2048;

/**
 * Capacity for an index of `count` vectors: +25 % (at least 1,024) of free slots. hnswlib
 * allocates them without writing them, so they cost address space, not memory; without them the
 * first new memory after an open or a rebuild made the index grow — a copy of all its vectors
 * inside the wasm heap, which never shrinks (how much: bench/RESULTS-design-notes.md).
 */
export function withHeadroom(count: number): number {
  return count + Math.max(1024, Math.ceil(count / 4));
}

/** Snapshot the store, then save every vector index (the engine's periodic and shutdown step). */
export async function snapshotWithVectors(store: Store, vectors: Iterable<VectorStore>): Promise<void> {
  await store.snapshot();
  for (const vs of vectors) await vs.save();
}
