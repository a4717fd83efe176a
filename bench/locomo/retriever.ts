// The interface the LoCoMo harness drives. One retriever instance serves one config for a
// whole run; it sees every sample through `index` and answers that sample's questions
// through `search`, keyed by `sampleId` (one memory store per sample, per the README).
//
// Call order guaranteed by the harness (bench/locomo/harness.ts), per config:
//   create(ctx) → for each sample: index(sampleId, docs) → search(sampleId, …) × questions
//   → release?(sampleId) → next sample … → close()
// Samples are processed one at a time, so a retriever backed by a real store (sql.js + FTS +
// HNSW on disk under ctx.workDir) holds at most one open store if it implements `release`.
// `close` is called even when a step throws.

/** One turn as one memory. */
export interface RetrieverDoc {
  /** Canonical dia id (`D3:12`): what `search` must return. */
  id: string;
  /** `"<speaker>: <text>"` (+ `" [image: <caption>]"`). */
  text: string;
  /** The session's date string, e.g. `1:56 pm on 8 May, 2023`. */
  date: string;
  /** Who said it. */
  speaker?: string;
  /** Its session's number (turns of one session follow each other). */
  session?: number;
}

export interface Retriever {
  /** Shown in progress lines (the registry key is the config's name in the output). */
  name: string;
  /** Build the store of one sample from all its turns. Called once per sample, before its searches. */
  index(sampleId: string, docs: RetrieverDoc[]): Promise<void>;
  /** Up to `k` dia ids of `sampleId`'s store, best first, no repeats. */
  search(sampleId: string, query: string, k: number): Promise<string[]>;
  /** Optional: the harness is done with this sample; free its store. */
  release?(sampleId: string): Promise<void>;
  /** Free everything. */
  close(): Promise<void>;
}

/** Handed to a config's factory by the harness. */
export interface RetrieverContext {
  /** A fresh empty directory for this config's stores; the harness deletes it afterwards. */
  workDir: string;
  /** Progress/diagnostics: goes to stderr, never stdout. */
  log(message: string): void;
}

export type RetrieverFactory = (ctx: RetrieverContext) => Retriever | Promise<Retriever>;

/**
 * Helper for the common shape "one real store per sample": implement `open` (build a store
 * from the docs, e.g. in `path.join(ctx.workDir, sampleId)`), `query` and `dispose`; this
 * class keeps the sampleId → store map and the lifecycle right.
 */
export abstract class PerSampleRetriever<S> implements Retriever {
  private readonly stores = new Map<string, S>();

  constructor(readonly name: string) {}

  protected abstract open(sampleId: string, docs: RetrieverDoc[]): Promise<S>;
  protected abstract query(store: S, query: string, k: number): Promise<string[]>;
  protected abstract dispose(store: S): Promise<void>;

  async index(sampleId: string, docs: RetrieverDoc[]): Promise<void> {
    if (this.stores.has(sampleId)) await this.release(sampleId);
    this.stores.set(sampleId, await this.open(sampleId, docs));
  }

  async search(sampleId: string, query: string, k: number): Promise<string[]> {
    const store = this.stores.get(sampleId);
    if (store === undefined) throw new Error(`${this.name}: search before index for sample ${sampleId}`);
    return this.query(store, query, k);
  }

  async release(sampleId: string): Promise<void> {
    const store = this.stores.get(sampleId);
    if (store === undefined) return;
    this.stores.delete(sampleId);
    await this.dispose(store);
  }

  async close(): Promise<void> {
    const errors: unknown[] = [];
    for (const id of [...this.stores.keys()]) {
      try {
        await this.release(id);
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length) throw errors[0];
  }
}
