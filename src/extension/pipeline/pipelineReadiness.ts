/**
 * Whether the pipeline can work: Ollama reachable at the configured URL and the extraction model
 * installed. Checked before a mode switch (pipelineCommands.ts offers to pull a missing model,
 * with progress) and shown by the Pipeline view ("waiting for Ollama" instead of "running").
 * Pure: no `vscode` import; it talks to Ollama through the core's OllamaProvider.
 */
import { OllamaProvider } from '../../core/llm/ollamaProvider';
import type { PipelineDiagnostics, PipelineModeName } from '../../engine/protocol';

/** Where the pipeline's model lives (PipelineDiagnostics.llm). */
export interface OllamaTarget {
  url: string;
  model: string;
}

export type Readiness =
  { kind: 'ready' } | { kind: 'unreachable'; message: string } | { kind: 'model-missing'; message: string; model: string };

/** What a mode needs: nothing for "off"; Ollama and the extraction model for the others. */
export async function checkPipelineModel(mode: PipelineModeName, llm: OllamaTarget, fetchImpl?: typeof fetch): Promise<Readiness> {
  if (mode === 'off') return { kind: 'ready' };
  const fetchOption = fetchImpl ? { fetch: fetchImpl } : {};
  const provider = new OllamaProvider({ host: llm.url, model: llm.model, probeTimeoutMs: 3000, ...fetchOption });
  const probe = await provider.probe();
  if (!probe.reachable) {
    // The probe's error is a sentence that names the host and the cause: said once, not wrapped in another.
    const why = (probe.error ?? `Ollama is not reachable at ${llm.url}`).replace(/([^.!?])\s*$/, '$1.');
    const message = `${why} In ${mode} mode the pipeline waits for it: jobs stay queued until it answers.`;
    return { kind: 'unreachable', message };
  }
  if (!probe.hasModel) {
    const message =
      `Ollama at ${llm.url} does not have the extraction model ${llm.model}. ` +
      `In ${mode} mode the pipeline waits until it is installed.`;
    return { kind: 'model-missing', model: llm.model, message };
  }
  return { kind: 'ready' };
}

/** Pulls the model through Ollama's /api/pull; `onProgress` gets a percentage when Ollama reports sizes. */
export async function pullPipelineModel(
  llm: OllamaTarget,
  onProgress: (message: string, percent?: number) => void,
  fetchImpl?: typeof fetch,
): Promise<'present' | 'pulled'> {
  const provider = new OllamaProvider({ host: llm.url, model: llm.model, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const r = await provider.ensureModel({
    pull: true,
    onProgress: (status, completed, total) => onProgress(status, total ? Math.round(((completed ?? 0) / total) * 100) : undefined),
  });
  return r === 'missing' ? 'pulled' : r;
}

/**
 * What the extraction worker is doing, as people would say it: a pipeline that is on but has no
 * reachable Ollama (or not its model) is "waiting", never "running" (its jobs cannot run).
 */
export function workerState(d: Pick<PipelineDiagnostics, 'status' | 'llm'>): string {
  const s = d.status;
  if (s.restricted) return 'not running (restricted)';
  if (s.paused) return 'paused';
  if (s.mode === 'off') return 'off';
  if (!d.llm.reachable) return 'waiting for Ollama';
  if (!d.llm.modelPresent) return `waiting for model ${d.llm.model}`;
  return s.state === 'degraded' ? 'degraded' : 'running';
}
