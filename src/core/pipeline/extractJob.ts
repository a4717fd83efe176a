/**
 * The `extract` job: raw memory → extraction → decisions → writes by mode → graph. All LLM
 * and embedding work happens before the single write transaction; the graph follows in its
 * own transaction and may fail without undoing the facts. Provider outages release the job
 * (no attempt spent); bad model output only adds warnings to the job result.
 */
import type { Store } from '../store/store';
import type { MemoryService } from '../memory/memoryService';
import type { MemoryRecord } from '../memory/types';
import type { Embedder } from '../embed/types';
import { TransientJobError } from '../jobs/errors';
import type { Job } from '../jobs/queue';
import type { JobContext } from '../jobs/worker';
import { isTransientLlmError, type LlmProvider } from '../llm/types';
import { writeMemoryGraph } from '../graph/persist';
import { removeMemoryGraph } from '../graph/gc';
import { errorMessage } from '../util/errors';
import { applyPhaseCWrites, type Outcome, type OutcomeStatus, type WriteMode } from './apply';
import { runShadowDecisions, type FindCandidates, type Proposal } from './decision';
import { extractFacts, type ExtractionResult } from './extraction';
import { factEmbeddingText, prepareEmbeddings } from '../memory/prepareEmbeddings';
import { PIPELINE_WHO } from './audit';
import { guardSecrets } from '../memory/secretGuard';
import { describeKinds } from '../secrets/detect';
import type { SecretPolicy } from '../secrets/policy';
import { plural } from '../text/plural';

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
    const skipped = skipReason(src);
    if (skipped || !src) return { ...result, skipped };

    const text = src.title ? `${src.title}\n\n${src.content}` : src.content;
    const extracted = await extractFacts(deps.llm, text, { timeoutMs: s.extractionTimeoutMs, signal: ctx.signal }).catch(rethrow);
    // A model may answer with a credential (made up, or from its own context): guarded before any audit row holds it.
    const extraction = guardExtraction(extracted, deps.memory.secretPolicy);
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
    const embeddings = await prepareEmbeddings(deps.embedder, embeddingTexts(deps.memory, s.mode, decisions.proposals), result.warnings);

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
    tallyOutcomes(result, applied.outcomes);
    // Graph: separate transaction, non-fatal (docs/pipeline.md "Knowledge graph"). Shadow mode writes nothing.
    if (s.mode !== 'shadow' && (s.graphEnabled || applied.changedTargets.length)) {
      writeGraph(
        deps,
        { graphEnabled: s.graphEnabled, srcId: src.id, entities: extraction.entities, changedTargets: applied.changedTargets },
        result,
      );
    }
    markProcessed(deps.store, s.mode, src.id, result);
    return result;
  };
}

/**
 * The extraction with its credentials handled by the store's policy (docs/secrets.md): redacted
 * under `redact`; under `refuse` the facts and entities holding one are dropped, with a warning.
 */
export function guardExtraction(x: ExtractionResult, policy: SecretPolicy): ExtractionResult {
  if (policy === 'allow') return x;
  if (policy === 'redact') {
    const g = guardSecrets({ facts: x.facts, entities: x.entities }, 'redact');
    if (!g.kinds.length) return x;
    return { ...g.value, warnings: [...x.warnings, `the model's answer held ${describeKinds(g.kinds)}; redacted`] };
  }
  const clean = <T>(v: T) => !guardSecrets(v, 'refuse').refused;
  const facts = x.facts.filter(clean);
  const entities = x.entities.filter(clean);
  const dropped = x.facts.length - facts.length + (x.entities.length - entities.length);
  if (!dropped) return x;
  return {
    facts,
    entities,
    warnings: [...x.warnings, `${plural(dropped, 'fact or entity', 'facts or entities')} not kept: they held a secret`],
  };
}

/** Why the memory is not extracted: gone, deleted, or one of the pipeline's own facts (no re-learning loops). */
function skipReason(src: MemoryRecord | undefined): string | undefined {
  if (!src) return 'memory_missing';
  if (src.deletedAt) return 'memory_deleted';
  if (src.who === PIPELINE_WHO) return 'derived_fact';
  return undefined;
}

/** The texts to embed: added facts, and updated ones (with the target's title) when destructive writes are allowed. */
function embeddingTexts(memory: MemoryService, mode: WriteMode, proposals: Proposal[]): string[] {
  const texts: string[] = [];
  if (mode === 'shadow') return texts;
  for (const p of proposals) {
    if (p.action === 'ADD') texts.push(factEmbeddingText(p.fact.content));
    if (p.action === 'UPDATE' && mode === 'full' && p.targetId) {
      texts.push(factEmbeddingText(p.fact.content, memory.get(p.targetId)?.title ?? ''));
    }
  }
  return texts;
}

function tallyOutcomes(result: ExtractJobResult, outcomes: Outcome[]): void {
  for (const o of outcomes) {
    result.outcomes[o.status] = (result.outcomes[o.status] ?? 0) + 1;
    if (o.status === 'created' && o.memoryId) result.createdIds.push(o.memoryId);
    if (o.reviewId) result.reviewIds.push(o.reviewId);
  }
}

interface GraphWrite {
  graphEnabled: boolean;
  srcId: string;
  entities: ExtractionResult['entities'];
  changedTargets: string[];
}

/** Collect the changed targets' provenance and write the source's graph; a failure only adds a warning. */
function writeGraph(deps: ExtractDeps, g: GraphWrite, result: ExtractJobResult): void {
  try {
    const iso = deps.now().toISOString();
    const stats = deps.store.transaction((tx) => {
      for (const t of g.changedTargets) removeMemoryGraph(tx, t, iso);
      return g.graphEnabled ? writeMemoryGraph(tx, g.srcId, g.entities, iso) : undefined;
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

function markProcessed(store: Store, mode: WriteMode, srcId: string, result: ExtractJobResult): void {
  try {
    store.transaction((tx) =>
      tx.run(`UPDATE memories SET pipeline_status = ? WHERE id = ?`, [mode === 'shadow' ? 'shadowed' : 'complete', srcId]),
    );
  } catch (e) {
    result.warnings.push(`could not mark the memory processed: ${errorMessage(e)}`);
  }
}
