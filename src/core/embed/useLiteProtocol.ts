/** Messages between {@link UseLiteEmbedder} (caller thread) and `useLiteWorker.ts` (its worker). */
import type { NetworkAttempt } from './networkGuard';

export const USE_LITE_DIMENSION = 512;

export interface UseLiteWorkerData {
  /** Longest text (in UTF-16 code units) handed to the model; longer ones are cut. */
  maxChars: number;
}

export type ToUseLiteWorker =
  /** Embed `texts`. `priority: 'query'` jumps ahead of queued document work. */
  { type: 'embed'; id: number; texts: string[]; priority: 'query' | 'document' } | { type: 'stats'; id: number };

export interface UseLiteWorkerStats {
  /** What runs the model (`wasm-simd-int16`: useLiteModel.ts and int16Matmul.ts). */
  backend: string;
  /** Time from worker start to model ready, warm-up included (ms). */
  loadMs: number;
  /** Whole-process resident set size (bytes), measured in the worker. */
  rss: number;
  /** The worker isolate's own JS heap in use (bytes). */
  heapUsed: number;
  /** Texts embedded since start (warm-up excluded). */
  textsEmbedded: number;
  /** Turns of the worker that embedded texts (the queries waiting share one; a document has its own). */
  modelCalls: number;
  /** Time spent inside the model for those texts (ms). */
  embedMs: number;
  /** Network attempts the guard blocked (must stay empty). */
  networkAttempts: NetworkAttempt[];
  /** Queue lengths at the time of the answer. */
  queuedQueries: number;
  queuedDocuments: number;
}

export type FromUseLiteWorker =
  | { type: 'ready'; loadMs: number; backend: string; rss: number }
  | { type: 'loadError'; message: string; networkAttempts: NetworkAttempt[] }
  /** `data` holds `count` vectors of `dimension` floats back to back (transferred, not copied). */
  | { type: 'result'; id: number; data: Float32Array; count: number; dimension: number }
  | { type: 'error'; id: number; message: string }
  | { type: 'stats'; id: number; stats: UseLiteWorkerStats };
