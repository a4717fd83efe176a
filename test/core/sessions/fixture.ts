/** A real store on disk with the session API over it: the hash embedder, the memory index and the chunk index of its space. */
import { Store } from '../../../src/core/store/store';
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import type { Embedder } from '../../../src/core/embed/types';
import { VectorStore } from '../../../src/core/vectorstore/vectorStore';
import { ActiveSpace } from '../../../src/core/vectorstore/activeSpace';
import { ChunkBackfill, ChunkSpace } from '../../../src/core/sessions/chunkVectors';
import { SessionStore } from '../../../src/core/sessions/sessionStore';

export interface SessionFixture {
  store: Store;
  embedder: Embedder;
  space: ActiveSpace;
  chunks: ChunkSpace;
  sessions: SessionStore;
  backfill: ChunkBackfill;
  /** Closes the indexes and the store (`snapshot: false`: the next open replays the log). */
  close(opts?: { snapshot?: boolean }): Promise<void>;
}

export async function openSessions(
  dir: string,
  opts: { embedder?: Embedder; now?: () => Date; noVectors?: boolean } = {},
): Promise<SessionFixture> {
  const store = await Store.open({ dir });
  const embedder = opts.embedder ?? new HashEmbedder({ dimension: 256 });
  const vectors = await VectorStore.open({ store, space: embedder.space, dimension: embedder.dimension });
  const space = new ActiveSpace(embedder, vectors);
  const chunks = await ChunkSpace.open(store, opts.noVectors ? undefined : space);
  const backfill = new ChunkBackfill(store, chunks, { minDelayMs: 10, maxDelayMs: 20 });
  const sessions = new SessionStore({ store, chunks, ...(opts.now ? { now: opts.now } : {}), onPending: () => backfill.kick() });
  return {
    store,
    embedder,
    space,
    chunks,
    sessions,
    backfill,
    async close(o = {}) {
      backfill.stop();
      await chunks.close();
      await vectors.close();
      await store.close(o);
    },
  };
}

/** An embedder that fails while `failing` is set (the hash embedder otherwise). */
export class FlakyEmbedder implements Embedder {
  failing = false;
  calls = 0;
  private readonly inner = new HashEmbedder({ dimension: 256 });
  readonly id = this.inner.id;
  readonly space = this.inner.space;
  readonly dimension = this.inner.dimension;

  async embed(texts: string[], kind: 'document' | 'query'): Promise<Float32Array[]> {
    this.calls++;
    if (this.failing) throw new Error('the embedder is down');
    return this.inner.embed(texts, kind);
  }
  available(): Promise<boolean> {
    return Promise.resolve(!this.failing);
  }
  dispose(): void {
    this.inner.dispose();
  }
}

export const user = (text: string) => ({ role: 'user', content: text });
export const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });
