/**
 * Embed-on-write (docs/write-path.md "Embed outside any transaction"): the vector is computed OUTSIDE
 * any transaction, then the memory row and its embeddings row commit in ONE short
 * transaction, so the memory is searchable by the very next request. When embedding fails
 * (provider down, timeout) the memory still commits with embedding_status 'pending' and the
 * caller is told `pending`; {@link EmbeddingBackfill} fills it in later.
 */
import type { Store } from '../store/store';
import type { Embedder } from '../embed/types';
import { embedTextHash } from '../embed/cache';
import { unusableVectorReason } from '../embed/vector';
import { errorMessage } from '../util/errors';
import { normalizeAndHashContent } from '../text/normalize';
import type { ActiveSpace } from '../vectorstore/activeSpace';
import type { PreparedEmbedding } from '../vectorstore/types';
import { embeddingText, storedEmbedding } from './embedding';
import { NotFoundError } from './errors';
import type { MemoryService } from './memoryService';
import type { CreateMemoryInput, CreateResult, UpdatedMemory, UpdateMemoryInput } from './types';
import * as v from './validate';

export type EmbeddingOutcome = 'ready' | 'pending';

export type EmbedResult = { ok: true; embedding: PreparedEmbedding; cached: boolean } | { ok: false; error: string };

/**
 * How long a write waits for its vector. A hanging embedder (Ollama loading a model, a stalled
 * socket) would otherwise hold the caller for the embedder's whole request limit (30 s); after
 * this wait the memory commits as pending and the backfill embeds it in the background. Long
 * enough for a warm local model (tens of ms) and most cold starts.
 */
export const WRITE_EMBED_WAIT_MS = 4_000;

/**
 * The vector of (title, storage content) in the embedder's space: from the embeddings table
 * when this exact text was embedded before (durable cache), else from the embedder (wrap it in
 * a CachedEmbedder for the in-memory cache), waiting at most `waitMs`. Never throws: failures —
 * an error, no answer in time, an unusable vector (NaN, all zeros) — come back as `ok: false`.
 */
export async function embedMemoryText(
  embedder: Embedder,
  store: Store,
  title: string,
  storageContent: string,
  waitMs = WRITE_EMBED_WAIT_MS,
): Promise<EmbedResult> {
  const text = embeddingText(title, storageContent);
  const textHash = embedTextHash(text);
  const space = embedder.space;
  const stored = storedEmbedding(store, space, textHash);
  if (stored && stored.length === embedder.dimension) return { ok: true, embedding: { space, textHash, vector: stored }, cached: true };
  try {
    const [vector] = await withinWait(embedder.embed([text], 'document'), waitMs, embedder.id);
    if (!vector || vector.length !== embedder.dimension) {
      return { ok: false, error: `${embedder.id} returned a vector of ${vector?.length ?? 0} dimensions, expected ${embedder.dimension}` };
    }
    const unusable = unusableVectorReason(vector);
    if (unusable) return { ok: false, error: `${embedder.id} returned an unusable vector: it ${unusable}` };
    // The space of an embedder may only become known with its first answer (Ollama).
    return { ok: true, embedding: { space: embedder.space, textHash, vector }, cached: false };
  } catch (e) {
    return { ok: false, error: errorMessage(e) };
  }
}

/** `p`, or a rejection after `ms`; `p` keeps running (its late failure is swallowed, its result unused). */
function withinWait<T>(p: Promise<T>, ms: number, who: string): Promise<T> {
  if (!(ms > 0 && Number.isFinite(ms))) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${who} did not answer within ${ms} ms; the memory is stored and will be embedded in the background`)),
      ms,
    );
  });
  void p.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Embeds with the active embedder and returns only when the active space did not change
 * during the await (a re-embed switched it): the caller commits synchronously right after,
 * so a vector of a replaced space can never be committed as the memory's current one.
 */
export async function embedForActiveSpace(space: ActiveSpace, store: Store, title: string, storageContent: string): Promise<EmbedResult> {
  for (let attempt = 0; ; attempt++) {
    const pair = space.current;
    const r = await embedMemoryText(pair.embedder, store, title, storageContent);
    if (space.current === pair || attempt >= 3) return r;
  }
}

export interface IngestResult {
  result: CreateResult;
  /** Whether the stored memory has its vector (undefined when nothing was stored). */
  embedding?: EmbeddingOutcome;
  /** Why the vector is pending. */
  embeddingError?: string;
  embedMs: number;
}

/**
 * Creates and updates memories with their vectors (no consolidation; see
 * src/core/consolidation/smartStore.ts for the smart store built on the same steps).
 */
export class EmbedOnWrite {
  constructor(
    private readonly store: Store,
    private readonly memory: MemoryService,
    private readonly space: ActiveSpace,
    private readonly opts: { onPending?: () => void } = {},
  ) {}

  async create(input: CreateMemoryInput): Promise<IngestResult> {
    const prepared = this.memory.prepareCreate(input);
    if (prepared.status !== 'new') return { result: prepared, embedMs: 0 };
    const t0 = performance.now();
    const emb = await embedForActiveSpace(this.space, this.store, prepared.record.title, prepared.record.content);
    const embedMs = performance.now() - t0;
    const result = this.store.transaction((tx) =>
      this.memory.insertPreparedInTx(tx, prepared, input, emb.ok ? { embedding: emb.embedding } : {}),
    );
    return this.outcome(result, emb, embedMs);
  }

  /** Update; when the title or content changes the new text is embedded first (outside the transaction). */
  async update(
    id: string,
    given: UpdateMemoryInput,
  ): Promise<{ memory: UpdatedMemory; embedding: EmbeddingOutcome; embeddingError?: string }> {
    const current = this.memory.get(id);
    if (!current) throw new NotFoundError(id);
    // The text embedded is the one stored: after the secret guard (docs/secrets.md).
    const { patch, redacted } = this.memory.guardPatch(given);
    const title = patch.title !== undefined ? v.validateTitle(patch.title) : current.title;
    const content =
      patch.content !== undefined ? normalizeAndHashContent(v.validateContent(patch.content)).storageContent : current.content;
    let emb: EmbedResult | undefined;
    if (title !== current.title || content !== current.content) emb = await embedForActiveSpace(this.space, this.store, title, content);
    const updated = this.memory.update(id, patch, { ...(emb?.ok ? { embedding: emb.embedding } : {}), redacted });
    const memory: UpdatedMemory = redacted.length ? { ...updated, redacted } : updated;
    if (memory.embeddingStatus !== 'ready') this.opts.onPending?.();
    return {
      memory,
      embedding: memory.embeddingStatus === 'ready' ? 'ready' : 'pending',
      embeddingError: emb && !emb.ok ? emb.error : undefined,
    };
  }

  private outcome(result: CreateResult, emb: EmbedResult, embedMs: number): IngestResult {
    if (result.status !== 'created') return { result, embedMs };
    const ready = result.memory.embeddingStatus === 'ready';
    if (!ready) this.opts.onPending?.();
    return {
      result,
      embedding: ready ? 'ready' : 'pending',
      embeddingError: ready ? undefined : emb.ok ? result.warnings.at(-1) : emb.error,
      embedMs,
    };
  }
}
