/**
 * The memory API: create / get / list / update / delete with history, over one store.
 * The write path of docs/write-path.md (validate → skip rules → normalize → one transaction
 * → durable) with content-hash dedup, the lifetime defaults of docs/lifecycle.md and the
 * record semantics (doc_hash, partial update with version + 1, soft delete).
 */
import type { Store, Tx } from '../store/store';
import { normalizeAndHashContent } from '../text/normalize';
import { isLowValue, isPlaceholder } from '../text/quality';
import { cancelMemoryJobs, enqueueMemoryJob } from '../jobs/enqueue';
import { DuplicateContentError, NotFoundError, ValidationError } from './errors';
import { DEFAULT_LIFECYCLE, LIMITS, type LifecycleSettings } from './limits';
import { recordToColumns, rowToRecord, rowToSummary } from './rows';
import { findNearDuplicate } from './nearDuplicate';
import { truncateLine } from '../text/truncate';
import { LIVE_MEMORY_SQL, isLive, liveParam } from './visibility';
import { writeHistory } from './history';
import { lifetimeFor, originOf, restoredLifetime, type CreateOrigin, type Lifetime } from './lifetime';
import {
  changedKeys,
  checkExpectedVersion,
  createdSummary,
  listFilter,
  mergedRecord,
  newRecord,
  patchedRecord,
  stampUpdate,
  validateCreate,
  withDocHash,
  type MergePatch,
} from './recordParts';
import * as v from './validate';
import { guardSecrets, redactedField, secretRefusal, secretSkip } from './secretGuard';
import { DEFAULT_SECRET_POLICY, type SecretPolicy } from '../secrets/policy';
import { checkPreparedEmbedding, collectEmbedding, embeddingHashOf, writeEmbeddingRow } from './embedding';
import type { PreparedEmbedding } from '../vectorstore/types';
import type {
  CreateMemoryInput,
  CreateResult,
  HistoryEntry,
  ListOptions,
  ListResult,
  MemoryRecord,
  RedactedKinds,
  UpdatedMemory,
  UpdateMemoryInput,
  WriteOptions,
} from './types';

/** A create that passed validation, skip rules and dedup: the record to insert. */
export type PreparedCreate = { status: 'new'; record: MemoryRecord; warnings: string[]; redacted?: RedactedKinds };

export type { MergePatch } from './recordParts';

export interface MemoryServiceOptions {
  /** The normalized project id this store belongs to (src/core/project). */
  projectId: string;
  lifecycle?: Partial<LifecycleSettings>;
  /** Enqueue an extraction job per write (pipeline enabled); a write passes `extract: false` to skip it. */
  enqueueExtraction?: boolean;
  /** What a write holding a credential does (docs/secrets.md); default `redact`. */
  secretPolicy?: SecretPolicy;
  /** Injectable clock for tests. */
  now?: () => Date;
}

const COLUMNS = Object.keys(
  recordToColumns({
    content: '',
    tags: [],
    mergedFrom: [],
    decisions: [],
    rationale: [],
    metadata: {},
  } as unknown as MemoryRecord),
);
const INSERT_SQL = `INSERT INTO memories (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`;
const UPDATE_SQL = `UPDATE memories SET ${COLUMNS.filter((c) => c !== 'id')
  .map((c) => `${c} = ?`)
  .join(', ')} WHERE rid = ?`;

export class MemoryService {
  private readonly lifecycle: LifecycleSettings;
  private readonly now: () => Date;

  constructor(
    private readonly store: Store,
    private readonly opts: MemoryServiceOptions,
  ) {
    this.lifecycle = { ...DEFAULT_LIFECYCLE, ...opts.lifecycle };
    this.now = opts.now ?? (() => new Date());
  }

  get projectId(): string {
    return this.opts.projectId;
  }

  get secretPolicy(): SecretPolicy {
    return this.opts.secretPolicy ?? DEFAULT_SECRET_POLICY;
  }

  /**
   * An edit after the secret guard (docs/secrets.md): redacted, or refused with `secret_detected`;
   * ingest.ts embeds this one. `earlier`: kinds a caller's guard already redacted (for the history).
   */
  guardPatch(given: UpdateMemoryInput, earlier: RedactedKinds = []): { patch: UpdateMemoryInput; redacted: RedactedKinds } {
    if (!given || typeof given !== 'object') throw new ValidationError('patch', 'must be an object');
    const g = guardSecrets(given, this.secretPolicy);
    if (g.refused) throw secretRefusal(g.kinds);
    return { patch: g.value, redacted: g.kinds.length ? g.kinds : earlier };
  }

  /** The content hash a create of `content` is stored under (after the secret guard); see server/idempotency.ts. */
  contentHashOf(content: string): string {
    const g = guardSecrets(content, this.secretPolicy === 'allow' ? 'allow' : 'redact');
    return normalizeAndHashContent(g.value).contentHash;
  }

  /** TTL and expiry for a new or changed memory: the origin rule of lifetime.ts (docs/lifecycle.md). */
  private lifecycleFor(importance: number, ttl: number | null | undefined, now: Date, origin: CreateOrigin = 'person'): Lifetime {
    return lifetimeFor(origin, importance, ttl, this.lifecycle, now);
  }

  create(input: CreateMemoryInput, opts: WriteOptions = {}): CreateResult {
    const prepared = this.prepareCreate(input, opts);
    if (prepared.status !== 'new') return prepared;
    const memory = this.store.transaction((tx) => this.insertPrepared(tx, prepared, input, opts));
    return { status: 'created', memory, warnings: prepared.warnings, ...redactedField(prepared.redacted) };
  }

  /**
   * `create` inside a caller's transaction (the pipeline's controlled writes, imports): the
   * same validation, skip rules and dedup; durable when the caller's transaction commits.
   */
  createInTx(tx: Tx, input: CreateMemoryInput, opts: WriteOptions = {}): CreateResult {
    const prepared = this.prepareCreate(input, opts);
    if (prepared.status !== 'new') return prepared;
    return {
      status: 'created',
      memory: this.insertPrepared(tx, prepared, input, opts),
      warnings: prepared.warnings,
      ...redactedField(prepared.redacted),
    };
  }

  /**
   * Inserts a record from {@link prepareCreate} (the smart store prepares, embeds outside any
   * transaction, decides, then inserts). The exact-duplicate check is repeated here because
   * other writes may have happened since.
   */
  insertPreparedInTx(tx: Tx, prepared: PreparedCreate, input: CreateMemoryInput, opts: WriteOptions = {}): CreateResult {
    const exact = tx.get('SELECT * FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
      prepared.record.projectId,
      prepared.record.contentHash,
    ]);
    const redacted = redactedField(prepared.redacted);
    if (exact) return { status: 'duplicate', memory: rowToRecord(exact), warnings: prepared.warnings, ...redacted };
    const warnings = [...prepared.warnings];
    const memory = this.insertPrepared(tx, { ...prepared, record: { ...prepared.record }, warnings }, input, opts);
    return { status: 'created', memory, warnings, ...redacted };
  }

  /**
   * Many creates in batched transactions (import, bulk load): the same validation and
   * skip rules per item, one durable commit per batch. A bad item is reported in its
   * result and does not stop the others.
   */
  createMany(
    inputs: CreateMemoryInput[],
    opts: { batchSize?: number; onProgress?: (done: number, total: number) => void } = {},
  ): (CreateResult | { status: 'error'; error: string; field?: string })[] {
    const batchSize = Math.max(1, Math.min(opts.batchSize ?? 500, 5000));
    const results: (CreateResult | { status: 'error'; error: string; field?: string })[] = [];
    for (let start = 0; start < inputs.length; start += batchSize) {
      const batch = inputs.slice(start, start + batchSize);
      this.store.transaction((tx) => {
        for (const input of batch) {
          try {
            const prepared = this.prepareCreate(input);
            if (prepared.status !== 'new') {
              results.push(prepared);
              continue;
            }
            const memory = this.insertPrepared(tx, prepared, input, {});
            results.push({ status: 'created', memory, warnings: prepared.warnings, ...redactedField(prepared.redacted) });
          } catch (e) {
            if (!(e instanceof ValidationError)) throw e;
            results.push({ status: 'error', error: e.message, field: e.field });
          }
        }
      });
      opts.onProgress?.(Math.min(start + batchSize, inputs.length), inputs.length);
    }
    return results;
  }

  /** New TTL and expiry when the TTL is given or the importance changed (the TTL kept otherwise). */
  private applyLifetime(next: MemoryRecord, current: MemoryRecord, ttl: number | null | undefined, now: Date): void {
    if (ttl === undefined && next.importance === current.importance) return;
    const life = this.lifecycleFor(next.importance, ttl === undefined ? current.ttlSeconds : ttl, now);
    next.ttlSeconds = life.ttlSeconds;
    next.expiresAt = life.expiresAt;
  }

  /** Throws DuplicateContentError when the changed text equals another live memory's. */
  private assertUniqueContent(next: MemoryRecord, current: MemoryRecord, id: string): void {
    if (next.contentHash === current.contentHash) return;
    const clash = this.store.get<{ id: string }>(
      'SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL AND id <> ?',
      [next.projectId, next.contentHash, id],
    );
    if (clash) throw new DuplicateContentError(clash.id);
  }

  /** The old vector no longer applies: `embedding` (for the new text) replaces it, else pending. */
  private markTextChanged(tx: Tx, next: MemoryRecord, embedding: PreparedEmbedding | undefined, iso: string, warnings: string[]): void {
    next.embeddingStatus = 'pending';
    next.embeddingHash = null;
    if (embedding && this.attachEmbedding(next, embedding, warnings)) writeEmbeddingRow(tx, embedding, iso);
  }

  /** Whether this write enqueues extraction: the service extracts and the call did not opt out. */
  private extracts(opts: WriteOptions): boolean {
    return this.opts.enqueueExtraction === true && opts.extract !== false;
  }

  /** Validation, skip rules and dedup (reads only); the record to insert when it is new. */
  prepareCreate(given: CreateMemoryInput, opts: WriteOptions = {}): Exclude<CreateResult, { status: 'created' }> | PreparedCreate {
    if (!given || typeof given !== 'object') throw new ValidationError('input', 'must be an object');
    // The secret guard runs first: nothing of a credential reaches validation errors, dedup or the row.
    const guard = guardSecrets(given, this.secretPolicy);
    if (guard.refused) return secretSkip(guard.kinds);
    const input = guard.value;
    const redacted = redactedField(guard.kinds);
    const valid = validateCreate(input);
    const origin = originOf(input.origin);
    const { content, warnings } = valid;

    // Skip rules (docs/write-path.md "Validate"): skip filler and placeholders with a reason (not an error).
    if (isPlaceholder(content)) {
      return { status: 'skipped', reason: 'placeholder', detail: 'The text is a placeholder, not content.', warnings, ...redacted };
    }
    if (isLowValue(content) && !input.allowLowValue) {
      return { status: 'skipped', reason: 'low_value', detail: 'The text is filler with nothing to remember.', warnings, ...redacted };
    }

    const { storageContent, contentHash } = normalizeAndHashContent(content);
    const projectId = this.opts.projectId;

    const exact = this.store.get('SELECT * FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL', [
      projectId,
      contentHash,
    ]);
    if (exact) return { status: 'duplicate', memory: rowToRecord(exact), warnings, ...redacted };

    if (!input.allowNearDuplicate) {
      const near = findNearDuplicate(this.store, projectId, storageContent, LIMITS.nearDuplicateThreshold);
      if (near) {
        const existingLabel = near.title.trim() || near.content;
        return {
          status: 'skipped',
          reason: 'redundant',
          existingId: near.id,
          existingLabel,
          detail: `At least ${Math.round(LIMITS.nearDuplicateThreshold * 100)}% of its words are already in “${truncateLine(existingLabel, 80)}”.`,
          warnings,
          ...redacted,
        };
      }
    }

    const now = this.now();
    const iso = now.toISOString();
    const record = newRecord(input, valid, {
      projectId,
      storageContent,
      contentHash,
      life: this.lifecycleFor(valid.importance, valid.ttl, now, origin),
      iso,
      pipelineStatus: this.extracts(opts) && !input.fromRecall ? 'pending' : 'complete',
    });
    return { status: 'new', record, warnings, ...redacted };
  }

  private insertPrepared(tx: Tx, prepared: PreparedCreate, input: CreateMemoryInput, opts: WriteOptions): MemoryRecord {
    const { record, warnings } = prepared;
    if (opts.embedding && this.attachEmbedding(record, opts.embedding, warnings)) writeEmbeddingRow(tx, opts.embedding, record.createdAt);
    tx.run(INSERT_SQL, Object.values(recordToColumns(record)));
    const saved = rowToRecord(tx.get('SELECT * FROM memories WHERE id = ?', [record.id])!);
    writeTags(tx, saved.rid, saved.tags);
    writeHistory(tx, {
      memoryId: saved.id,
      event: 'created',
      newContent: saved.content,
      newJson: createdSummary(saved),
      changedBy: saved.who,
      reason: saved.why,
      ...(prepared.redacted?.length ? { metadata: { redacted: prepared.redacted } } : {}),
      createdAt: saved.createdAt,
    });
    if (this.extracts(opts) && !input.fromRecall) enqueueMemoryJob(tx, 'extract', saved.id, saved.createdAt);
    return saved;
  }

  /**
   * Marks `record` as embedded by `e` when `e` was computed from exactly its text; otherwise
   * leaves it pending (the background embedder fills it in) and says why in `warnings`.
   */
  private attachEmbedding(record: MemoryRecord, e: PreparedEmbedding, warnings: string[]): boolean {
    checkPreparedEmbedding(e);
    if (e.textHash !== embeddingHashOf(record.title, record.content)) {
      warnings.push('the embedding given was computed for other text; the memory will be embedded in the background');
      return false;
    }
    record.embeddingStatus = 'ready';
    record.embeddingVersion = e.space;
    record.embeddingHash = e.textHash;
    return true;
  }

  get(id: string, opts: { includeDeleted?: boolean } = {}): MemoryRecord | undefined {
    if (typeof id !== 'string' || !id) throw new ValidationError('id', 'must be a non-empty string');
    const row = this.store.get('SELECT * FROM memories WHERE id = ?', [id]);
    if (!row) return undefined;
    const rec = rowToRecord(row);
    // Expired memories are invisible before the cleanup sweep tombstones them (visibility.ts).
    if (!opts.includeDeleted && !isLive(rec, this.now())) return undefined;
    return rec;
  }

  /** Newest first, offset + limit pagination (docs/write-path.md "Record semantics"), filtered by type, scope, tags. */
  list(opts: ListOptions = {}): ListResult {
    const offset = opts.offset ?? 0;
    const limit = opts.limit ?? LIMITS.listDefault;
    if (!Number.isInteger(offset) || offset < 0)
      throw new ValidationError('offset', `must be a whole number ≥ 0, got ${v.shownValue(opts.offset)}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.listMax) {
      throw new ValidationError('limit', `must be a whole number from 1 to ${LIMITS.listMax}, got ${v.shownValue(opts.limit)}`);
    }
    const { clause, params } = listFilter(opts, this.opts.projectId, this.now());
    const total = Number(this.store.get<{ n: number }>(`SELECT count(*) AS n FROM memories m WHERE ${clause}`, params)!.n);
    const rows = this.store.all(`SELECT m.* FROM memories m WHERE ${clause} ORDER BY m.created_at DESC, m.rid DESC LIMIT ? OFFSET ?`, [
      ...params,
      limit,
      offset,
    ]);
    return { items: rows.map(rowToSummary), total, offset, limit };
  }

  /** Partial update: only given fields change; version + 1 and a history row when anything did. */
  update(id: string, patch: UpdateMemoryInput, opts: WriteOptions = {}): UpdatedMemory {
    return this.store.transaction((tx) => this.updateInTx(tx, id, patch, opts));
  }

  /**
   * `update` inside a caller's transaction. When the title or content changes the old vector
   * no longer applies: `opts.embedding` (computed for the new text) replaces it, otherwise the
   * memory becomes `pending` and leaves the vector index until it is embedded again.
   */
  updateInTx(tx: Tx, id: string, given: UpdateMemoryInput, opts: WriteOptions = {}): UpdatedMemory {
    const { patch, redacted } = this.guardPatch(given, opts.redacted);
    const current = this.get(id);
    if (!current) throw new NotFoundError(id);
    checkExpectedVersion(id, patch, current);
    const next = patchedRecord(current, patch);
    const ttl = v.validateTtl(patch.ttlSeconds);
    withDocHash(next);

    const now = this.now();
    this.applyLifetime(next, current, ttl, now);
    const changed = changedKeys(current, next);
    if (!changed.length) return current;

    const textChanged = next.content !== current.content || next.title !== current.title;
    this.assertUniqueContent(next, current, id);
    const warnings: string[] = [];
    if (textChanged) this.markTextChanged(tx, next, opts.embedding, now.toISOString(), warnings);
    if (textChanged && this.extracts(opts)) next.pipelineStatus = 'pending';
    stampUpdate(next, current, patch, now.toISOString());

    writeChanged(tx, current, next);
    writeHistory(tx, {
      memoryId: id,
      event: 'updated',
      oldContent: current.content,
      newContent: next.content,
      oldJson: current,
      newJson: next,
      changedBy: patch.who ?? 'user',
      reason: patch.why ?? null,
      metadata: { changed, ...(warnings.length ? { warnings } : {}), ...redactedField(redacted) },
      createdAt: next.updatedAt,
    });
    if (textChanged && this.extracts(opts)) enqueueMemoryJob(tx, 'extract', id, next.updatedAt);
    return { ...next, ...redactedField(redacted) };
  }

  /** Soft delete: a tombstone and a history row; idempotent. Returns the tombstoned record. */
  delete(id: string, opts: { who?: string; reason?: string } = {}): MemoryRecord {
    return this.store.transaction((tx) => this.deleteInTx(tx, id, opts));
  }

  /** `delete` inside a caller's transaction. */
  deleteInTx(tx: Tx, id: string, opts: { who?: string; reason?: string } = {}): MemoryRecord {
    const current = this.get(id, { includeDeleted: true });
    if (!current) throw new NotFoundError(id);
    if (current.deletedAt) return current;
    const iso = this.now().toISOString();
    const next: MemoryRecord = {
      ...current,
      deletedAt: iso,
      deletedBy: opts.who ?? 'user',
      deleteReason: opts.reason ?? null,
      retentionStatus: 'deleted',
      version: current.version + 1,
      updatedAt: iso,
    };
    tx.run(
      `UPDATE memories SET deleted_at = ?, deleted_by = ?, delete_reason = ?, retention_status = 'deleted', version = ?, updated_at = ? WHERE rid = ?`,
      [iso, next.deletedBy, next.deleteReason, next.version, iso, current.rid],
    );
    cancelMemoryJobs(tx, id, iso);
    writeHistory(tx, {
      memoryId: id,
      event: 'deleted',
      oldContent: current.content,
      oldJson: current,
      newJson: next,
      changedBy: next.deletedBy,
      reason: next.deleteReason,
      createdAt: iso,
    });
    return next;
  }

  /** Undo a soft delete (refused if a live memory now has the same content). */
  restore(id: string, opts: { who?: string } = {}): MemoryRecord {
    const current = this.get(id, { includeDeleted: true });
    if (!current) throw new NotFoundError(id);
    if (!current.deletedAt) return current;
    const clash = this.store.get<{ id: string }>(
      'SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL',
      [current.projectId, current.contentHash],
    );
    if (clash) throw new DuplicateContentError(clash.id);
    const now = this.now();
    const iso = now.toISOString();
    // An expired memory comes back with a fresh lifetime (lifetime.ts), not one the next sweep ends.
    const life = restoredLifetime(current, now);
    const next: MemoryRecord = {
      ...current,
      ...life,
      deletedAt: null,
      deletedBy: null,
      deleteReason: null,
      retentionStatus: 'active',
      version: current.version + 1,
      updatedAt: iso,
    };
    return this.store.transaction((tx) => {
      tx.run(
        `UPDATE memories SET deleted_at = NULL, deleted_by = NULL, delete_reason = NULL, retention_status = 'active', ttl_seconds = ?, expires_at = ?, version = ?, updated_at = ? WHERE rid = ?`,
        [life.ttlSeconds, life.expiresAt, next.version, iso, current.rid],
      );
      writeHistory(tx, {
        memoryId: id,
        event: 'restored',
        newContent: current.content,
        oldJson: current,
        newJson: next,
        changedBy: opts.who ?? 'user',
        createdAt: iso,
      });
      return next;
    });
  }

  /**
   * Fills in the vector of an existing memory (background embed, retry, re-embed) if it still
   * has the text the vector was made from. Not a content change: no version bump, no history.
   * Returns whether the memory now has this vector.
   */
  setEmbeddingInTx(tx: Tx, id: string, e: PreparedEmbedding): boolean {
    checkPreparedEmbedding(e);
    const current = this.get(id);
    if (!current || e.textHash !== embeddingHashOf(current.title, current.content)) return false;
    writeEmbeddingRow(tx, e, this.now().toISOString());
    tx.run(`UPDATE memories SET embedding_status = 'ready', embedding_version = ?, embedding_hash = ? WHERE rid = ?`, [
      e.space,
      e.textHash,
      current.rid,
    ]);
    if (current.embeddingHash && current.embeddingHash !== e.textHash) collectEmbedding(tx, current.embeddingHash);
    return true;
  }

  /**
   * Writes a merge into the surviving memory (docs/consolidation.md): new content, merged
   * tags/importance, merged_from += absorbed ids, version + 1 even when the text did not change,
   * a 'merged' history row. Throws DuplicateContentError when the merged text equals another
   * live memory's.
   */
  mergeInTx(tx: Tx, targetId: string, given: MergePatch): MemoryRecord {
    const current = this.get(targetId);
    if (!current) throw new NotFoundError(targetId);
    // A merge is nobody's new input: its text is redacted under `refuse` too, never refused.
    const patch = guardSecrets(given, this.secretPolicy === 'allow' ? 'allow' : 'redact').value;
    const next = mergedRecord(current, patch);
    if (next.contentHash !== current.contentHash) {
      const clash = tx.get<{ id: string }>(
        'SELECT id FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL AND id <> ? AND id NOT IN (SELECT value FROM json_each(?))',
        [next.projectId, next.contentHash, targetId, JSON.stringify(patch.absorbedIds)],
      );
      if (clash) throw new DuplicateContentError(clash.id);
    }
    const now = this.now();
    const iso = now.toISOString();
    this.applyLifetime(next, current, undefined, now);
    const warnings: string[] = [];
    if (next.title !== current.title || next.content !== current.content) {
      this.markTextChanged(tx, next, patch.embedding, iso, warnings);
      if (this.opts.enqueueExtraction) next.pipelineStatus = 'pending';
    }
    next.version = current.version + 1;
    next.updatedAt = iso;
    next.who = patch.who ?? current.who;
    writeChanged(tx, current, next);
    writeHistory(tx, {
      memoryId: targetId,
      event: 'merged',
      oldContent: current.content,
      newContent: next.content,
      oldJson: current,
      newJson: next,
      changedBy: patch.who ?? 'system',
      reason: patch.why ?? null,
      metadata: { absorbed: patch.absorbedIds, ...(warnings.length ? { warnings } : {}) },
      createdAt: iso,
    });
    if (next.content !== current.content && this.opts.enqueueExtraction) enqueueMemoryJob(tx, 'extract', targetId, iso);
    return next;
  }

  /** Tombstones a memory absorbed by a merge: replaced_by = the survivor, retention 'merged'. */
  absorbInTx(tx: Tx, sourceId: string, survivorId: string, opts: { who?: string } = {}): MemoryRecord {
    const current = this.get(sourceId, { includeDeleted: true });
    if (!current) throw new NotFoundError(sourceId);
    const iso = this.now().toISOString();
    const next: MemoryRecord = {
      ...current,
      deletedAt: current.deletedAt ?? iso,
      deletedBy: current.deletedBy ?? opts.who ?? 'system',
      deleteReason: current.deleteReason ?? `merged into ${survivorId}`,
      retentionStatus: 'merged',
      replacedBy: survivorId,
      version: current.version + 1,
      updatedAt: iso,
    };
    tx.run(
      `UPDATE memories SET deleted_at = ?, deleted_by = ?, delete_reason = ?, retention_status = 'merged', replaced_by = ?, version = ?, updated_at = ? WHERE rid = ?`,
      [next.deletedAt, next.deletedBy, next.deleteReason, survivorId, next.version, iso, current.rid],
    );
    cancelMemoryJobs(tx, sourceId, iso);
    writeHistory(tx, {
      memoryId: sourceId,
      event: 'merged_into',
      oldContent: current.content,
      oldJson: current,
      newJson: next,
      changedBy: next.deletedBy,
      reason: next.deleteReason,
      metadata: { survivor: survivorId },
      createdAt: iso,
    });
    return next;
  }

  history(id: string): HistoryEntry[] {
    return this.store.all('SELECT * FROM memory_history WHERE memory_id = ? ORDER BY created_at, rowid', [id]).map((r) => ({
      id: String(r.id),
      memoryId: r.memory_id === null ? null : String(r.memory_id),
      event: String(r.event),
      oldContent: r.old_content === null ? null : String(r.old_content),
      newContent: r.new_content === null ? null : String(r.new_content),
      changedBy: r.changed_by === null ? null : String(r.changed_by),
      reason: r.reason === null ? null : String(r.reason),
      metadata: JSON.parse(String(r.metadata_json ?? '{}')) as Record<string, unknown>,
      createdAt: String(r.created_at),
    }));
  }

  /** Live memories of the project (not deleted, not expired). */
  count(): number {
    return Number(
      this.store.get<{ n: number }>(`SELECT count(*) AS n FROM memories m WHERE m.project_id = ? AND ${LIVE_MEMORY_SQL}`, [
        this.opts.projectId,
        liveParam(this.now()),
      ])!.n,
    );
  }
}

function writeTags(tx: Tx, rid: number, tags: string[], replace = false): void {
  if (replace) tx.run('DELETE FROM memory_tags WHERE rid = ?', [rid]);
  for (const tag of tags) tx.run('INSERT OR IGNORE INTO memory_tags (tag, rid) VALUES (?, ?)', [tag, rid]);
}

/** The changed record's row, its old vector collected when replaced, its tags when they changed. */
function writeChanged(tx: Tx, current: MemoryRecord, next: MemoryRecord): void {
  tx.run(UPDATE_SQL, [...Object.values(recordToColumns(next)).slice(1), current.rid]);
  if (current.embeddingHash !== next.embeddingHash) collectEmbedding(tx, current.embeddingHash);
  if (JSON.stringify(next.tags) !== JSON.stringify(current.tags)) writeTags(tx, current.rid, next.tags, true);
}
