/**
 * Embedding throughput of each embedder on the same synthetic memory texts (one child process,
 * so USE-lite's ~240 MB does not count against the search figures). Ollama is measured only
 * when it answers on 127.0.0.1:11434 with its model installed; otherwise it is skipped with why.
 */
import { HashEmbedder } from '../src/core/embed/hashEmbedder';
import { UseLiteEmbedder } from '../src/core/embed/useLite';
import { OllamaEmbedder } from '../src/core/embed/ollama';
import type { Embedder } from '../src/core/embed/types';
import { syntheticMemories } from './corpus';
import { peakRssMb, round } from './stats';

export interface EmbedderThroughput {
  texts: number;
  texts_per_s: number;
  ms_per_text: number;
  load_ms?: number;
  /** The longest the caller's thread went without running a 10 ms timer while the model loaded (ms). */
  caller_max_gap_ms?: number;
}

export interface EmbedBenchResult {
  hash: EmbedderThroughput;
  use_lite: EmbedderThroughput | { skipped: string };
  ollama: EmbedderThroughput | { skipped: string };
  peak_rss_mb: number;
}

const progress = (s: string) => process.stderr.write(`  [embed] ${s}\n`);

async function throughput(e: Embedder, texts: string[], batch: number): Promise<EmbedderThroughput> {
  await e.embed(texts.slice(0, 2), 'document'); // warm-up
  const t = performance.now();
  for (let i = 0; i < texts.length; i += batch) await e.embed(texts.slice(i, i + batch), 'document');
  const ms = performance.now() - t;
  return { texts: texts.length, texts_per_s: round((texts.length / ms) * 1000, 1), ms_per_text: round(ms / texts.length, 3) };
}

export async function runEmbedBench(): Promise<EmbedBenchResult> {
  const texts = [...syntheticMemories(2000, 5)].map((m) => `${m.title}. ${m.content}`);
  const hash = new HashEmbedder({ dimension: 512 });
  const h = await throughput(hash, texts, 64);
  progress(`hash: ${h.texts_per_s} texts/s`);

  let useLite: EmbedBenchResult['use_lite'];
  const use = new UseLiteEmbedder();
  try {
    const t = performance.now();
    // The model loads in a worker: the caller's timers keep running (the unit test checks that
    // they fire; how long the longest gap is, is a time, measured here).
    let last = t;
    let maxGap = 0;
    const tick = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 10);
    try {
      await use.load();
    } finally {
      clearInterval(tick);
    }
    const loadMs = performance.now() - t;
    useLite = {
      ...(await throughput(use, texts.slice(0, 150), 16)),
      load_ms: Math.round(loadMs),
      caller_max_gap_ms: Math.round(maxGap),
    };
    progress(`use-lite: ${useLite.texts_per_s} texts/s`);
  } catch (e) {
    useLite = { skipped: `USE-lite could not load: ${(e as Error).message}` };
  } finally {
    use.dispose();
  }

  let ollama: EmbedBenchResult['ollama'];
  const ol = new OllamaEmbedder({ probeTimeoutMs: 1500 });
  try {
    if (await ol.available()) ollama = await throughput(ol, texts.slice(0, 200), 32);
    else ollama = { skipped: 'Ollama not reachable on 127.0.0.1:11434 (or nomic-embed-text not installed)' };
  } catch (e) {
    ollama = { skipped: `Ollama failed: ${(e as Error).message}` };
  } finally {
    ol.dispose();
  }
  return { hash: h, use_lite: useLite, ollama, peak_rss_mb: peakRssMb() };
}
