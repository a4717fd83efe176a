/**
 * The record-building parts of memoryService.ts (pure: no store, no clock): a new record from a
 * validated create, a patched or merged copy of a record, and the WHERE clause of a list.
 */
import { randomUUID } from 'node:crypto';
import { normalizeAndHashContent } from '../text/normalize';
import { computeDocHash } from '../text/docHash';
import type { PreparedEmbedding } from '../vectorstore/types';
import { LIVE_MEMORY_SQL, liveParam } from './visibility';
import * as v from './validate';
import { VersionConflictError } from './errors';
import { withLineBreaks } from './lineBreaks';
import type { CreateMemoryInput, ListOptions, MemoryRecord, UpdateMemoryInput } from './types';

/** What a merge writes into the surviving memory (src/core/consolidation). */
export interface MergePatch {
  title?: string;
  content: string;
  tags?: string[];
  importance?: number;
  /** Ids absorbed by this merge (appended to merged_from). */
  absorbedIds: string[];
  embedding?: PreparedEmbedding;
  who?: string;
  why?: string;
}

/** The fields of a create, validated in the order the errors are reported. */
export function validateCreate(input: CreateMemoryInput) {
  const content = v.validateContent(input.content);
  const title = v.validateTitle(input.title);
  const importance = v.validateImportance(input.importance, 0.5);
  const type = v.validateType(input.type, 'general');
  const scope = v.validateScope(input.scope, 'project');
  const { tags, warnings } = v.validateTags(input.tags);
  const decisions = v.validateStringList(input.decisions, 'decisions');
  const rationale = v.validateStringList(input.rationale, 'rationale');
  const metadata = withLineBreaks(v.validateMetadata(input.metadata), content, warnings, { keepGiven: true });
  const ttl = v.validateTtl(input.ttlSeconds);
  const summary = v.validateSummary(input.summary);
  const searchContext = v.validateSearchContext(input.searchContext);
  const speaker = v.validateSpeaker(input.speaker);
  return { content, title, importance, type, scope, tags, warnings, decisions, rationale, metadata, ttl, summary, searchContext, speaker };
}

export type ValidCreate = ReturnType<typeof validateCreate>;

/** Where and when a new record is written: its normalized text, lifetime and pipeline status. */
export interface NewRecordContext {
  projectId: string;
  storageContent: string;
  contentHash: string;
  life: { ttlSeconds: number | null; expiresAt: string | null };
  iso: string;
  pipelineStatus: MemoryRecord['pipelineStatus'];
}

/** The record a create inserts (rid 0 until the row is written); the short strings are validated here. */
export function newRecord(input: CreateMemoryInput, c: ValidCreate, at: NewRecordContext): MemoryRecord {
  const { title, decisions, rationale } = c;
  return {
    id: randomUUID(),
    rid: 0,
    projectId: at.projectId,
    scope: c.scope,
    type: c.type,
    title,
    content: at.storageContent,
    summary: c.summary,
    contentHash: at.contentHash,
    docHash: computeDocHash({ topic: title, context: at.storageContent, decisions, rationale }),
    tags: c.tags,
    importance: c.importance,
    source: v.validateShortString(input.source, 'source'),
    agentSource: v.validateShortString(input.agentSource, 'agentSource'),
    eventType: v.validateShortString(input.eventType, 'eventType'),
    who: v.validateShortString(input.who, 'who') ?? 'user',
    why: v.validateShortString(input.why, 'why', 1000),
    extractionModel: v.validateShortString(input.extractionModel, 'extractionModel'),
    tier: 'hot',
    retentionStatus: 'active',
    accessCount: 0,
    lastAccessedAt: null,
    ttlSeconds: at.life.ttlSeconds,
    expiresAt: at.life.expiresAt,
    version: 1,
    mergedFrom: [],
    replacedBy: null,
    deletedAt: null,
    deletedBy: null,
    deleteReason: null,
    embeddingStatus: 'pending',
    embeddingVersion: null,
    embeddingHash: null,
    decisions,
    rationale,
    metadata: c.metadata,
    pipelineStatus: at.pipelineStatus,
    searchContext: c.searchContext,
    speaker: c.speaker,
    createdAt: at.iso,
    updatedAt: at.iso,
  };
}

/** `next` with its doc_hash recomputed from title, content, decisions and rationale. */
export function withDocHash(next: MemoryRecord): MemoryRecord {
  next.docHash = computeDocHash({ topic: next.title, context: next.content, decisions: next.decisions, rationale: next.rationale });
  return next;
}

/** A copy of `current` with the patch's given fields validated and applied (doc_hash recomputed). */
export function patchedRecord(current: MemoryRecord, patch: UpdateMemoryInput): MemoryRecord {
  const next: MemoryRecord = { ...current };
  if (patch.title !== undefined) next.title = v.validateTitle(patch.title);
  if (patch.content !== undefined) {
    const n = normalizeAndHashContent(v.validateContent(patch.content));
    next.content = n.storageContent;
    next.contentHash = n.contentHash;
  }
  if (patch.type !== undefined) next.type = v.validateType(patch.type, current.type);
  if (patch.scope !== undefined) next.scope = v.validateScope(patch.scope, current.scope);
  if (patch.tags !== undefined) next.tags = v.validateTags(patch.tags).tags;
  if (patch.importance !== undefined) next.importance = v.validateImportance(patch.importance, current.importance);
  if (patch.summary !== undefined) next.summary = v.validateSummary(patch.summary);
  if (patch.decisions !== undefined) next.decisions = v.validateStringList(patch.decisions, 'decisions');
  if (patch.rationale !== undefined) next.rationale = v.validateStringList(patch.rationale, 'rationale');
  if (patch.metadata !== undefined) next.metadata = v.validateMetadata(patch.metadata);
  if (patch.searchContext !== undefined) next.searchContext = v.validateSearchContext(patch.searchContext);
  if (patch.speaker !== undefined) next.speaker = v.validateSpeaker(patch.speaker);
  // New text: its own line breaks (or none), never the previous text's.
  if (patch.content !== undefined) next.metadata = withLineBreaks(next.metadata, patch.content, []);
  return next;
}

/** A copy of `current` with the merge's text, title, tags and importance, merged_from extended (doc_hash recomputed). */
export function mergedRecord(current: MemoryRecord, patch: MergePatch): MemoryRecord {
  const next: MemoryRecord = { ...current };
  const n = normalizeAndHashContent(v.validateContent(patch.content));
  next.content = n.storageContent;
  next.contentHash = n.contentHash;
  if (patch.title !== undefined) next.title = v.validateTitle(patch.title);
  if (patch.tags !== undefined) next.tags = v.validateTags(patch.tags).tags;
  if (patch.importance !== undefined) next.importance = v.validateImportance(patch.importance, current.importance);
  next.mergedFrom = [...current.mergedFrom, ...patch.absorbedIds.filter((x) => !current.mergedFrom.includes(x))];
  return withDocHash(next);
}

/** version + 1, updated_at, and who/why of an update (the current ones when not given). */
export function stampUpdate(next: MemoryRecord, current: MemoryRecord, patch: UpdateMemoryInput, iso: string): void {
  next.version = current.version + 1;
  next.updatedAt = iso;
  next.who = v.validateShortString(patch.who, 'who') ?? current.who;
  next.why = v.validateShortString(patch.why, 'why', 1000) ?? current.why;
}

/** The fields whose value differs (compared as JSON). */
export function changedKeys(current: MemoryRecord, next: MemoryRecord): (keyof MemoryRecord)[] {
  return (Object.keys(next) as (keyof MemoryRecord)[]).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(current[k]));
}

/** The WHERE clause and parameters of a list: the project, live unless includeDeleted, types, scope, every tag. */
export function listFilter(opts: ListOptions, projectId: string, now: Date): { clause: string; params: (string | number)[] } {
  const where: string[] = ['m.project_id = ?'];
  const params: (string | number)[] = [projectId];
  if (!opts.includeDeleted) {
    where.push(LIVE_MEMORY_SQL);
    params.push(liveParam(now));
  }
  if (opts.types?.length) {
    const types = opts.types.map((t) => v.validateType(t, 'general'));
    where.push(`m.type IN (${types.map(() => '?').join(', ')})`);
    params.push(...types);
  }
  if (opts.scope) {
    where.push('m.scope = ?');
    params.push(v.validateScope(opts.scope, 'project'));
  }
  if (opts.tags?.length) {
    const { tags } = v.validateTags(opts.tags);
    for (const tag of tags) {
      where.push('EXISTS (SELECT 1 FROM memory_tags t WHERE t.tag = ? AND t.rid = m.rid)');
      params.push(tag);
    }
  }
  return { clause: where.join(' AND '), params };
}

/**
 * What a `created` history row keeps of the new record. The memory row itself is that state
 * (later changes record the full prior record in old_json) and the text is in new_content,
 * so the whole record here only doubled the history's size: it was a quarter of the store.
 */
export function createdSummary(m: MemoryRecord): Partial<MemoryRecord> {
  return {
    id: m.id,
    version: m.version,
    type: m.type,
    scope: m.scope,
    title: m.title,
    tags: m.tags,
    importance: m.importance,
    source: m.source,
    agentSource: m.agentSource,
    contentHash: m.contentHash,
    expiresAt: m.expiresAt,
    createdAt: m.createdAt,
  };
}

/** Expected version given and different from the stored one: VersionConflictError. */
export function checkExpectedVersion(id: string, patch: UpdateMemoryInput, current: MemoryRecord): void {
  const expectedVersion = v.validateExpectedVersion(patch.expectedVersion);
  if (expectedVersion !== undefined && expectedVersion !== current.version) {
    throw new VersionConflictError(id, expectedVersion, current.version);
  }
}
