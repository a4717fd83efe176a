/** Mapping between `memories` rows and the public MemoryRecord shape. */
import type { Row } from '../store/store';
import { normalizeAndHashContent } from '../text/normalize';
import { headByUnits } from '../text/truncate';
import { timeRefsOf } from '../text/timeRefs';
import type { EmbeddingStatus, MemoryRecord, MemoryScope, MemorySummary, MemoryType } from './types';

function json<T>(v: unknown, fallback: T): T {
  if (typeof v !== 'string') return fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
}
/** A text column's value (or null): a number as its decimal text, a blob as String() wrote it (bytes joined by commas). */
function str(v: Row[string] | undefined): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return v.join(',');
}

export function rowToRecord(r: Row): MemoryRecord {
  return {
    id: String(r.id),
    rid: Number(r.rid),
    projectId: String(r.project_id),
    scope: r.scope as MemoryScope,
    type: r.type as MemoryType,
    title: String(r.title ?? ''),
    content: String(r.content),
    summary: str(r.summary),
    contentHash: String(r.content_hash),
    docHash: String(r.doc_hash),
    tags: json<string[]>(r.tags, []),
    importance: Number(r.importance),
    source: str(r.source),
    agentSource: str(r.agent_source),
    eventType: str(r.event_type),
    who: str(r.who),
    why: str(r.why),
    extractionModel: str(r.extraction_model),
    tier: String(r.tier),
    retentionStatus: String(r.retention_status),
    accessCount: Number(r.access_count),
    lastAccessedAt: str(r.last_accessed_at),
    ttlSeconds: r.ttl_seconds === null ? null : Number(r.ttl_seconds),
    expiresAt: str(r.expires_at),
    version: Number(r.version),
    mergedFrom: json<string[]>(r.merged_from, []),
    replacedBy: str(r.replaced_by),
    deletedAt: str(r.deleted_at),
    deletedBy: str(r.deleted_by),
    deleteReason: str(r.delete_reason),
    embeddingStatus: r.embedding_status as EmbeddingStatus,
    embeddingVersion: str(r.embedding_version),
    embeddingHash: str(r.embedding_hash),
    decisions: json<string[]>(r.decisions_json, []),
    rationale: json<string[]>(r.rationale_json, []),
    metadata: json<Record<string, unknown>>(r.metadata_json, {}),
    pipelineStatus: String(r.pipeline_status),
    searchContext: String(r.search_context ?? ''),
    speaker: str(r.speaker),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

export const PREVIEW_CHARS = 200;

export function rowToSummary(r: Row): MemorySummary {
  const content = String(r.content);
  return {
    id: String(r.id),
    type: r.type as MemoryType,
    scope: r.scope as MemoryScope,
    title: String(r.title ?? ''),
    preview: content.length > PREVIEW_CHARS ? `${headByUnits(content, PREVIEW_CHARS - 1)}…` : content,
    tags: json<string[]>(r.tags, []),
    importance: Number(r.importance),
    decisionCount: json<unknown[]>(r.decisions_json, []).length,
    accessCount: Number(r.access_count),
    expiresAt: str(r.expires_at),
    deletedAt: str(r.deleted_at),
    version: Number(r.version),
    createdAt: String(r.created_at),
    updatedAt: String(r.updated_at),
  };
}

/** The columns a record is written with, in one place for insert and update. */
export function recordToColumns(m: MemoryRecord): Record<string, string | number | null> {
  return {
    id: m.id,
    project_id: m.projectId,
    scope: m.scope,
    type: m.type,
    title: m.title,
    content: m.content,
    normalized_content: normalizeAndHashContent(m.content).normalizedContent,
    summary: m.summary,
    content_hash: m.contentHash,
    doc_hash: m.docHash,
    tags: JSON.stringify(m.tags),
    importance: m.importance,
    source: m.source,
    agent_source: m.agentSource,
    event_type: m.eventType,
    who: m.who,
    why: m.why,
    extraction_model: m.extractionModel,
    tier: m.tier,
    retention_status: m.retentionStatus,
    access_count: m.accessCount,
    last_accessed_at: m.lastAccessedAt,
    ttl_seconds: m.ttlSeconds,
    expires_at: m.expiresAt,
    version: m.version,
    merged_from: JSON.stringify(m.mergedFrom),
    replaced_by: m.replacedBy,
    deleted_at: m.deletedAt,
    deleted_by: m.deletedBy,
    delete_reason: m.deleteReason,
    embedding_status: m.embeddingStatus,
    embedding_version: m.embeddingVersion,
    embedding_hash: m.embeddingHash,
    decisions_json: JSON.stringify(m.decisions),
    rationale_json: JSON.stringify(m.rationale),
    metadata_json: JSON.stringify(m.metadata),
    pipeline_status: m.pipelineStatus,
    search_context: m.searchContext ?? '',
    speaker: m.speaker ?? null,
    // The days the text refers to, resolved against the memory's own date (docs/recall.md "Dates").
    time_refs: timeRefsOf(m.content, m.createdAt),
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}
