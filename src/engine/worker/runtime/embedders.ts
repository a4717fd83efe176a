/**
 * The embedder of the configuration (`embedding.*`: Ollama, the built-in model or hash) and the
 * background switch to a new one after a configuration change: every store re-embeds its
 * memories in the new space (src/core/memory/reembed.ts) while search keeps the old space;
 * each store switches when its new space is complete.
 */
import type { ResolvedConfig } from '../../../core/config';
import { selectEmbedder, type EmbedderSelection } from '../../../core/embed/select';
import type { ReembedResult } from '../../../core/memory/reembed';
import { errorMessage } from '../../../core/util/errors';
import type { Embedder } from '../../../core/embed/types';
import type { EngineEvent, StoreName } from '../../protocol';
import type { StoreRuntime } from './storeRuntime';

/** What diagnostics say about the embedder. */
export interface EmbedderInfo {
  provider: string;
  space: string;
  reason: string;
  degraded: boolean;
}

/** Chooses the embedder of a configuration (a test can inject another chooser); `log` hears the built-in model's loads and releases. */
export type ChooseEmbedder = (config: ResolvedConfig, log?: (line: string) => void) => Promise<EmbedderSelection>;

export const chooseEmbedder: ChooseEmbedder = (config, log) => choose(config, log, false);

/** The same choice, with the built-in model on the engine's own thread (EngineInit.modelThread 'engine'). */
export const chooseEmbedderInThread: ChooseEmbedder = (config, log) => choose(config, log, true);

function choose(config: ResolvedConfig, log: ((line: string) => void) | undefined, inThread: boolean): Promise<EmbedderSelection> {
  const e = config.embedding;
  return selectEmbedder({
    provider: e.provider,
    model: e.model,
    ollamaUrl: e.ollama_url,
    ...(log ? { useLite: { log } } : {}),
    ...(inThread ? { useLiteInThread: true } : {}),
  });
}

export function embedderInfo(sel: EmbedderSelection): EmbedderInfo {
  return { provider: sel.provider, space: sel.embedder.space, reason: sel.reason, degraded: sel.degraded };
}

/** The `embedding.*` values: a change of any of them means another embedder. */
export function embeddingKey(config: ResolvedConfig): string {
  const e = config.embedding;
  return JSON.stringify([e.provider, e.model, e.ollama_url]);
}

export type ReembedEvent = Extract<EngineEvent, { type: 'embeddings.progress' }>;

/**
 * Re-embeds every store that has vectors with `next`, one after the other, reporting progress;
 * true when every one switched. A store that fails or is cancelled keeps its old space; `current`
 * false stops (the runtimes were closed by a reload).
 */
export async function switchAll(
  runtimes: StoreRuntime[],
  next: Embedder,
  on: { report: (e: ReembedEvent) => void; warn: (m: string) => void; current: () => boolean },
): Promise<boolean> {
  const { report, warn } = on;
  let all = true;
  for (const rt of runtimes) {
    if (!on.current()) return false; // the runtimes were rebuilt meanwhile
    if (!rt.hasVectors || rt.activeEmbedder?.space === next.space) continue;
    const store: StoreName = rt.name;
    let r: ReembedResult;
    try {
      r = await rt.switchEmbedder(next, (p) =>
        report({ type: 'embeddings.progress', store, space: p.space, done: p.done, total: p.total, state: 'running' }),
      );
    } catch (e) {
      r = { status: 'failed', done: 0, total: 0, space: next.space, error: errorMessage(e) };
    }
    report({ type: 'embeddings.progress', store, space: r.space, done: r.done, total: r.total, state: r.status });
    if (r.status !== 'switched') {
      all = false;
      if (r.status === 'failed')
        warn(`${store} store: re-embedding with ${next.space} failed (${r.error ?? 'unknown error'}); search keeps the previous space`);
    }
  }
  return all;
}

/** The embedder the runtimes use, with what diagnostics say about it and the settings it came from. */
export interface ActiveEmbedder {
  embedder: Embedder;
  info: EmbedderInfo;
  key: string;
}

/** The configuration's embedder; undefined (keyword-only search, with a warning) when none can be had. */
export async function selectActive(
  choose: ChooseEmbedder,
  config: ResolvedConfig,
  warn: (m: string) => void,
  log?: (line: string) => void,
): Promise<ActiveEmbedder | undefined> {
  try {
    const sel = await choose(config, log);
    if (sel.degraded) warn(`embedder: ${sel.reason}`);
    return { embedder: sel.embedder, info: embedderInfo(sel), key: embeddingKey(config) };
  } catch (e) {
    warn(`no embedder (${errorMessage(e)}): search is keyword-only`);
    return undefined;
  }
}
