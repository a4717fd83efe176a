/**
 * Switching embedder: every live memory is embedded again in the new space, in the
 * background, in batches (one embed call + one short transaction each), with progress and
 * cancellation. Searches and writes keep using the old space meanwhile (and full-text search
 * always works); the new space becomes active only when it holds every live memory that has
 * a vector. Interrupted runs resume: vectors already written stay in the embeddings table.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Store } from '../store/store';
import type { Embedder } from '../embed/types';
import { embedTextHash } from '../embed/cache';
import { errorMessage } from '../util/errors';
import type { ActiveSpace, SpacePair } from '../vectorstore/activeSpace';
import type { VectorIndexParams } from '../vectorstore/types';
import { VectorStore } from '../vectorstore/vectorStore';
import { embeddingText, writeEmbeddingRow } from './embedding';

export interface ReembedProgress {
  done: number;
  total: number;
  space: string;
}

export interface ReembedOptions {
  /** Texts per embed call and transaction. Default 32. */
  batchSize?: number;
  params?: Partial<VectorIndexParams>;
  /** Where index files live (default `<store.dir>/vectors`). */
  vectorDir?: string;
  onProgress?: (p: ReembedProgress) => void;
  signal?: AbortSignal;
  /** Attempts per batch while the new embedder fails (with 1 s, 2 s, … pauses). Default 3. */
  attempts?: number;
  retryDelayMs?: number;
  onWarning?: (message: string) => void;
}

export type ReembedResult =
  | { status: 'switched'; done: number; total: number; space: string; previous: SpacePair }
  | { status: 'cancelled' | 'failed'; done: number; total: number; space: string; error?: string };

const MISSING_WHERE = `m.deleted_at IS NULL AND m.embedding_hash IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.space = ? AND e.text_hash = m.embedding_hash)`;

/** Live memories with a vector in some space but none in `space`. */
export function countMissing(store: Store, space: string): number {
  return Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM memories m WHERE ${MISSING_WHERE}`, [space])!.n);
}

/** The space recorded as active in this store (set by a completed re-embed), if any. */
export function recordedActiveSpace(store: Store): string | undefined {
  const row = store.get<{ value: string }>("SELECT value FROM store_meta WHERE key = 'active_embedding_space'");
  return row ? String(row.value) : undefined;
}

export function recordActiveSpace(store: Store, space: string): void {
  store.transaction((tx) => tx.run("INSERT OR REPLACE INTO store_meta (key, value) VALUES ('active_embedding_space', ?)", [space]));
}

export async function reembedAll(store: Store, active: ActiveSpace, next: Embedder, opts: ReembedOptions = {}): Promise<ReembedResult> {
  const space = next.space;
  const batch = Math.max(1, opts.batchSize ?? 32);
  const attempts = Math.max(1, opts.attempts ?? 3);
  const aborted = () => opts.signal?.aborted === true;
  if (space === active.embedder.space) {
    return { status: 'switched', done: 0, total: 0, space, previous: active.current };
  }
  const vectors = await VectorStore.open({
    store,
    space,
    dimension: next.dimension,
    params: opts.params,
    dir: opts.vectorDir,
    onWarning: opts.onWarning,
  });
  let total = countMissing(store, space);
  let done = 0;
  const report = () => opts.onProgress?.({ done, total: Math.max(total, done), space });
  report();

  /** Embeds one batch of rows and writes their vectors; false when the embedder keeps failing. */
  const embedRows = async (rows: { title: string; content: string; embedding_hash: string }[]): Promise<string | undefined> => {
    const items = rows
      .map((r) => {
        const text = embeddingText(String(r.title ?? ''), String(r.content));
        return { text, textHash: embedTextHash(text), stored: String(r.embedding_hash) };
      })
      // A memory whose text changed since its vector was written waits for the backfill.
      .filter((i) => i.textHash === i.stored);
    const unique = [...new Map(items.map((i) => [i.textHash, i])).values()];
    let lastError = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (aborted()) return 'cancelled';
      try {
        const vs = unique.length
          ? await next.embed(
              unique.map((u) => u.text),
              'document',
            )
          : [];
        if (vs.length !== unique.length) throw new Error(`${next.id} returned ${vs.length} vectors for ${unique.length} texts`);
        const iso = new Date().toISOString();
        store.transaction((tx) => {
          unique.forEach((u, i) => {
            const v = vs[i]!;
            if (v.length !== next.dimension) throw new Error(`${next.id} returned ${v.length} dimensions, expected ${next.dimension}`);
            writeEmbeddingRow(tx, { space, textHash: u.textHash, vector: v }, iso);
          });
        });
        done += rows.length;
        report();
        return undefined;
      } catch (e) {
        lastError = errorMessage(e);
        if (attempt + 1 < attempts) await sleep((opts.retryDelayMs ?? 1000) * 2 ** attempt, opts.signal);
      }
    }
    return lastError || 'embedding failed';
  };

  const stop = async (status: 'cancelled' | 'failed', error?: string): Promise<ReembedResult> => {
    await vectors.close();
    return { status, done, total: Math.max(total, done), space, error };
  };
  /** embedRows' answer as the result: 'cancelled', or failed with its error. */
  const stopOn = (err: string): Promise<ReembedResult> => (err === 'cancelled' ? stop('cancelled') : stop('failed', err));

  // Main pass in rid order, then stragglers (written or changed meanwhile) until none is left.
  let cursor = 0;
  for (;;) {
    if (aborted()) return stop('cancelled');
    const rows = store.all<{ rid: number; title: string; content: string; embedding_hash: string }>(
      `SELECT m.rid, m.title, m.content, m.embedding_hash FROM memories m WHERE m.rid > ? AND ${MISSING_WHERE} ORDER BY m.rid LIMIT ?`,
      [cursor, space, batch],
    );
    if (!rows.length) break;
    cursor = Number(rows[rows.length - 1]!.rid);
    const err = await embedRows(rows);
    if (err) return stopOn(err);
  }
  for (let round = 0; ; round++) {
    if (aborted()) return stop('cancelled');
    const rows = store.all<{ title: string; content: string; embedding_hash: string }>(
      `SELECT m.title, m.content, m.embedding_hash FROM memories m WHERE ${MISSING_WHERE} ORDER BY m.rid LIMIT ?`,
      [space, batch],
    );
    const stale = rows.filter((r) => embedTextHash(embeddingText(String(r.title ?? ''), String(r.content))) !== String(r.embedding_hash));
    if (rows.length === stale.length) {
      await vectors.whenReady();
      // Synchronous from the last check to the switch: no write can slip in between.
      if (countMissingFresh(store, space) === 0) {
        vectors.sync();
        const previous = active.switchTo(next, vectors);
        recordActiveSpace(store, space);
        total = Math.max(total, done);
        return { status: 'switched', done, total, space, previous };
      }
      if (round > 1000) return stop('failed', 'new memories keep arriving faster than they can be embedded');
      continue;
    }
    total = Math.max(total, done + rows.length);
    const err = await embedRows(rows);
    if (err) return stopOn(err);
  }
}

/** Missing vectors excluding memories whose text changed (those are pending and not searchable anyway). */
function countMissingFresh(store: Store, space: string): number {
  const rows = store.all<{ title: string; content: string; embedding_hash: string }>(
    `SELECT m.title, m.content, m.embedding_hash FROM memories m WHERE ${MISSING_WHERE}`,
    [space],
  );
  return rows.filter((r) => embedTextHash(embeddingText(String(r.title ?? ''), String(r.content))) === String(r.embedding_hash)).length;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Frees an embedding space that is no longer active: its vectors in the database (one
 * transaction) and its index file. Refuses the active space.
 */
export async function dropEmbeddingSpace(store: Store, space: string, opts: { active: string; vectorDir?: string }): Promise<number> {
  if (space === opts.active) throw new Error(`embedding space ${space} is active and cannot be dropped`);
  if (!/^[a-z0-9._-]+$/.test(space)) throw new RangeError(`not an embedding space name: ${JSON.stringify(space)}`);
  const n = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM embeddings WHERE space = ?', [space])!.n);
  store.transaction((tx) => tx.run('DELETE FROM embeddings WHERE space = ?', [space]));
  const file = path.join(opts.vectorDir ?? path.join(store.dir, 'vectors'), `${space}.hnsw`);
  await fs.promises.rm(file, { force: true });
  return n;
}
