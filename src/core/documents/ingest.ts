/**
 * Document ingest (docs/pipeline.md "Documents"): a document row + a `document_ingest` job in one transaction;
 * the job walks extracting → chunking → embedding → indexing → done. Each chunk is embedded
 * outside any transaction, then written as a `document_chunk` memory (importance 0.3, tagged
 * with the title) in its own transaction together with its document_memories link, so a
 * retry resumes after the last chunk written. After the last attempt the document is
 * `failed` with the error.
 */
import { randomUUID } from 'node:crypto';
import type { Store } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { Embedder } from '../embed/types';
import type { Job } from '../jobs/queue';
import type { JobContext } from '../jobs/worker';
import { enqueueDocumentJob } from '../jobs/enqueue';
import { normalizeAndHashContent } from '../text/normalize';
import { errorMessage, UserFacingError } from '../util/errors';
import { chunkDocument, chunkTitle, isMarkdownName } from './chunk';
import { truncate } from '../text/truncate';
import { createLocalDocumentFetcher, type DocumentFetcher } from './fetch';
import { embeddingFor, factEmbeddingText, prepareEmbeddings } from '../memory/prepareEmbeddings';
import { guardSecrets, secretRefusal } from '../memory/secretGuard';
import type { SecretPolicy } from '../secrets/policy';
import type { SecretKind } from '../secrets/rules';

export type DocumentStatus = 'pending' | 'extracting' | 'chunking' | 'embedding' | 'indexing' | 'done' | 'failed';

export interface DocumentRow {
  id: string;
  sourceType: string;
  sourceUrl: string | null;
  title: string | null;
  status: DocumentStatus;
  error: string | null;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentSettings {
  chunkSize: number;
  chunkOverlap: number;
  maxContentBytes: number;
  maxRetries: number;
}

export interface CreateDocumentInput {
  sourceType: 'url' | 'text' | 'file';
  url?: string;
  title?: string;
  content?: string;
}

/**
 * A document's text, title and address after the secret guard (docs/secrets.md): its raw text
 * is kept in the store, so it is redacted before it is written (or the document refused with
 * `secret_detected`), like every memory its chunks become.
 */
export function guardDocument(input: CreateDocumentInput, policy: SecretPolicy): { input: CreateDocumentInput; redacted: SecretKind[] } {
  const g = guardSecrets(input, policy);
  if (g.refused) throw secretRefusal(g.kinds);
  return { input: g.value, redacted: g.kinds };
}

export function createDocument(store: Store, projectId: string, input: CreateDocumentInput, now: Date, maxAttempts = 3): DocumentRow {
  if (input.sourceType === 'url') {
    if (!input.url || typeof input.url !== 'string') throw new UserFacingError('A url document needs a url.', 'invalid_input');
  } else if (typeof input.content !== 'string' || !input.content.trim()) {
    throw new UserFacingError('A text document needs non-empty content.', 'invalid_input');
  }
  const id = randomUUID();
  const iso = now.toISOString();
  store.transaction((tx) => {
    tx.run(
      `INSERT INTO documents (id, project_id, source_type, source_url, title, raw_content, status, chunk_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
      [id, projectId, input.sourceType, input.url ?? null, input.title?.trim() || null, input.content ?? null, iso, iso],
    );
    enqueueDocumentJob(tx, 'document_ingest', id, iso, { maxAttempts });
  });
  return getDocument(store, id)!;
}

export function getDocument(store: Store, id: string): DocumentRow | undefined {
  const r = store.get('SELECT * FROM documents WHERE id = ?', [id]);
  if (!r) return undefined;
  return {
    id: String(r.id),
    sourceType: String(r.source_type),
    sourceUrl: r.source_url == null ? null : String(r.source_url),
    title: r.title == null ? null : String(r.title),
    status: String(r.status) as DocumentStatus,
    error: r.error == null ? null : String(r.error),
    chunkCount: Number(r.chunk_count),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

/** Chunk memory ids of a document, in order. */
export function documentMemoryIds(store: Store, documentId: string): string[] {
  return store
    .all<{ memory_id: string }>('SELECT memory_id FROM document_memories WHERE document_id = ? ORDER BY chunk_index', [documentId])
    .map((r) => String(r.memory_id));
}

export interface DocumentDeps {
  store: Store;
  /** The store's memory API; chunks are written with `extract: false` (not run through fact extraction). */
  memory: MemoryService;
  embedder?: Embedder;
  fetchDocument?: DocumentFetcher;
  settings: () => DocumentSettings;
  now: () => Date;
  /** Called after each status change (progress for a UI). */
  onStatus?: (documentId: string, status: DocumentStatus) => void;
}

/** One chunk as written: its index, markdown text, title ("ONBOARDING.md › Releases (2 of 5)") and the document's title (its tag). */
interface ChunkToWrite {
  index: number;
  text: string;
  title: string | undefined;
  docTitle: string | undefined;
  /** The document's title and the headings above the chunk: indexed with it, never shown (docs/recall.md). */
  searchContext: string;
}

export function createDocumentHandler(deps: DocumentDeps) {
  const fetcher = deps.fetchDocument ?? createLocalDocumentFetcher();
  const setStatus = (id: string, status: DocumentStatus, extra: { error?: string | null; title?: string; chunkCount?: number } = {}) => {
    const iso = deps.now().toISOString();
    deps.store.transaction((tx) =>
      tx.run(
        `UPDATE documents SET status = ?, error = ?, title = coalesce(title, ?), chunk_count = coalesce(?, chunk_count), updated_at = ? WHERE id = ?`,
        [status, extra.error ?? null, extra.title ?? null, extra.chunkCount ?? null, iso, id],
      ),
    );
    deps.onStatus?.(id, status);
  };

  /** The document's text: fetched for a url (the page's title backfills a missing one), else the stored raw content. */
  const loadContent = async (doc: DocumentRow, s: DocumentSettings, signal: JobContext['signal']) => {
    let title = doc.title ?? undefined;
    if (doc.sourceType === 'url') {
      const fetched = await fetcher(doc.sourceUrl!, { maxBytes: s.maxContentBytes, signal });
      if (!title && fetched.title) title = fetched.title; // backfill
      return { content: fetched.content, title };
    }
    const content = String(
      deps.store.get<{ raw_content: string | null }>('SELECT raw_content FROM documents WHERE id = ?', [doc.id])?.raw_content ?? '',
    );
    if (Buffer.byteLength(content, 'utf8') > s.maxContentBytes)
      throw UserFacingError.of('document_too_large', { maxBytes: s.maxContentBytes });
    return { content, title };
  };

  /** Chunk `i` as a memory linked to the document; a memory of the document with the same content is linked instead. */
  const writeChunk = async (doc: DocumentRow, piece: ChunkToWrite, warnings: string[]): Promise<'written' | 'deduped' | 'skipped'> => {
    const { index: i, title } = piece;
    // A fetched page was never stored raw: its chunks are guarded here, before they are embedded.
    const guarded = guardSecrets(piece.text, deps.memory.secretPolicy === 'allow' ? 'allow' : 'redact');
    const chunk = guarded.value;
    if (guarded.kinds.length && deps.memory.secretPolicy === 'refuse') {
      warnings.push(`chunk ${i} skipped: it holds a secret`);
      return 'skipped';
    }
    const { storageContent, contentHash } = normalizeAndHashContent(chunk);
    if (!storageContent) return 'skipped';
    // Embed outside the transaction, then one short transaction per chunk.
    const vectors = await prepareEmbeddings(deps.embedder, [factEmbeddingText(storageContent, title ?? '')], warnings);
    const iso = deps.now().toISOString();
    return deps.store.transaction((tx) => {
      const linked = tx.get<{ id: string }>(
        `SELECT m.id FROM document_memories dm JOIN memories m ON m.id = dm.memory_id WHERE dm.document_id = ? AND m.content_hash = ? AND m.deleted_at IS NULL`,
        [doc.id, contentHash],
      );
      let memoryId = linked?.id;
      let outcome: 'written' | 'deduped' = 'deduped';
      if (!memoryId) {
        const r = deps.memory.createInTx(
          tx,
          {
            content: storageContent,
            title: title ? truncate(title, 200) : undefined,
            type: 'document_chunk',
            importance: 0.3,
            tags: piece.docTitle ? [truncate(piece.docTitle, 50)] : [],
            searchContext: piece.searchContext,
            source: doc.sourceUrl ?? `document:${doc.id}`,
            who: 'document-ingest',
            why: 'document-chunk',
            allowNearDuplicate: true,
            origin: 'document',
            ttlSeconds: null,
            // Stored text has its whitespace collapsed (docs/write-path.md): the chunk's markdown is kept here for display.
            metadata: { documentId: doc.id, chunkIndex: i, ...(chunk.trim() !== storageContent ? { markdown: chunk.trim() } : {}) },
          },
          { embedding: embeddingFor(vectors, storageContent, title ?? ''), extract: false },
        );
        if (r.status === 'skipped') {
          warnings.push(`chunk ${i} skipped: ${r.reason}`);
          return 'skipped';
        }
        memoryId = r.memory.id;
        if (r.status !== 'duplicate') outcome = 'written';
      }
      tx.run('INSERT OR IGNORE INTO document_memories (document_id, chunk_index, memory_id, created_at) VALUES (?, ?, ?, ?)', [
        doc.id,
        i,
        memoryId,
        iso,
      ]);
      return outcome;
    });
  };

  return async (job: Job, ctx: JobContext): Promise<unknown> => {
    const s = deps.settings();
    const doc = job.documentId ? getDocument(deps.store, job.documentId) : undefined;
    if (!doc) return { skipped: 'document_missing' };
    if (doc.status === 'done') return { skipped: 'already_done', chunks: doc.chunkCount };
    const warnings: string[] = [];
    try {
      setStatus(doc.id, 'extracting');
      const { content, title } = await loadContent(doc, s, ctx.signal);
      setStatus(doc.id, 'chunking', { title });
      const markdown = isMarkdownName(title ?? doc.sourceUrl ?? '');
      const chunks = chunkDocument(content, { size: s.chunkSize, overlap: s.chunkOverlap, markdown });
      setStatus(doc.id, 'embedding', { chunkCount: chunks.length }); // the total, for progress while the chunks are written
      const done = new Set(
        deps.store
          .all<{ chunk_index: number }>('SELECT chunk_index FROM document_memories WHERE document_id = ?', [doc.id])
          .map((r) => Number(r.chunk_index)),
      );
      let written = 0;
      let deduped = 0;
      for (const [i, chunk] of chunks.entries()) {
        if (done.has(i)) continue; // written by an earlier attempt
        const chunkName = chunkTitle(title, chunk.heading, i, chunks.length);
        const searchContext = truncate([title?.trim(), ...chunk.headings].filter(Boolean).join(' › '), 1000);
        const outcome = await writeChunk(doc, { index: i, text: chunk.text, title: chunkName, docTitle: title, searchContext }, warnings);
        if (outcome === 'written') written++;
        else if (outcome === 'deduped') deduped++;
      }
      setStatus(doc.id, 'indexing'); // FTS and vector marks are maintained by triggers in the same transactions
      setStatus(doc.id, 'done', { chunkCount: chunks.length });
      return { chunks: chunks.length, written, deduped, title: title ?? null, warnings };
    } catch (e) {
      // Out of attempts: the document is failed with the error (the job goes dead).
      if (job.attempts >= s.maxRetries) setStatus(doc.id, 'failed', { error: errorMessage(e).slice(0, 2000) });
      throw e;
    }
  };
}

/**
 * Delete a document as a unit: its chunk memories are soft-deleted (unless another document
 * still links them), open jobs cancelled, the document row and its links removed. One
 * transaction; returns the chunk memories deleted.
 */
export function deleteDocument(store: Store, memory: MemoryService, id: string, opts: { who?: string; now?: Date } = {}): number {
  const iso = (opts.now ?? new Date()).toISOString();
  return store.transaction((tx) => {
    const doc = tx.get('SELECT id FROM documents WHERE id = ?', [id]);
    if (!doc) throw UserFacingError.of('not_found', { what: 'document', id });
    let n = 0;
    const ids = tx.all<{ memory_id: string }>('SELECT DISTINCT memory_id FROM document_memories WHERE document_id = ?', [id]);
    for (const { memory_id } of ids) {
      const shared = tx.get('SELECT 1 AS x FROM document_memories WHERE memory_id = ? AND document_id <> ? LIMIT 1', [memory_id, id]);
      if (shared || !memory.get(memory_id)) continue;
      memory.deleteInTx(tx, memory_id, { who: opts.who ?? 'user', reason: `document ${id} deleted` });
      n++;
    }
    tx.run(
      `UPDATE memory_jobs SET status = 'cancelled', last_error = 'document deleted', updated_at = ? WHERE document_id = ? AND status = 'pending'`,
      [iso, id],
    );
    tx.run('DELETE FROM document_memories WHERE document_id = ?', [id]);
    tx.run('DELETE FROM documents WHERE id = ?', [id]);
    return n;
  });
}
