/** LLM providers (docs/pipeline.md "Providers"). */
export { LlmError, isTransientLlmError, type GenerateOptions, type LlmErrorCode, type LlmProvider } from './types';
export {
  DEFAULT_LLM_MODEL,
  DEFAULT_LLM_TIMEOUT_MS,
  OllamaProvider,
  ollamaProviderFromConfig,
  type OllamaProviderOptions,
} from './ollamaProvider';
