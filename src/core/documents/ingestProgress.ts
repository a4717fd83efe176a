/**
 * Where a document ingest stands (docs/pipeline.md), for a progress notification: a percent per
 * stage, and while the chunks are embedded, how many of them are written.
 */
import type { Store } from '../store/store';

/** Progress (of 100) at the start of each stage; 'embedding' runs to `indexing` as the chunks are written. */
const STAGE_PROGRESS: Record<string, number> = {
  pending: 0,
  extracting: 3,
  chunking: 6,
  embedding: 10,
  indexing: 97,
  done: 100,
  failed: 100,
};

const STAGE_MESSAGES: Record<string, string> = {
  pending: 'Waiting to start',
  extracting: 'Reading the file',
  chunking: 'Splitting into chunks',
  indexing: 'Indexing',
  done: 'Done',
  failed: 'Failed',
};

/** Where an ingest stands, for the progress notification: percent and a sentence. */
export function documentProgress(store: Store, id: string, status: string, chunkCount: number): { pct: number; message: string } {
  if (status !== 'embedding' || !chunkCount) return { pct: STAGE_PROGRESS[status] ?? 0, message: STAGE_MESSAGES[status] ?? status };
  const written = Number(store.get<{ n: number }>('SELECT count(*) AS n FROM document_memories WHERE document_id = ?', [id])?.n ?? 0);
  const pct = STAGE_PROGRESS.embedding! + Math.floor(((STAGE_PROGRESS.indexing! - STAGE_PROGRESS.embedding!) * written) / chunkCount);
  return { pct, message: `Embedding chunk ${Math.min(written + 1, chunkCount)} of ${chunkCount}` };
}
