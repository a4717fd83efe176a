/**
 * An LlmProvider that follows the live config: the pipeline is built once, but a config
 * reload (settings, agent.yaml, pipeline.setMode) may change the Ollama URL, model or
 * timeout. The Ollama client is rebuilt when one of them changes.
 */
import type { PipelineV2Config } from '../config/types';
import { ollamaProviderFromConfig, type OllamaProvider } from './ollamaProvider';
import type { GenerateOptions, LlmProvider } from './types';

type OllamaCfg = Pick<PipelineV2Config, 'ollamaUrl' | 'extractionModel' | 'extractionTimeout'>;

export function liveOllama(cfg: () => OllamaCfg): LlmProvider & { ensureModel: OllamaProvider['ensureModel'] } {
  let key = '';
  let current: OllamaProvider | undefined;
  const provider = (): OllamaProvider => {
    const c = cfg();
    const k = `${c.ollamaUrl}\n${c.extractionModel}\n${c.extractionTimeout}`;
    if (!current || k !== key) {
      current = ollamaProviderFromConfig(c);
      key = k;
    }
    return current;
  };
  return {
    get id() {
      return provider().id;
    },
    get model() {
      return provider().model;
    },
    generate: (prompt: string, opts?: GenerateOptions) => provider().generate(prompt, opts),
    available: () => provider().available(),
    ensureModel: (opts) => provider().ensureModel(opts),
  };
}
