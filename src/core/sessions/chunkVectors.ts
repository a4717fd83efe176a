/**
 * The vectors of session chunks (docs/sessions.md "Vectors"): one HNSW index per embedding space
 * over `chunks_vec` (the same VectorStore as memories, over the chunk source), following the
 * store's active space — when the embedder is switched, the chunk index of the new space opens
 * and the chunks without a vector there are embedded in the background, like the ones whose
 * embedding failed when they were logged (ChunkBackfill). Embedding never happens inside a
 * transaction.
 */
import type { Store, Tx } from '../store/store';
import type { Embedder } from '../embed/types';
import { unusableVectorReason } from '../embed/vector';
import { errorMessage } from '../util/errors';
import { WakeSignal, dueAt, msUntil, type BackgroundTask } from '../util/backgroundTask';
import type { ActiveSpace } from '../vectorstore/activeSpace';
import { vectorToBlob } from '../vectorstore/blob';
import { CHUNK_VECTORS } from '../vectorstore/source';
import type { VectorIndexParams } from '../vectorstore/types';
import { VectorStore } from '../vectorstore/vectorStore';

export interface ChunkSpaceOptions {
  params?: Partial<VectorIndexParams>;
  /** Where index files live (default `<store.dir>/vectors`). */
  dir?: string;
  onWarning?: (message: string) => void;
}

/** The embedder and chunk index searches and writes use now. */
export interface ChunkPair {
  readonly embedder: Embedder;
  readonly vectors: VectorStore;
}

export class ChunkSpace {
  private pair: ChunkPair | undefined;
  private opening: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly off: (() => void) | undefined;
  private readonly switched = new WakeSignal();

  private constructor(
    private readonly store: Store,
    active: ActiveSpace | undefined,
    private readonly opts: ChunkSpaceOptions,
  ) {
    this.off = active?.onSwitch((next) => {
      this.opening = this.opening.then(() => this.switchTo(next.embedder));
    });
  }

  /** Opens the chunk index of the active space (none without an embedder; a failure is a warning, search is keyword-only). */
  static async open(store: Store, active: ActiveSpace | undefined, opts: ChunkSpaceOptions = {}): Promise<ChunkSpace> {
    const space = new ChunkSpace(store, active, opts);
    if (active) await space.switchTo(active.embedder);
    return space;
  }

  /** The pair of the active space; undefined without vectors or while the index of a new space opens. */
  get current(): ChunkPair | undefined {
    return this.closed ? undefined : this.pair;
  }

  private async switchTo(embedder: Embedder): Promise<void> {
    if (this.closed || this.pair?.embedder.space === embedder.space) return;
    const previous = this.pair;
    this.pair = undefined;
    await previous?.vectors
      .close()
      .catch((e) => this.warn(`the chunk index of ${previous.embedder.space} was not saved: ${errorMessage(e)}`));
    try {
      const vectors = await VectorStore.open({
        store: this.store,
        space: embedder.space,
        dimension: embedder.dimension,
        source: CHUNK_VECTORS,
        ...(this.opts.params ? { params: this.opts.params } : {}),
        ...(this.opts.dir ? { dir: this.opts.dir } : {}),
        ...(this.opts.onWarning ? { onWarning: this.opts.onWarning } : {}),
      });
      if (this.closed) await vectors.close();
      else {
        this.pair = { embedder, vectors };
        this.switched.fire();
      }
    } catch (e) {
      this.warn(`the chunk index of ${embedder.space} could not open (${errorMessage(e)}): session search is keyword-only`);
    }
  }

  /** Called each time the index of a new active space is open (after an embedder switch); returns the unsubscribe. */
  onSwitched(listener: () => void): () => void {
    return this.switched.on(listener);
  }

  /** Saves the index (after a store snapshot). */
  async save(): Promise<void> {
    await this.opening;
    await this.pair?.vectors.save();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.off?.();
    await this.opening.catch(() => undefined);
    await this.pair?.vectors.close().catch((e) => this.warn(`the chunk index was not saved on close: ${errorMessage(e)}`));
    this.pair = undefined;
  }

  private warn(message: string): void {
    this.opts.onWarning?.(message);
  }
}

/** The vectors of `texts` from `embedder`, checked (count, dimension, usable); rejects with the reason. */
export async function embedChunkTexts(embedder: Embedder, texts: string[]): Promise<Float32Array[]> {
  if (texts.length === 0) return [];
  const vs = await embedder.embed(texts, 'document');
  if (vs.length !== texts.length) throw new Error(`${embedder.id} returned ${vs.length} vectors for ${texts.length} texts`);
  for (const v of vs) {
    if (v.length !== embedder.dimension) throw new Error(`${embedder.id} returned ${v.length} dimensions, expected ${embedder.dimension}`);
    const unusable = unusableVectorReason(v);
    if (unusable) throw new Error(`${embedder.id} returned an unusable vector: it ${unusable}`);
  }
  return vs;
}

/** Writes a chunk's vector in `space` (inside the caller's transaction); an existing one stays. */
export function writeChunkVector(tx: Tx, chunkId: string, space: string, vector: Float32Array): void {
  tx.run('INSERT OR IGNORE INTO chunks_vec (chunk_id, embedding_model, embedding_blob) VALUES (?, ?, ?)', [
    chunkId,
    space,
    vectorToBlob(vector),
  ]);
}

const MISSING = `NOT EXISTS (SELECT 1 FROM chunks_vec v WHERE v.chunk_id = c.chunk_id AND v.embedding_model = ?)`;

export interface ChunkBackfillOptions {
  /** Chunks per step (one embed call, one transaction). Default 32. */
  batchSize?: number;
  /** First retry after a failure; doubles up to maxDelayMs. Defaults 1 s and 5 min. */
  minDelayMs?: number;
  maxDelayMs?: number;
  onWarning?: (message: string) => void;
}

/**
 * Embeds, in the background, the chunks without a vector in the active space: those logged while
 * the embedder failed, and every chunk after an embedder switch. Backs off while the embedder
 * fails; idle (no timer) once none is missing, until a write leaves one pending (kick).
 */
export class ChunkBackfill implements BackgroundTask {
  readonly name = 'session chunk embedding';
  private readonly wake = new WakeSignal();
  private nextStepAt: number | undefined;
  private delay = 0;
  private stopped = true;
  private readonly batch: number;
  lastError: string | undefined;

  constructor(
    private readonly store: Store,
    private readonly space: ChunkSpace,
    private readonly opts: ChunkBackfillOptions = {},
  ) {
    this.batch = Math.max(1, opts.batchSize ?? 32);
  }

  /** Chunks without a vector in the active space (0 without vectors). */
  pendingCount(): number {
    const pair = this.space.current;
    if (!pair) return 0;
    return Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM chunks c WHERE ${MISSING}`, [pair.embedder.space])!.n);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.kick();
  }

  /** A write left chunks pending, or the space changed: due at once (unless backing off). */
  kick(): void {
    if (this.stopped || this.delay > 0) return;
    this.nextStepAt = dueAt(0);
    this.wake.fire();
  }

  dueInMs(): number | undefined {
    return this.stopped ? undefined : msUntil(this.nextStepAt);
  }

  onWake(listener: () => void): () => void {
    return this.wake.on(listener);
  }

  stop(): void {
    this.stopped = true;
    this.nextStepAt = undefined;
  }

  /** One batch: embed, then one transaction; the next is due at once while work remains. */
  async runStep(): Promise<void> {
    if (this.stopped) return;
    let left: number;
    try {
      left = await this.runOnce();
      this.delay = 0;
      this.lastError = undefined;
    } catch (e) {
      this.lastError = errorMessage(e);
      this.delay = Math.min(this.opts.maxDelayMs ?? 300_000, this.delay ? this.delay * 2 : (this.opts.minDelayMs ?? 1000));
      this.opts.onWarning?.(`embedding session chunks failed (retry in ${Math.round(this.delay / 1000)} s): ${this.lastError}`);
      this.nextStepAt = dueAt(this.delay);
      return;
    }
    this.nextStepAt = left > 0 ? dueAt(0) : undefined;
  }

  /** Embeds one batch; how many were missing before it (0: nothing to do). */
  async runOnce(): Promise<number> {
    const pair = this.space.current;
    if (!pair || this.store.isReadOnly) return 0;
    const { embedder } = pair;
    const rows = this.store.all<{ chunk_id: string; chunk_text: string }>(
      `SELECT c.chunk_id, c.chunk_text FROM chunks c WHERE ${MISSING} ORDER BY c.rid LIMIT ?`,
      [embedder.space, this.batch],
    );
    if (!rows.length) return 0;
    const vectors = await embedChunkTexts(
      embedder,
      rows.map((r) => String(r.chunk_text)),
    );
    // The space was switched meanwhile: these vectors belong to the old one.
    if (this.space.current?.embedder !== embedder) return rows.length;
    this.store.transaction((tx) => {
      // A chunk forgotten meanwhile has no row: its vector would break the foreign key.
      rows.forEach((r, i) => {
        if (tx.get('SELECT 1 AS x FROM chunks WHERE chunk_id = ?', [r.chunk_id]))
          writeChunkVector(tx, String(r.chunk_id), embedder.space, vectors[i]!);
      });
    });
    return rows.length;
  }
}
