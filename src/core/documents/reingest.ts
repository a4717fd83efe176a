/**
 * Ingesting a file again (docs/pipeline.md "Documents"): the earlier documents of the same
 * source, whether the text is unchanged (then nothing is added), and replacing them once the
 * new document is done — chunks the new document shares with an old one stay, the rest of the
 * old chunks are deleted.
 */
import type { Store } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import { deleteDocument, documentMemoryIds } from './ingest';

export interface EarlierDocument {
  id: string;
  status: string;
  rawContent: string | null;
  chunkCount: number;
}

/** Documents of this project from any of `sources` (newest first). */
export function earlierDocuments(store: Store, projectId: string, sources: string[]): EarlierDocument[] {
  const wanted = [...new Set(sources)];
  return store
    .all<{ id: string; status: string; raw_content: string | null; chunk_count: number }>(
      `SELECT id, status, raw_content, chunk_count FROM documents WHERE project_id = ? AND source_url IN (${wanted.map(() => '?').join(', ')})
        ORDER BY created_at DESC, rowid DESC`,
      [projectId, ...wanted],
    )
    .map((r) => ({ id: String(r.id), status: String(r.status), rawContent: r.raw_content, chunkCount: Number(r.chunk_count) }));
}

/** The newest earlier document when it was ingested completely from exactly this text. */
export function unchangedDocument(earlier: EarlierDocument[], content: string): EarlierDocument | undefined {
  const last = earlier[0];
  return last && last.status === 'done' && last.rawContent === content ? last : undefined;
}

/** Deletes the earlier documents; returns the chunk memories deleted (those the new document does not link). */
export function replaceEarlierDocuments(
  store: Store,
  memory: MemoryService,
  earlier: EarlierDocument[],
  opts: { now?: Date } = {},
): number {
  let removed = 0;
  for (const d of earlier)
    removed += deleteDocument(store, memory, d.id, { who: 'document-ingest', ...(opts.now ? { now: opts.now } : {}) });
  return removed;
}

/** Chunk memory ids of every earlier document. */
export function earlierChunkIds(store: Store, earlier: EarlierDocument[]): Set<string> {
  return new Set(earlier.flatMap((d) => documentMemoryIds(store, d.id)));
}
