/**
 * Chunks of a session's text, from the event to the index (docs/sessions.md "Logging events"):
 * prepared outside any transaction (extracted, cut, hashed, embedded — a failing embedder leaves
 * them pending for the background), then written inside the caller's transaction, where a chunk
 * whose text the session already holds extends that chunk's sequence_end instead of adding a
 * second one. Chunk rids are picked here, one above the highest ever given out (the change
 * marks keep the rids of deleted chunks), and bound, so a replay of the log is exact.
 */
import { randomUUID } from 'node:crypto';
import type { Store, Tx } from '../store/store';
import { errorMessage } from '../util/errors';
import { chunkHash, chunkText } from './chunking';
import { embedChunkTexts, writeChunkVector, type ChunkPair } from './chunkVectors';

/** A chunk ready to be written: its text, hash, metadata, and its vector in the active space when one was made. */
export interface PreparedChunk {
  text: string;
  hash: string;
  metadata: Record<string, unknown>;
  vector?: Float32Array;
}

export interface ChunkWriteCounts {
  added: number;
  extended: number;
  /** Written without a vector in the active space. */
  pending: number;
}

/** Texts per embed call when a long event is embedded. */
const EMBED_BATCH = 64;

/** The chunks of `texts` with `metadata` each (no vectors yet). */
export function prepareChunks(texts: readonly string[], metadata: Record<string, unknown>): PreparedChunk[] {
  const out: PreparedChunk[] = [];
  for (const t of texts) for (const c of chunkText(t)) out.push({ text: c, hash: chunkHash(c), metadata: { ...metadata } });
  return out;
}

/**
 * Embeds the chunks that need a vector: not already held by the session with one in the active
 * space (same text, same note). Never throws: a failure leaves them pending and is returned.
 */
export async function embedPrepared(
  store: Store,
  sessionId: string,
  chunks: PreparedChunk[],
  pair: ChunkPair | undefined,
): Promise<string | undefined> {
  if (!pair || chunks.length === 0) return undefined;
  const need = chunks.filter((c) => !heldWithVector(store, sessionId, c, pair.embedder.space));
  const unique = [...new Map(need.map((c) => [c.hash, c.text])).entries()];
  try {
    const byHash = new Map<string, Float32Array>();
    for (let i = 0; i < unique.length; i += EMBED_BATCH) {
      const part = unique.slice(i, i + EMBED_BATCH);
      const vs = await embedChunkTexts(
        pair.embedder,
        part.map(([, text]) => text),
      );
      part.forEach(([hash], j) => byHash.set(hash, vs[j]!));
    }
    for (const c of need) c.vector = byHash.get(c.hash);
    return undefined;
  } catch (e) {
    return errorMessage(e);
  }
}

function heldWithVector(store: Store, sessionId: string, c: PreparedChunk, space: string): boolean {
  const row = existingChunk(store, sessionId, c);
  return !!row && !!store.get('SELECT 1 AS x FROM chunks_vec WHERE chunk_id = ? AND embedding_model = ?', [row.chunk_id, space]);
}

interface ExistingChunk {
  rid: number;
  chunk_id: string;
  sequence_end: number;
}

/** The session's chunk with this text (and, for a note's chunk, of the same note). */
function existingChunk(db: Pick<Tx, 'all'>, sessionId: string, c: PreparedChunk): ExistingChunk | undefined {
  const rows = db.all<ExistingChunk & { metadata_json: string }>(
    'SELECT rid, chunk_id, sequence_end, metadata_json FROM chunks WHERE session_id = ? AND content_hash = ?',
    [sessionId, c.hash],
  );
  const note = c.metadata.note_id;
  return rows.find((r) => noteIdOf(String(r.metadata_json)) === note);
}

function noteIdOf(metadataJson: string): unknown {
  try {
    return (JSON.parse(metadataJson) as { note_id?: unknown }).note_id;
  } catch {
    return undefined;
  }
}

/** The next chunk rid: above every rid ever given out (a deleted chunk's rid stays in chunk_vector_dirty). */
function nextRid(tx: Tx): number {
  const row = tx.get<{ r: number | null }>(
    'SELECT max(r) AS r FROM (SELECT max(rid) AS r FROM chunks UNION ALL SELECT max(rid) AS r FROM chunk_vector_dirty)',
  );
  return Number(row?.r ?? 0) + 1;
}

/** Writes the chunks of one event (sequence `seq`) inside `tx`; `space`: the active embedding space, if any. */
export function writeChunks(tx: Tx, sessionId: string, seq: number, chunks: PreparedChunk[], space: string | undefined): ChunkWriteCounts {
  const counts: ChunkWriteCounts = { added: 0, extended: 0, pending: 0 };
  let rid = 0;
  for (const c of chunks) {
    const held = existingChunk(tx, sessionId, c);
    if (held) {
      if (seq > Number(held.sequence_end)) tx.run('UPDATE chunks SET sequence_end = ? WHERE rid = ?', [seq, held.rid]);
      if (c.vector && space) writeChunkVector(tx, String(held.chunk_id), space, c.vector);
      counts.extended++;
      continue;
    }
    rid = rid ? rid + 1 : nextRid(tx);
    const chunkId = randomUUID();
    tx.run(
      `INSERT INTO chunks (rid, chunk_id, session_id, chunk_text, content_hash, sequence_start, sequence_end, metadata_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [rid, chunkId, sessionId, c.text, c.hash, seq, seq, JSON.stringify(c.metadata)],
    );
    counts.added++;
    if (c.vector && space) writeChunkVector(tx, chunkId, space, c.vector);
    else if (space) counts.pending++;
  }
  return counts;
}
