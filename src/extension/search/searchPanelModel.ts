/**
 * The search panel's data handling on the extension side: the webview's filters (untrusted
 * input, kept only when well-typed) → engine search params, and engine hits → result views.
 */
import type { MemorySummary, SearchHit, SearchParams } from '../../engine/protocol';
import type { SearchFiltersView, SearchResultView } from '../../present/webviewMessages';
import { describeExpiry } from '../../core/text/timeWords';
import { realTitle } from '../../present/memoryRowText';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Keeps well-typed values only; anything else is dropped (never sent to the engine). */
export function sanitizeSearchFilters(f: unknown, legacyType?: unknown): SearchFiltersView {
  const o = (f && typeof f === 'object' ? f : {}) as Record<string, unknown>;
  const strings = (v: unknown, max: number) =>
    Array.isArray(v)
      ? v
          .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
          .map((t) => t.trim())
          .slice(0, max)
      : [];
  const types = strings(o.types, 50);
  if (typeof legacyType === 'string' && legacyType && !types.includes(legacyType)) types.push(legacyType);
  const tags = strings(o.tags, 20);
  return {
    ...(types.length ? { types } : {}),
    ...(o.scope === 'project' || o.scope === 'global' ? { scope: o.scope } : {}),
    ...(tags.length ? { tags } : {}),
    ...(typeof o.createdAfter === 'string' && DATE.test(o.createdAfter) ? { createdAfter: o.createdAfter } : {}),
    ...(typeof o.createdBefore === 'string' && DATE.test(o.createdBefore) ? { createdBefore: o.createdBefore } : {}),
  };
}

/** Engine search params of a query + filters. "Created before" a day includes that day. */
export function searchParams(query: string, f: SearchFiltersView, limit: number): SearchParams {
  return {
    query,
    limit,
    ...(f.types ? { types: f.types } : {}),
    ...(f.scope ? { scope: f.scope } : {}),
    ...(f.tags ? { tags: f.tags } : {}),
    ...(f.createdAfter ? { createdAfter: f.createdAfter } : {}),
    ...(f.createdBefore ? { createdBefore: nextDay(f.createdBefore) } : {}),
  };
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

export function resultView(h: SearchHit): SearchResultView {
  return {
    id: h.memory.id,
    title: realTitle(h.memory.title, h.content),
    content: h.content,
    type: h.memory.type,
    scope: h.memory.scope,
    tags: h.memory.tags,
    score: h.score,
    relevance: h.relevance,
    matchedTerms: h.matchedTerms,
    ...(h.similarity !== undefined ? { similarity: h.similarity } : {}),
    legs: h.legs,
    ...(h.evidence ? { evidence: h.evidence } : {}),
    createdAt: h.memory.createdAt,
    importance: h.memory.importance,
    ...lifetimeOf(h.memory.expiresAt),
    matchType:
      h.matchType ??
      (h.legs.keyword !== undefined && h.legs.vector !== undefined ? 'hybrid' : h.legs.vector !== undefined ? 'vector' : 'keyword'),
  };
}

function lifetimeOf(expiresAt: string | null): { lifetime?: string } {
  const life = describeExpiry(expiresAt);
  return life ? { lifetime: life } : {};
}

/** A recent memory (empty query): its preview, no relevance, nothing matched. */
export function recentView(m: MemorySummary): SearchResultView {
  return {
    id: m.id,
    title: realTitle(m.title, m.preview),
    content: m.preview,
    type: m.type,
    scope: m.scope,
    tags: m.tags,
    score: 0,
    matchedTerms: [],
    legs: {},
    createdAt: m.createdAt,
    importance: m.importance,
    ...lifetimeOf(m.expiresAt),
  };
}
