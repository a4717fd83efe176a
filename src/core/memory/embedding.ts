/**
 * What a memory's vector is computed from, and its rows in the `embeddings` table.
 * The text is the title and the storage content; its hash (embedTextHash) keys both the
 * in-memory EmbeddingCache and the durable embeddings row, and is stored in
 * memories.embedding_hash so a vector is only ever used for the exact text it was made from.
 */
import type { Store, Tx } from '../store/store';
import { embedTextHash } from '../embed/cache';
import { normalizeAndHashContent } from '../text/normalize';
import { blobToVector, vectorToBlob } from '../vectorstore/blob';
import type { PreparedEmbedding } from '../vectorstore/types';

/**
 * The text embedded for a memory with this (already normalized) title and storage content, after
 * its search context when it has one (the previous turn, a heading path: docs/recall.md "What a
 * memory is indexed with"), so its vector carries the context its own words lack (the LoCoMo
 * harness passes it; the write path does not yet).
 */
export function embeddingText(title: string, storageContent: string, searchContext = ''): string {
  const t = title.trim();
  const own = t ? `${t}\n\n${storageContent}` : storageContent;
  const c = searchContext.trim();
  return c ? `${c}\n\n${own}` : own;
}

/** The same text for raw input (content not yet normalized), e.g. before createInTx. */
export function embeddingTextForInput(input: { title?: string; content: string }): string {
  return embeddingText(input.title ?? '', normalizeAndHashContent(input.content).storageContent);
}

export function embeddingHashOf(title: string, storageContent: string): string {
  return embedTextHash(embeddingText(title, storageContent));
}

/** Checks a prepared embedding before it is written: a clear error instead of a bad row. */
export function checkPreparedEmbedding(e: PreparedEmbedding): void {
  if (!e || typeof e.space !== 'string' || !e.space || typeof e.textHash !== 'string' || !e.textHash) {
    throw new TypeError('embedding: space and textHash are required');
  }
  if (!(e.vector instanceof Float32Array) || e.vector.length === 0)
    throw new TypeError('embedding: vector must be a non-empty Float32Array');
  let sq = 0;
  for (let i = 0; i < e.vector.length; i++) sq += e.vector[i]! * e.vector[i]!;
  if (!Number.isFinite(sq) || sq === 0) throw new RangeError('embedding: vector is zero or not finite');
}

/** Upsert-if-absent: the same text in the same space always has the same vector. */
export function writeEmbeddingRow(tx: Tx, e: PreparedEmbedding, createdAt: string): void {
  tx.run('INSERT OR IGNORE INTO embeddings (space, text_hash, dim, vector, created_at) VALUES (?, ?, ?, ?, ?)', [
    e.space,
    e.textHash,
    e.vector.length,
    vectorToBlob(e.vector),
    createdAt,
  ]);
}

/** Deletes the vectors of a text no memory (live or tombstoned) refers to any more. */
export function collectEmbedding(tx: Tx, textHash: string | null): void {
  if (!textHash) return;
  const used = tx.get('SELECT 1 AS x FROM memories WHERE embedding_hash = ? LIMIT 1', [textHash]);
  if (!used) tx.run('DELETE FROM embeddings WHERE text_hash = ?', [textHash]);
}

/** A vector already stored for this text in this space (a durable cache hit), if any. */
export function storedEmbedding(store: Store, space: string, textHash: string): Float32Array | undefined {
  const row = store.get<{ dim: number; vector: Uint8Array }>('SELECT dim, vector FROM embeddings WHERE space = ? AND text_hash = ?', [
    space,
    textHash,
  ]);
  return row ? blobToVector(row.vector, Number(row.dim)) : undefined;
}
