/** Input validation (docs/write-path.md "Validate") for the memory API: each bad field gets a clear error. */
import { shownValue } from '../util/shownValue';
import { ValidationError } from './errors';
import { LIMITS } from './limits';
import { MEMORY_SCOPES, MEMORY_TYPES, type MemoryScope, type MemoryType } from './types';
import { MIN_CONTENT_CHARS } from '../text/quality';
import { normalizeTags } from '../text/tags';

export function validateContent(v: unknown, field = 'content'): string {
  if (typeof v !== 'string') throw new ValidationError(field, `must be a string, got ${v === null ? 'null' : typeof v}`);
  const stripped = v.replace(/\s+/g, '');
  if (stripped.length < MIN_CONTENT_CHARS) {
    throw new ValidationError(field, `must have at least ${MIN_CONTENT_CHARS} characters besides white space (has ${stripped.length})`);
  }
  if (v.length > LIMITS.contentMaxChars) {
    throw new ValidationError(
      field,
      `is ${v.length} characters; the limit is ${LIMITS.contentMaxChars}. Split it, or ingest it as a document.`,
    );
  }
  return v;
}

export function validateTitle(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ValidationError('title', `must be a string, got ${typeof v}`);
  const t = v.replace(/\s+/g, ' ').trim();
  if (t.length > LIMITS.titleMaxChars)
    throw new ValidationError('title', `is ${t.length} characters; the limit is ${LIMITS.titleMaxChars}`);
  return t;
}

export function validateSummary(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ValidationError('summary', `must be a string, got ${typeof v}`);
  if (v.length > LIMITS.summaryMaxChars)
    throw new ValidationError('summary', `is ${v.length} characters; the limit is ${LIMITS.summaryMaxChars}`);
  return v.trim() || null;
}

/** search_context: a string of at most LIMITS.searchContextMaxChars, whitespace tidied; '' when absent. */
export function validateSearchContext(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ValidationError('searchContext', `must be a string, got ${typeof v}`);
  if (v.length > LIMITS.searchContextMaxChars)
    throw new ValidationError('searchContext', `is ${v.length} characters; the limit is ${LIMITS.searchContextMaxChars}`);
  return v.replace(/\s+/g, ' ').trim();
}

/** speaker: a short name (trimmed), null when absent or empty. */
export function validateSpeaker(v: unknown): string | null {
  const s = validateShortString(v, 'speaker', LIMITS.speakerMaxChars);
  return s === null ? null : s.replace(/\s+/g, ' ').trim() || null;
}

export function validateImportance(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
    throw new ValidationError('importance', `must be a number from 0.0 to 1.0, got ${shownValue(v)}`);
  }
  return v;
}

export function validateType(v: unknown, fallback: MemoryType): MemoryType {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string' || !(MEMORY_TYPES as readonly string[]).includes(v)) {
    throw new ValidationError('type', `must be one of ${MEMORY_TYPES.join(', ')}; got ${shownValue(v)}`);
  }
  return v as MemoryType;
}

export function validateScope(v: unknown, fallback: MemoryScope): MemoryScope {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string' || !(MEMORY_SCOPES as readonly string[]).includes(v)) {
    throw new ValidationError('scope', `must be one of ${MEMORY_SCOPES.join(', ')}; got ${shownValue(v)}`);
  }
  return v as MemoryScope;
}

/**
 * `expectedVersion` of an update: a whole number ≥ 1 or absent. A string "1" would never equal
 * the stored version and came back as a confusing "expected version 1, found 1" conflict.
 */
export function validateExpectedVersion(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new ValidationError('expectedVersion', `must be a whole number, got ${shownValue(v)}`);
  }
  return v;
}

/** Tags of a search filter: strict (a filter silently dropped would widen the search). */
export function validateTagFilter(v: unknown): string[] {
  if (!Array.isArray(v)) throw new ValidationError('tags', `must be a list of tags, got ${shownValue(v)}`);
  const bad = v.findIndex((t) => typeof t !== 'string');
  if (bad >= 0) throw new ValidationError('tags', `tag #${bad + 1} must be a string, got ${shownValue(v[bad])}`);
  return normalizeTags(v).tags;
}

export function validateTags(v: unknown): { tags: string[]; warnings: string[] } {
  if (v === undefined || v === null) return { tags: [], warnings: [] };
  return normalizeTags(v);
}

export function validateStringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new ValidationError(field, 'must be a list of strings');
  return (v as string[]).map((s) => s.trim()).filter(Boolean);
}

export function validateMetadata(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new ValidationError('metadata', 'must be a JSON object');
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch (e) {
    throw new ValidationError('metadata', `is not serializable as JSON (${(e as Error).message})`);
  }
  if (Buffer.byteLength(text) > LIMITS.metadataMaxBytes) {
    throw new ValidationError('metadata', `is ${Buffer.byteLength(text)} bytes as JSON; the limit is ${LIMITS.metadataMaxBytes}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

export function validateTtl(v: unknown): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0 || v > 100 * 365 * 86400) {
    throw new ValidationError('ttlSeconds', `must be a positive whole number of seconds (or null for permanent), got ${shownValue(v)}`);
  }
  return v;
}

export function validateShortString(v: unknown, field: string, max = 200): string | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw new ValidationError(field, `must be a string, got ${typeof v}`);
  if (v.length > max) throw new ValidationError(field, `is ${v.length} characters; the limit is ${max}`);
  return v;
}

export { shownValue };
