/**
 * The smart store on top of the embed-on-write path:
 *   validate + skip rules + exact dedup (MemoryService.prepareCreate)
 *   → embed OUTSIDE any transaction (failure, or no vector space at all: store with embedding
 *     'pending', no consolidation: the same rules, only without neighbours)
 *   → nearest live neighbours in the same project (VectorStore, synced with the DB)
 *   → similarity ≥ auto_merge_threshold: merge into the neighbour with merge_strategy —
 *     unless a person saved it on purpose (origin.ts isExplicitSave): their save is never
 *     rewritten silently, it is stored with a suggestion like the band below;
 *     ≥ similarity_threshold: store and record pending suggestions; else store
 *   → ONE short transaction for everything written.
 *
 * An auto-merged write is kept as a tombstone (replaced_by = survivor, retention 'merged'),
 * so merged_from, the SUPERSEDES relationship and the audit log all point at a real row and
 * the incoming text is never lost. Accepting a suggestion merges the newer memory into the
 * older one the same way.
 */
import type { Store } from '../store/store';
import type { MergeStrategy } from '../config/types';
import { UserFacingError } from '../util/errors';
import { normalizeAndHashContent } from '../text/normalize';
import { truncateFlat } from '../text/truncate';
import type { ActiveSpace } from '../vectorstore/activeSpace';
import type { PreparedEmbedding } from '../vectorstore/types';
import { embedForActiveSpace, embedMemoryText, type EmbedResult } from '../memory/embedOnWrite';
import { DuplicateContentError, ValidationError } from '../memory/errors';
import type { MemoryService, PreparedCreate } from '../memory/memoryService';
import type { CreateMemoryInput, MemoryRecord, RedactedKinds, SimilarMemory, SkipReason } from '../memory/types';
import { isExplicitSave, originOf } from '../memory/origin';
import { mergeContent, type MergeSide } from './merge';
import { planUndoMerge, undoMergeInTx, type UndoMergeResult } from './undoMerge';
import { projectNeighbours } from './neighbours';
import {
  getSuggestion,
  logMergeInTx,
  resolveSuggestionInTx,
  suggestInTx,
  supersedesInTx,
  type ConsolidationLogEntry,
  type Suggestion,
} from './records';
import { checkSettings, DEFAULT_CONSOLIDATION, type ConsolidationSettings } from './settings';

export type StoreAction = 'stored' | 'merged' | 'skipped' | 'duplicate';

export interface SmartStoreResult {
  action: StoreAction;
  /** stored: the new memory; merged: the surviving memory; duplicate: the existing one. */
  memory?: MemoryRecord;
  /** Pending suggestions recorded by this write. */
  suggestions: Suggestion[];
  /** stored: the memories of those suggestions, most similar first (what the caller is told). */
  similar: SimilarMemory[];
  /** Whether `memory` has its vector ('none' when nothing was stored). */
  embedding: 'ready' | 'pending' | 'none';
  embeddingError?: string;
  skipped?: { reason: SkipReason; detail: string; existingId?: string; existingLabel?: string; secrets?: RedactedKinds };
  /** Kinds of credential redacted from the input before it was written (docs/secrets.md). */
  redacted?: RedactedKinds;
  merge?: { targetId: string; absorbedId: string; similarity: number; strategy: MergeStrategy; logId: string };
  warnings: string[];
}

export interface AcceptResult {
  memory: MemoryRecord;
  absorbed: MemoryRecord;
  log: ConsolidationLogEntry;
  embedding: 'ready' | 'pending';
}

export interface SmartStoreDeps {
  store: Store;
  memory: MemoryService;
  /** The active vector space; absent (no embedder) → no neighbours, every write stored `pending`. */
  space?: ActiveSpace;
  settings?: Partial<ConsolidationSettings>;
  /** Called when a memory was committed without its vector (start the backfill). */
  onPending?: () => void;
}

/** How often a decision is re-made when the neighbour changed between embedding and commit. */
const ATTEMPTS = 3;

export class SmartStore {
  readonly settings: ConsolidationSettings;

  constructor(private readonly deps: SmartStoreDeps) {
    this.settings = checkSettings({ ...DEFAULT_CONSOLIDATION, ...deps.settings });
  }

  private get store(): Store {
    return this.deps.store;
  }
  private get memory(): MemoryService {
    return this.deps.memory;
  }

  /** Store a memory the smart way (see the file comment). */
  async save(input: CreateMemoryInput & { performedBy?: string }): Promise<SmartStoreResult> {
    const prepared = this.memory.prepareCreate(input);
    const r = await this.saveFrom(input, prepared);
    return prepared.redacted?.length ? { ...r, redacted: prepared.redacted } : r;
  }

  private async saveFrom(
    input: CreateMemoryInput & { performedBy?: string },
    prepared: ReturnType<MemoryService['prepareCreate']>,
  ): Promise<SmartStoreResult> {
    const performedBy = input.performedBy ?? input.who ?? input.agentSource ?? 'user';
    if (prepared.status === 'skipped') return skippedResult(prepared);
    if (prepared.status === 'duplicate') return this.duplicate(prepared.memory, prepared.warnings);
    // A person's explicit save is never merged: a close duplicate gets a suggestion instead.
    const mergeAt = isExplicitSave(originOf(input.origin)) ? Infinity : this.settings.autoMergeThreshold;

    const space = this.deps.space;
    if (!space) return this.insert(prepared, input, undefined, []);
    const emb = await embedForActiveSpace(space, this.store, prepared.record.title, prepared.record.content);
    if (!emb.ok) return this.insert(prepared, input, undefined, [], { embeddingError: emb.error });
    const pair = space.current;
    const { vectors } = pair;

    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (space.current !== pair) return this.save(input); // embedder switched during an await: start over
      const hits = projectNeighbours(this.store, vectors, emb.embedding.vector, {
        projectId: prepared.record.projectId,
        k: this.settings.neighbours,
      });
      const best = hits[0];
      if (!best || best.similarity < mergeAt) {
        const near = hits.filter((h) => h.similarity >= this.settings.similarityThreshold).slice(0, this.settings.maxSuggestions);
        return this.insert(prepared, input, emb.embedding, near);
      }
      const target = this.memory.get(best.id);
      if (!target) continue;
      const outcome = await this.autoMerge(prepared, input, emb.embedding, { target, similarity: best.similarity }, performedBy);
      if (outcome) return outcome;
    }
    return this.insert(prepared, input, emb.embedding, [], { warnings: ['the nearest memory kept changing; stored without merging'] });
  }

  private duplicate(memory: MemoryRecord, warnings: string[]): SmartStoreResult {
    return {
      action: 'duplicate',
      memory,
      suggestions: [],
      similar: [],
      embedding: memory.embeddingStatus === 'ready' ? 'ready' : 'pending',
      warnings,
    };
  }

  private insert(
    prepared: PreparedCreate,
    input: CreateMemoryInput,
    embedding: PreparedEmbedding | undefined,
    near: { id: string; similarity: number }[],
    extra: { embeddingError?: string; warnings?: string[] } = {},
  ): SmartStoreResult {
    const { embeddingError, warnings: extraWarnings = [] } = extra;
    const out = this.store.transaction((tx) => {
      const res = this.memory.insertPreparedInTx(tx, prepared, input, embedding ? { embedding } : {});
      if (res.status !== 'created') return { res, suggestions: [] as Suggestion[] };
      const suggestions: Suggestion[] = [];
      for (const n of near) {
        const s = suggestInTx(tx, { a: n.id, b: res.memory.id, similarity: n.similarity }, res.memory.projectId, res.memory.createdAt);
        if (s) suggestions.push(s);
      }
      return { res, suggestions };
    });
    const { res } = out;
    if (res.status === 'duplicate') return this.duplicate(res.memory, res.warnings);
    if (res.status !== 'created') throw new Error('unexpected skip after preparation');
    const ready = res.memory.embeddingStatus === 'ready';
    if (!ready) this.deps.onPending?.();
    return {
      action: 'stored',
      memory: res.memory,
      suggestions: out.suggestions,
      similar: similarMemories(this.memory, out.suggestions),
      embedding: ready ? 'ready' : 'pending',
      embeddingError: ready ? undefined : (embeddingError ?? res.warnings.at(-1)),
      warnings: [...res.warnings, ...extraWarnings],
    };
  }

  /** Embeds the merged text (outside any transaction) unless it is the target's own text. */
  private async embedMerged(
    target: MemoryRecord,
    title: string,
    content: string,
  ): Promise<{ title: string; content: string; emb?: EmbedResult }> {
    const storage = normalizeAndHashContent(content).storageContent;
    if (title === target.title && storage === target.content) return { title, content: storage };
    if (!this.deps.space) return { title, content: storage };
    const { embedder } = this.deps.space.current;
    return { title, content: storage, emb: await embedMemoryText(embedder, this.store, title, storage) };
  }

  /** Auto-merge of a new write into `target`; undefined when the target changed meanwhile (decide again). */
  private async autoMerge(
    prepared: PreparedCreate,
    input: CreateMemoryInput,
    embedding: PreparedEmbedding,
    best: { target: MemoryRecord; similarity: number },
    performedBy: string,
  ): Promise<SmartStoreResult | undefined> {
    const { target, similarity } = best;
    const strategy = this.settings.mergeStrategy;
    const source = prepared.record;
    const merged = mergeContent(strategy, target, source);
    const m = await this.embedMerged(target, merged.title, merged.content);
    try {
      const out = this.store.transaction((tx) => {
        const t = this.memory.get(target.id);
        if (!t || t.version !== target.version) return undefined;
        if (this.deps.space?.current.embedder.space !== embedding.space) return undefined;
        const ins = this.memory.insertPreparedInTx(tx, prepared, input, { embedding });
        if (ins.status !== 'created') return { kind: 'not-created' as const, res: ins };
        const iso = ins.memory.createdAt;
        // Tombstone first, so a merged text equal to the incoming one is not a live duplicate.
        const absorbed = this.memory.absorbInTx(tx, ins.memory.id, t.id, { who: performedBy });
        const survivor = this.memory.mergeInTx(tx, t.id, {
          title: m.title,
          content: m.content,
          tags: [...new Set([...t.tags, ...source.tags])],
          importance: Math.max(t.importance, source.importance),
          absorbedIds: [absorbed.id],
          embedding: m.emb?.ok ? m.emb.embedding : undefined,
          who: performedBy,
          why: `auto-merge (${strategy}, similarity ${similarity.toFixed(3)})`,
        });
        const log = logMergeInTx(tx, {
          targetId: t.id,
          sourceIds: [absorbed.id],
          mergeStrategy: strategy,
          similarityScore: similarity,
          contentBefore: t.content,
          contentAfter: survivor.content,
          performedBy,
          createdAt: iso,
        });
        supersedesInTx(
          tx,
          {
            survivorId: t.id,
            absorbedId: absorbed.id,
            strength: 1,
            context: `auto-merge on write (${strategy}, similarity ${similarity.toFixed(3)})`,
          },
          iso,
        );
        return { kind: 'merged' as const, survivor, absorbed, log, warnings: ins.warnings };
      });
      if (!out) return undefined;
      if (out.kind === 'not-created') {
        const d = out.res;
        if (d.status === 'duplicate') return this.duplicate(d.memory, d.warnings);
        throw new Error('unexpected skip after preparation');
      }
      const ready = out.survivor.embeddingStatus === 'ready';
      if (!ready) this.deps.onPending?.();
      return {
        action: 'merged',
        memory: out.survivor,
        suggestions: [],
        similar: [],
        embedding: ready ? 'ready' : 'pending',
        embeddingError: ready ? undefined : m.emb && !m.emb.ok ? m.emb.error : undefined,
        merge: { targetId: out.survivor.id, absorbedId: out.absorbed.id, similarity, strategy, logId: out.log.id },
        warnings: out.warnings,
      };
    } catch (e) {
      // The merged text is too long, or equals a third memory: keep both, as a plain store.
      if (e instanceof ValidationError || e instanceof DuplicateContentError) {
        return this.insert(prepared, input, embedding, [{ id: target.id, similarity }], { warnings: [`not merged: ${e.message}`] });
      }
      throw e;
    }
  }

  /**
   * Accept a pending suggestion: the newer memory (b) is merged into the older one (a) with
   * `strategy` (default the configured one), logged, linked by SUPERSEDES and tombstoned.
   */
  async accept(suggestionId: string, opts: { by?: string; strategy?: MergeStrategy } = {}): Promise<AcceptResult> {
    const by = opts.by ?? 'user';
    const strategy = opts.strategy ?? this.settings.mergeStrategy;
    checkSettings({ ...this.settings, mergeStrategy: strategy });
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const s = getSuggestion(this.store, suggestionId);
      if (!s) throw new UserFacingError(`No consolidation suggestion with id ${suggestionId}.`, 'not_found');
      if (s.status !== 'pending') throw new UserFacingError(`Suggestion ${suggestionId} is already ${s.status}.`, 'suggestion_resolved');
      const a = this.memory.get(s.memoryAId);
      const b = this.memory.get(s.memoryBId);
      if (!a || !b) {
        this.store.transaction((tx) =>
          resolveSuggestionInTx(tx, s.id, 'rejected', 'system: a memory no longer exists', new Date().toISOString()),
        );
        throw new UserFacingError(`Suggestion ${suggestionId} refers to a memory that was deleted; it was dismissed.`, 'suggestion_stale');
      }
      const merged = mergeContent(strategy, a, b);
      const m = await this.embedMerged(a, merged.title, merged.content);
      const out = this.store.transaction((tx) => {
        const a2 = this.memory.get(a.id);
        const b2 = this.memory.get(b.id);
        if (!a2 || !b2 || a2.version !== a.version || b2.version !== b.version) return undefined;
        if (m.emb?.ok && m.emb.embedding.space !== this.deps.space?.current.embedder.space) return undefined; // switched meanwhile
        const iso = new Date().toISOString();
        const absorbed = this.memory.absorbInTx(tx, b.id, a.id, { who: by });
        const survivor = this.memory.mergeInTx(tx, a.id, {
          title: m.title,
          content: m.content,
          tags: [...new Set([...a.tags, ...b.tags])],
          importance: Math.max(a.importance, b.importance),
          absorbedIds: [b.id],
          embedding: m.emb?.ok ? m.emb.embedding : undefined,
          who: by,
          why: `accepted suggestion ${s.id} (${strategy})`,
        });
        const log = logMergeInTx(tx, {
          targetId: a.id,
          sourceIds: [b.id],
          mergeStrategy: strategy,
          similarityScore: s.similarity,
          contentBefore: a.content,
          contentAfter: survivor.content,
          performedBy: by,
          createdAt: iso,
        });
        supersedesInTx(
          tx,
          { survivorId: a.id, absorbedId: b.id, strength: 1, context: `accepted consolidation suggestion (${strategy})` },
          iso,
        );
        resolveSuggestionInTx(tx, s.id, 'accepted', by, iso);
        // Other open suggestions about the absorbed memory no longer make sense.
        tx.run(
          `UPDATE consolidation_suggestions SET status = 'rejected', resolved_at = ?, resolved_by = 'system: memory was merged'
            WHERE status = 'pending' AND id <> ? AND (memory_a_id = ? OR memory_b_id = ?)`,
          [iso, s.id, b.id, b.id],
        );
        return { survivor, absorbed, log };
      });
      if (!out) continue;
      const ready = out.survivor.embeddingStatus === 'ready';
      if (!ready) this.deps.onPending?.();
      return { memory: out.survivor, absorbed: out.absorbed, log: out.log, embedding: ready ? 'ready' : 'pending' };
    }
    throw new UserFacingError('The memories of this suggestion kept changing; try again.', 'version_conflict');
  }

  /** What accepting a pending suggestion would write into A (nothing is written). */
  previewAccept(suggestionId: string, opts: { strategy?: MergeStrategy } = {}): { merged: MergeSide; a: MemoryRecord; b: MemoryRecord } {
    const s = getSuggestion(this.store, suggestionId);
    if (!s) throw new UserFacingError(`No consolidation suggestion with id ${suggestionId}.`, 'not_found');
    const a = this.memory.get(s.memoryAId);
    const b = this.memory.get(s.memoryBId);
    if (!a || !b) throw new UserFacingError(`Suggestion ${suggestionId} refers to a memory that was deleted.`, 'suggestion_stale');
    const merged = mergeContent(opts.strategy ?? this.settings.mergeStrategy, a, b);
    return { merged: { title: merged.title, content: normalizeAndHashContent(merged.content).storageContent }, a, b };
  }

  /** Undoes an accepted suggestion: both memories as they were, the suggestion pending again (undoMerge.ts). */
  async undoAccept(suggestionId: string, opts: { by?: string } = {}): Promise<UndoMergeResult> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const plan = planUndoMerge(this.store, this.memory, suggestionId);
      const m = await this.embedMerged(plan.survivor, plan.before.title, plan.before.content);
      const out = this.store.transaction((tx) => {
        if (this.memory.get(plan.survivor.id)?.version !== plan.survivor.version) return undefined; // edited meanwhile: plan again
        const embedding = m.emb?.ok && m.emb.embedding.space === this.deps.space?.current.embedder.space ? m.emb.embedding : undefined;
        return undoMergeInTx(tx, this.memory, plan, { who: opts.by ?? 'user', ...(embedding ? { embedding } : {}) });
      });
      if (!out) continue;
      if (out.memory.embeddingStatus !== 'ready' || out.restored.embeddingStatus !== 'ready') this.deps.onPending?.();
      return out;
    }
    throw new UserFacingError('The merged memories kept changing; try again.', 'version_conflict');
  }

  /** Reject a pending suggestion (both memories stay as they are). */
  reject(suggestionId: string, opts: { by?: string } = {}): Suggestion {
    const s = getSuggestion(this.store, suggestionId);
    if (!s) throw new UserFacingError(`No consolidation suggestion with id ${suggestionId}.`, 'not_found');
    if (s.status !== 'pending') throw new UserFacingError(`Suggestion ${suggestionId} is already ${s.status}.`, 'suggestion_resolved');
    this.store.transaction((tx) => resolveSuggestionInTx(tx, s.id, 'rejected', opts.by ?? 'user', new Date().toISOString()));
    return getSuggestion(this.store, suggestionId)!;
  }
}

/** The memories A of `suggestions` (a new memory's: B is the new one), in their order. */
export function similarMemories(memory: MemoryService, suggestions: readonly Suggestion[]): SimilarMemory[] {
  return suggestions.flatMap((s) => {
    const a = memory.get(s.memoryAId);
    return a ? [{ id: a.id, label: memoryLabel(a), similarity: s.similarity, suggestionId: s.id }] : [];
  });
}

/** A memory's title, or the start of its text (at most 200 graphemes). */
export function memoryLabel(m: Pick<MemoryRecord, 'title' | 'content'>): string {
  return m.title || truncateFlat(m.content, 200);
}

/** A create the write path skipped, as the smart store's result. */
function skippedResult(prepared: Extract<ReturnType<MemoryService['prepareCreate']>, { status: 'skipped' }>): SmartStoreResult {
  return {
    action: 'skipped',
    suggestions: [],
    similar: [],
    embedding: 'none',
    warnings: prepared.warnings,
    skipped: {
      reason: prepared.reason,
      detail: prepared.detail,
      existingId: prepared.existingId,
      existingLabel: prepared.existingLabel,
      ...(prepared.secrets ? { secrets: prepared.secrets } : {}),
    },
  };
}
