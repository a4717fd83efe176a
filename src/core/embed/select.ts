import { CachedEmbedder, EmbeddingCache } from './cache';
import { HashEmbedder, type HashEmbedderOptions } from './hashEmbedder';
import { DEFAULT_OLLAMA_EMBED_MODEL, OllamaEmbedder } from './ollama';
import { normalizeOllamaHost } from './ollamaHttp';
import type { Embedder } from './types';
import type { UseLiteInThreadEmbedder } from './useLiteInThread';
import { UseLiteEmbedder, type UseLiteEmbedderOptions } from './useLite';

export type EmbeddingProviderSetting = 'auto' | 'ollama' | 'builtin' | 'hash';

export interface SelectEmbedderConfig {
  /** `auto`: Ollama if it answers and has the model, else the built-in USE-lite, else hash. */
  provider: EmbeddingProviderSetting;
  /** Ollama embedding model. Default `nomic-embed-text`. */
  model?: string;
  /** Default `http://127.0.0.1:11434`. */
  ollamaUrl?: string;
  /** Ollama per-request limit (ms). Default 30 000. */
  timeoutMs?: number;
  /** Ollama reachability check limit (ms). Default 3 000. */
  probeTimeoutMs?: number;
  /**
   * Model auto-pull: when Ollama answers but lacks the model, pull it. This makes
   * Ollama download from the internet, so it is off unless the user turned it on. Default false.
   */
  pullModel?: boolean;
  /** Wrap the choice in a {@link CachedEmbedder} with this cache; `false` = no cache. Default: a new cache. */
  cache?: EmbeddingCache | false;
  useLite?: UseLiteEmbedderOptions;
  /**
   * Run the built-in model on the calling thread (useLiteInThread.ts) instead of a worker thread
   * of its own: the CLI's engine (EngineInit.modelThread). Default false.
   */
  useLiteInThread?: boolean;
  hash?: HashEmbedderOptions;
}

export interface EmbedderSelection {
  embedder: Embedder;
  /** Which implementation was chosen. */
  provider: 'ollama' | 'builtin' | 'hash';
  /** One or two sentences for a person: what was chosen and why. */
  reason: string;
  /** True when the choice is not what was asked for, or is known not to work right now. */
  degraded: boolean;
}

/**
 * Picks the embedder for a configuration and says why. Never throws for an unreachable
 * provider: it falls back (auto / builtin) or returns the asked-for Ollama embedder flagged
 * `degraded` (its failures then surface per call and writes go `pending_embedding`).
 */
export async function selectEmbedder(config: SelectEmbedderConfig): Promise<EmbedderSelection> {
  const sel = await choose(config);
  if (config.cache === false) return sel;
  return { ...sel, embedder: new CachedEmbedder(sel.embedder, config.cache ?? new EmbeddingCache()) };
}

async function choose(config: SelectEmbedderConfig): Promise<EmbedderSelection> {
  const model = config.model ?? DEFAULT_OLLAMA_EMBED_MODEL;
  const host = normalizeOllamaHost(config.ollamaUrl);
  const makeOllama = () => new OllamaEmbedder({ host, model, timeoutMs: config.timeoutMs, probeTimeoutMs: config.probeTimeoutMs });

  switch (config.provider) {
    case 'hash': {
      const e = new HashEmbedder(config.hash);
      return {
        embedder: e,
        provider: 'hash',
        reason: `Using the hash embedder (${e.dimension}-d, lexical only) as configured.`,
        degraded: false,
      };
    }
    case 'builtin':
      return builtinOrHash(config, 'as configured', true);
    case 'ollama': {
      const ollama = makeOllama();
      const { note, ok } = await tryOllama(ollama, config);
      return {
        embedder: ollama,
        provider: 'ollama',
        reason: ok
          ? `Using Ollama ${model} at ${host} as configured (${note}).`
          : `Using Ollama ${model} as configured, but ${note}; embeddings will fail until that is fixed.`,
        degraded: !ok,
      };
    }
    case 'auto': {
      const ollama = makeOllama();
      const { note, ok } = await tryOllama(ollama, config);
      if (ok) {
        return { embedder: ollama, provider: 'ollama', reason: `Using Ollama ${model} at ${host}: ${note}.`, degraded: false };
      }
      ollama.dispose();
      return builtinOrHash(config, `because ${note}`, false);
    }
    default:
      throw new Error(`unknown embedding provider: ${String((config as { provider: unknown }).provider)}`);
  }
}

async function tryOllama(ollama: OllamaEmbedder, config: SelectEmbedderConfig): Promise<{ ok: boolean; note: string }> {
  const probe = await ollama.probe();
  // The probe's error names the host and the cause already: it is the note, not wrapped in another sentence.
  if (!probe.reachable) return { ok: false, note: clause(probe.error ?? `Ollama is not reachable at ${ollama.host}`) };
  if (!probe.hasModel && !config.pullModel) {
    return {
      ok: false,
      note: `Ollama at ${ollama.host} does not have ${ollama.model} (run \`ollama pull ${ollama.model}\` or enable model auto-pull)`,
    };
  }
  try {
    const r = await ollama.ensureModel({ pull: config.pullModel ?? false });
    if (r.status === 'missing') return { ok: false, note: `Ollama at ${ollama.host} does not have ${ollama.model}` };
    return {
      ok: true,
      note: r.status === 'pulled' ? `pulled ${ollama.model}, ${r.dimension}-d` : `it answers and has ${ollama.model} (${r.dimension}-d)`,
    };
  } catch (err) {
    return { ok: false, note: clause((err as Error).message) };
  }
}

/** A message to go inside a sentence: no final period, and a leading "The" in lower case. */
function clause(message: string): string {
  return message.replace(/\.\s*$/, '').replace(/^The /, 'the ');
}

/** The built-in model is released after this long without work (it loads again in about half a second). */
export const DEFAULT_BUILTIN_IDLE_MS = 120_000;

/**
 * The built-in model when its files are there — chosen without loading it: it loads on the first
 * embedding asked of it (docs/recall.md "The query path") — else the hash embedder.
 */
function builtinOrHash(config: SelectEmbedderConfig, why: string, asked: boolean): EmbedderSelection {
  const options = { idleDisposeMs: DEFAULT_BUILTIN_IDLE_MS, ...config.useLite };
  const use = config.useLiteInThread ? inThreadEmbedder(options) : new UseLiteEmbedder(options);
  const missing = use.missing();
  if (!missing) {
    return {
      embedder: use,
      provider: 'builtin',
      reason: `Using the built-in offline model (Universal Sentence Encoder lite, 512-d, loaded when first needed) ${why}.`,
      degraded: false,
    };
  }
  // "could not be loaded" is said once, by this sentence: only the cause goes in the parentheses.
  const loadError = clause(missing);
  use.dispose();
  const hash = new HashEmbedder(config.hash);
  return {
    embedder: hash,
    provider: 'hash',
    reason: `Using the hash embedder (lexical only) because the built-in model could not be loaded (${loadError})${asked ? '' : `; it was tried ${why}`}.`,
    degraded: true,
  };
}

/** The built-in model on this thread, its module loaded only then: a thread that runs it in a worker never loads the model's code. */
function inThreadEmbedder(options: UseLiteEmbedderOptions): UseLiteInThreadEmbedder {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { UseLiteInThreadEmbedder: InThread } = require('./useLiteInThread') as typeof import('./useLiteInThread');
  return new InThread(options);
}
