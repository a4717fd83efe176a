import { createHash } from 'node:crypto';
import type { EmbedKind, Embedder } from './types';

/** sha256 (base64url) of the exact text that would be embedded. */
export function embedTextHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

export interface EmbeddingCacheOptions {
  /** Upper bound on the memory held (vectors + keys, estimated). Default 64 MiB. */
  maxBytes?: number;
  /** Upper bound on the number of vectors. Default unlimited (the byte bound applies). */
  maxEntries?: number;
}

export interface EmbeddingCacheStats {
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
  evictions: number;
}

const ENTRY_OVERHEAD = 96; // Map entry + typed-array header, roughly

/**
 * In-memory LRU of embeddings keyed by (embedding space, kind, content hash of the text). The
 * kind is part of the key because providers embed queries and documents differently (task
 * prefixes, stop-word removal). Bounded by bytes and, optionally, entries; least recently used
 * entries go first. Stored vectors are never handed out: `get` returns a copy.
 */
export class EmbeddingCache {
  private readonly map = new Map<string, Float32Array>();
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(options: EmbeddingCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
  }

  static key(space: string, kind: EmbedKind, hash: string): string {
    return `${space}\u0000${kind}\u0000${hash}`;
  }

  private static size(key: string, v: Float32Array): number {
    return v.byteLength + key.length * 2 + ENTRY_OVERHEAD;
  }

  /** A copy of the cached vector (and marks it recently used), or undefined. */
  get(space: string, kind: EmbedKind, hash: string): Float32Array | undefined {
    const key = EmbeddingCache.key(space, kind, hash);
    const v = this.map.get(key);
    if (!v) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v.slice();
  }

  has(space: string, kind: EmbedKind, hash: string): boolean {
    return this.map.has(EmbeddingCache.key(space, kind, hash));
  }

  /** Stores a copy of `vector`; evicts least recently used entries to stay within bounds. */
  set(space: string, kind: EmbedKind, hash: string, vector: Float32Array): void {
    const key = EmbeddingCache.key(space, kind, hash);
    const size = EmbeddingCache.size(key, vector);
    if (size > this.maxBytes || this.maxEntries < 1) return;
    const old = this.map.get(key);
    if (old) {
      this.bytes -= EmbeddingCache.size(key, old);
      this.map.delete(key);
    }
    this.map.set(key, vector.slice());
    this.bytes += size;
    while (this.bytes > this.maxBytes || this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      const ov = this.map.get(oldest.value)!;
      this.map.delete(oldest.value);
      this.bytes -= EmbeddingCache.size(oldest.value, ov);
      this.evictions++;
    }
  }

  /** Drops everything, or only one space. */
  clear(space?: string): void {
    if (space === undefined) {
      this.map.clear();
      this.bytes = 0;
      return;
    }
    const prefix = `${space}\u0000`;
    for (const [key, v] of this.map) {
      if (key.startsWith(prefix)) {
        this.map.delete(key);
        this.bytes -= EmbeddingCache.size(key, v);
      }
    }
  }

  stats(): EmbeddingCacheStats {
    return { entries: this.map.size, bytes: this.bytes, hits: this.hits, misses: this.misses, evictions: this.evictions };
  }
}

/**
 * An {@link Embedder} that answers from an {@link EmbeddingCache} first and asks the wrapped
 * embedder only for texts it has not seen (each distinct text once per call; concurrent calls
 * for the same text share one request). Identity (`id`, `space`, `dimension`) is the inner one's.
 */
export class CachedEmbedder implements Embedder {
  private readonly inflight = new Map<string, Promise<Float32Array>>();

  constructor(
    readonly inner: Embedder,
    readonly cache: EmbeddingCache = new EmbeddingCache(),
  ) {}

  get id(): string {
    return this.inner.id;
  }
  get space(): string {
    return this.inner.space;
  }
  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const space = this.inner.space;
    const result: Float32Array[] = new Array<Float32Array>(texts.length);
    const waits: Promise<void>[] = [];
    const missTexts: string[] = [];
    const missKeys: string[] = [];
    const missHashes: string[] = [];
    const batchSlot = new Map<string, Promise<Float32Array>>();
    let settleBatch: ((vs: Float32Array[]) => void) | undefined;
    let failBatch: ((err: unknown) => void) | undefined;
    const batch = new Promise<Float32Array[]>((res, rej) => {
      settleBatch = res;
      failBatch = rej;
    });
    batch.catch(() => undefined);

    texts.forEach((text, i) => {
      const hash = embedTextHash(text);
      const hit = this.cache.get(space, kind, hash);
      if (hit) {
        result[i] = hit;
        return;
      }
      const key = EmbeddingCache.key(space, kind, hash);
      let p = this.inflight.get(key) ?? batchSlot.get(key);
      if (!p) {
        const j = missTexts.length;
        missTexts.push(text);
        missKeys.push(key);
        missHashes.push(hash);
        p = batch.then((vs) => vs[j]!);
        p.catch(() => undefined);
        batchSlot.set(key, p);
      }
      waits.push(p.then((v) => void (result[i] = v.slice())));
    });

    if (missTexts.length > 0) {
      for (const [key, p] of batchSlot) this.inflight.set(key, p);
      try {
        const vs = await this.inner.embed(missTexts, kind);
        if (vs.length !== missTexts.length) {
          throw new Error(`${this.inner.id} returned ${vs.length} vectors for ${missTexts.length} texts`);
        }
        const storeSpace = this.inner.space; // may have become known just now (Ollama, unknown model)
        vs.forEach((v, j) => this.cache.set(storeSpace, kind, missHashes[j]!, v));
        settleBatch!(vs);
      } catch (err) {
        failBatch!(err);
      } finally {
        for (const key of missKeys) this.inflight.delete(key);
      }
    }
    await Promise.all(waits);
    return result;
  }

  available(): Promise<boolean> {
    return this.inner.available();
  }

  dispose(): void {
    this.inner.dispose();
  }
}
