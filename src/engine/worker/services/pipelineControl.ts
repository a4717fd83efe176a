/**
 * The engine's pipeline controls over src/core: pause/resume of the job workers, mode flags,
 * reviews, the pipeline's change history (for undo), document ingest (the file read, the job run
 * or awaited with its progress: src/core/documents/ingestProgress.ts) and the maintenance
 * diagnostics. services/pipelines.ts keeps the state (which pipeline, paused or not) and calls
 * these; they hold none. The live Ollama client the pipeline uses is src/core/llm/liveOllama.ts.
 */
import { shownValue } from '../../../core/util/shownValue';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Store } from '../../../core/store/store';
import type { MemoryPipeline } from '../../../core/pipeline/pipeline';
import { PIPELINE_WHO } from '../../../core/pipeline/audit';
import type { PendingReview } from '../../../core/pipeline/reviews';
import { getDiagnostics } from '../../../core/maintenance/diagnostics';
import { documentMemoryIds, getDocument } from '../../../core/documents/ingest';
import { documentProgress } from '../../../core/documents/ingestProgress';
import { ollamaProviderFromConfig } from '../../../core/llm/ollamaProvider';
import type { PipelineV2Config } from '../../../core/config/types';
import { errorMessage } from '../../../core/util/errors';
import { LIMIT_RANGES } from '../../../core/memory/limits';
import { EngineError, cancelledError } from '../../errors';
import type { DocumentIngestResult, PipelineChange, PipelineDiagnostics, PipelineModeName, PipelineReview } from '../../protocol';

export const PIPELINE_MODES: readonly PipelineModeName[] = ['off', 'shadow', 'controlled', 'full'];

/** The flags of a pipeline mode, as dotted setting keys (`mutationsFrozen` is the emergency brake: cleared). */
export function modeSettings(mode: PipelineModeName): Record<string, boolean> {
  if (!PIPELINE_MODES.includes(mode)) {
    throw new EngineError('invalid_input', `mode: must be one of ${PIPELINE_MODES.join(', ')}, got ${shownValue(mode)}`);
  }
  const P = 'memory.pipelineV2';
  return {
    [`${P}.enabled`]: mode !== 'off',
    [`${P}.shadowMode`]: mode === 'shadow',
    [`${P}.allowUpdateDelete`]: mode === 'full',
    [`${P}.mutationsFrozen`]: false,
  };
}

/** Stops leasing: extraction and document workers wait for their job in flight (retention/maintenance keep running). */
export async function pauseWorkers(p: MemoryPipeline): Promise<void> {
  await Promise.all([p.extractWorker.stop(), p.documentWorker.stop()]);
}

export function toReview(r: PendingReview): PipelineReview {
  return {
    id: r.id,
    action: r.action,
    targetId: r.targetId,
    targetContent: r.targetContent,
    sourceMemoryId: r.sourceMemoryId,
    factContent: r.factContent,
    factType: r.factType,
    confidence: r.confidence,
    reason: r.reason,
    conflict: r.conflict,
    createdAt: r.createdAt,
  };
}

/**
 * Changes applied by the pipeline or by an approved review (changed_by `pipeline-v2…` or
 * `… (approved pipeline review)`), newest first: what "Undo Last Pipeline Change" offers.
 */
export function pipelineChanges(store: Store, limit: number = LIMIT_RANGES.pipelineChanges.default): PipelineChange[] {
  const n = limit; // checked by the handler (LIMIT_RANGES.pipelineChanges)
  return store
    .all(
      `SELECT id, memory_id, event, changed_by, reason, old_content, new_content, created_at FROM memory_history
        WHERE memory_id IS NOT NULL AND event IN ('created', 'updated', 'deleted')
          AND (changed_by LIKE ? OR changed_by LIKE '%(approved pipeline review)')
        ORDER BY created_at DESC, rowid DESC LIMIT ?`,
      [`${PIPELINE_WHO}%`, n],
    )
    .map((r) => ({
      historyId: String(r.id),
      memoryId: String(r.memory_id),
      event: String(r.event) as PipelineChange['event'],
      changedBy: String(r.changed_by),
      reason: r.reason == null ? null : String(r.reason),
      oldContent: r.old_content == null ? null : String(r.old_content),
      newContent: r.new_content == null ? null : String(r.new_content),
      createdAt: String(r.created_at),
    }));
}

/** Reads a workspace text file for ingest: must exist, be a file, UTF-8 text, within the size limit. */
export function readDocumentFile(file: string, maxBytes: number): { content: string; title: string } {
  if (!path.isAbsolute(file)) throw new EngineError('invalid_input', `path: must be an absolute file path, got ${shownValue(file)}`);
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new EngineError('not_found', `No file at ${file}.`);
  }
  if (!st.isFile()) throw new EngineError('invalid_input', `${file} is not a file.`);
  if (st.size > maxBytes)
    throw new EngineError(
      'invalid_input',
      `${file} is ${st.size} bytes; documents may be at most ${maxBytes} bytes (memory.pipelineV2.documentMaxContentBytes).`,
    );
  const buf = fs.readFileSync(file);
  if (buf.includes(0)) throw new EngineError('invalid_input', `${file} looks binary; only text files can be ingested.`);
  const content = buf.toString('utf8');
  if (!content.trim()) throw new EngineError('invalid_input', `${file} is empty.`);
  return { content, title: path.basename(file) };
}

/**
 * Runs (when the document worker is not running: mode off or paused — an explicit ingest is
 * the user's request) or waits for the document job, reporting its progress chunk by chunk.
 */
export async function waitForDocument(
  store: Store,
  p: MemoryPipeline,
  id: string,
  signal: AbortSignal,
  progress: (done: number, total: number, message?: string) => void,
): Promise<DocumentIngestResult> {
  let running: Promise<void> | undefined;
  for (;;) {
    if (signal.aborted) throw cancelledError();
    const doc = getDocument(store, id);
    if (!doc) throw new EngineError('not_found', `Document ${id} disappeared.`);
    const at = documentProgress(store, id, doc.status, doc.chunkCount);
    progress(at.pct, 100, at.message);
    if (doc.status === 'done' || doc.status === 'failed') {
      await running; // the job's last writes are committed
      return { documentId: id, status: doc.status, chunkCount: doc.chunkCount, memoryIds: documentMemoryIds(store, id), error: doc.error };
    }
    // Run the job here, polling its progress meanwhile; a job leased by a stopping worker: look again.
    running ??= p.documentWorker.isRunning
      ? undefined
      : p.documentWorker.drain({ maxJobs: 1 }).then(async (r) => {
          if (r.ok + r.failed === 0) await delay(100);
          running = undefined;
        });
    await Promise.race([running ?? delay(100), delay(250)]);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Maintenance health of the project store plus the providers in use (LLM probed, never pulled). */
export async function pipelineDiagnostics(
  store: Store,
  cfg: Readonly<PipelineV2Config>,
  now: Date,
  base: Omit<PipelineDiagnostics, 'health' | 'completedJobs' | 'llm'>,
): Promise<PipelineDiagnostics> {
  const d = getDiagnostics(store, { leaseTimeoutMs: cfg.leaseTimeoutMs, now });
  const completed = Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM memory_jobs WHERE status = 'completed'`)?.n ?? 0);
  const llm: PipelineDiagnostics['llm'] = {
    provider: 'ollama',
    url: cfg.ollamaUrl,
    model: cfg.extractionModel,
    reachable: false,
    modelPresent: false,
  };
  try {
    const probe = await ollamaProviderFromConfig(cfg).probe();
    llm.reachable = probe.reachable;
    llm.modelPresent = probe.hasModel;
    if (probe.error) llm.error = probe.error;
  } catch (e) {
    llm.error = errorMessage(e);
  }
  return {
    ...base,
    health: { score: d.score, queue: d.queue, index: d.index, storage: d.storage, at: d.at },
    completedJobs: completed,
    llm,
  };
}
