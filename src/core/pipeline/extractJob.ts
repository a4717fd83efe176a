/**
 * The `extract` job: raw memory → extraction → decisions → writes by mode → graph. All LLM
 * and embedding work happens before the single write transaction; the graph follows in its
 * own transaction and may fail without undoing the facts. Provider outages release the job
 * (no attempt spent); bad model output only adds warnings to the job result.
 */
import type { Store } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { Embedder } from '../embed/types';
import { TransientJobError } from '../jobs/errors';
import type { Job } from '../jobs/queue';
import type { JobContext } from '../jobs/worker';
import { isTransientLlmError, type LlmProvider } from '../llm/types';
import { writeMemoryGraph } from '../graph/persist';
import { removeMemoryGraph } from '../graph/gc';
import { errorMessage } from '../util/errors';
import { applyPhaseCWrites, type OutcomeStatus, type WriteMode } from './apply';
import { runShadowDecisions, type FindCandidates } from './decision';
import { extractFacts } from './extraction';
import { factEmbeddingText, prepareEmbeddings } from '../memory/prepareEmbeddings';
import { PIPELINE_WHO } from './audit';

export interface ExtractSettings {
  mode: WriteMode;
  graphEnabled: boolean;
  minFactConfidenceForWrite: number;
  extractionTimeoutMs: number;
}

export interface ExtractDeps {
  store: Store;
  memory: MemoryService;
  llm: LlmProvider;
  embedder?: Embedder;
  findCandidates: FindCandidates;
  settings: () => ExtractSettings;
  now: () => Date;
}

export interface ExtractJobResult {
  mode: WriteMode;
  model: string;
  skipped?: string;
  facts: number;
  entities: number;
  proposals: Record<'ADD' | 'UPDATE' | 'DELETE' | 'NONE', number>;
  outcomes: Partial<Record<OutcomeStatus, number>>;
  createdIds: string[];
  reviewIds: string[];
  llmCalls: number;
  graph?: { entitiesCreated: number; relationsCreated: number; mentionsLinked: number } | { error: string };
  warnings: string[];
}

/** Rethrow provider failures so the worker retries: outages without spending an attempt. */
function rethrow(e: unknown): never {
  if (isTransientLlmError(e)) throw new TransientJobError(errorMessage(e), { cause: e });
  throw e;
}

export function createExtractHandler(deps: ExtractDeps) {
  return async (job: Job, ctx: JobContext): Promise<ExtractJobResult> => {
    const s = deps.settings();
    const result: ExtractJobResult = {
      mode: s.mode,
      model: deps.llm.model,
      facts: 0,
      entities: 0,
      proposals: { ADD: 0, UPDATE: 0, DELETE: 0, NONE: 0 },
      outcomes: {},
      createdIds: [],
      reviewIds: [],
      llmCalls: 0,
      warnings: [],
    };
    const src = job.memoryId ? deps.memory.get(job.memoryId, { includeDeleted: true }) : undefined;
    if (!src) return { ...result, skipped: 'memory_missing' };
    if (src.deletedAt) return { ...result, skipped: 'memory_deleted' };
    // No re-learning loops: the pipeline's own facts are never extracted again.
    if (src.who === PIPELINE_WHO) return { ...result, skipped: 'derived_fact' };

    const text = src.title ? `${src.title}\n\n${src.content}` : src.content;
    const extraction = await extractFacts(deps.llm, text, { timeoutMs: s.extractionTimeoutMs, signal: ctx.signal }).catch(rethrow);
    result.llmCalls++;
    result.facts = extraction.facts.length;
    result.entities = extraction.entities.length;
    result.warnings.push(...extraction.warnings);

    const decisions = await runShadowDecisions(deps.llm, extraction.facts, deps.findCandidates, {
      timeoutMs: s.extractionTimeoutMs,
      signal: ctx.signal,
      excludeIds: new Set([src.id]),
    }).catch(rethrow);
    result.llmCalls += decisions.llmCalls;
    result.warnings.push(...decisions.warnings);
    for (const p of decisions.proposals) result.proposals[p.action]++;

    // Vectors for what may be written, outside the transaction.
    const texts: string[] = [];
    if (s.mode !== 'shadow') {
      for (const p of decisions.proposals) {
        if (p.action === 'ADD') texts.push(factEmbeddingText(p.fact.content));
        if (p.action === 'UPDATE' && s.mode === 'full' && p.targetId) {
          texts.push(factEmbeddingText(p.fact.content, deps.memory.get(p.targetId)?.title ?? ''));
        }
      }
    }
    const embeddings = await prepareEmbeddings(deps.embedder, texts, result.warnings);

    const applied = applyPhaseCWrites(
      {
        store: deps.store,
        memory: deps.memory,
        mode: s.mode,
        minFactConfidenceForWrite: s.minFactConfidenceForWrite,
        extractionModel: deps.llm.model,
        sourceMemoryId: src.id,
        factCount: extraction.facts.length,
        entityCount: extraction.entities.length,
        embeddings,
        now: deps.now(),
      },
      decisions.proposals,
    );
    for (const o of applied.outcomes) {
      result.outcomes[o.status] = (result.outcomes[o.status] ?? 0) + 1;
      if (o.status === 'created' && o.memoryId) result.createdIds.push(o.memoryId);
      if (o.reviewId) result.reviewIds.push(o.reviewId);
    }

    // Graph: separate transaction, non-fatal (docs/pipeline.md "Knowledge graph"). Shadow mode writes nothing.
    if (s.mode !== 'shadow' && (s.graphEnabled || applied.changedTargets.length)) {
      try {
        const iso = deps.now().toISOString();
        const stats = deps.store.transaction((tx) => {
          for (const t of applied.changedTargets) removeMemoryGraph(tx, t, iso);
          return s.graphEnabled ? writeMemoryGraph(tx, src.id, extraction.entities, iso) : undefined;
        });
        if (stats)
          result.graph = {
            entitiesCreated: stats.entitiesCreated,
            relationsCreated: stats.relationsCreated,
            mentionsLinked: stats.mentionsLinked,
          };
      } catch (e) {
        result.graph = { error: errorMessage(e) };
        result.warnings.push(`graph write failed (facts kept): ${errorMessage(e)}`);
      }
    }
    try {
      deps.store.transaction((tx) =>
        tx.run(`UPDATE memories SET pipeline_status = ? WHERE id = ?`, [s.mode === 'shadow' ? 'shadowed' : 'complete', src.id]),
      );
    } catch (e) {
      result.warnings.push(`could not mark the memory processed: ${errorMessage(e)}`);
    }
    return result;
  };
}
