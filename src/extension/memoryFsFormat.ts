/**
 * The text of a memory document (docs/editing.md): a small YAML front matter with the fields a
 * person edits (title, type, tags, importance, scope, lifetime), comments that say what cannot
 * be edited (version, dates), then the memory's text as the markdown body.
 *
 *   ---
 *   # Version 3 · updated 24 Nov 2026, 09:40 · created 24 Nov 2026, 07:13
 *   title: Use pnpm, not npm
 *   type: preference
 *   tags: [tooling, node]
 *   importance: 0.7
 *   scope: project
 *   lifetime: permanent
 *   ---
 *
 *   Use pnpm, not npm, in this repository: the lock file is pnpm-lock.yaml.
 *
 * Reading it back checks every field and names the one that is wrong. Pure: no `vscode` import.
 */
import { parseDocument, Document, isMap, isScalar } from 'yaml';
import { MEMORY_TYPES, type MemoryRecord, type UpdateMemoryInput } from '../core/memory/types';
import { parseTags } from './addMemorySteps';
import { durationText, shortDate } from './relativeTime';
import { displayText } from '../core/documents/markdownText';

export const EDITABLE_FIELDS = ['title', 'type', 'tags', 'importance', 'scope', 'lifetime'] as const;

/** A field of the document holds a value the memory cannot take: the message names the field. */
export class MemoryFieldError extends Error {
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'MemoryFieldError';
  }
}

/** What a document says, field by field. */
export interface MemoryFields {
  title: string;
  type: string;
  tags: string[];
  importance: number;
  scope: 'project' | 'global';
  /** As written ("permanent", "7 days"); `ttlSeconds` is its value. */
  lifetime: string;
  ttlSeconds: number | null;
  content: string;
}

const UNIT_SECONDS: Record<string, number> = { minute: 60, hour: 3_600, day: 86_400, week: 604_800 };

export function lifetimeText(m: Pick<MemoryRecord, 'ttlSeconds'>): string {
  return m.ttlSeconds === null ? 'permanent' : durationText(m.ttlSeconds);
}

function scalar(v: unknown, flow = false): string {
  const d = new Document(v, { flow });
  return d.toString({ lineWidth: 0 }).trimEnd();
}

/** Each use of a short-term memory pushes its expiry out (memory.ttl_extend_factor): say so next to the later date. */
function extendedByUse(m: Pick<MemoryRecord, 'createdAt' | 'expiresAt' | 'ttlSeconds'>): boolean {
  if (!m.expiresAt || m.ttlSeconds === null) return false;
  return Date.parse(m.expiresAt) - Date.parse(m.createdAt) > m.ttlSeconds * 1000 + 60_000;
}

/**
 * The document text of a memory. Dates are absolute: the text must not change while nothing
 * changed (the editor compares sizes and times to notice changes; relative times are in the history).
 */
export function renderMemory(m: MemoryRecord): string {
  const expiry = m.expiresAt ? ` # expires ${shortDate(m.expiresAt)}${extendedByUse(m) ? ' (extended by use)' : ''}` : '';
  const lines = [
    '---',
    `# Version ${m.version}${m.updatedAt === m.createdAt ? '' : ` · updated ${shortDate(m.updatedAt)}`} · created ${shortDate(m.createdAt)}`,
    `title: ${scalar(m.title)}`,
    `type: ${m.type}`,
    `tags: ${scalar(m.tags, true)}`,
    `importance: ${m.importance}`,
    `scope: ${m.scope}`,
    `lifetime: ${lifetimeText(m)}${expiry}`,
    '---',
    '',
    displayText(m), // a document chunk shows its markdown (src/core/documents/markdownText.ts)
  ];
  return lines.join('\n') + '\n';
}

/** Splits the front matter from the body; a document without one is all body. */
function splitDocument(text: string): { front: string | undefined; body: string } {
  const normalized = text.replace(/\r\n/g, '\n');
  if (!normalized.startsWith('---\n')) return { front: undefined, body: normalized };
  const end = normalized.indexOf('\n---', 3);
  if (end < 0) throw new MemoryFieldError('front matter', 'the closing "---" line is missing');
  const after = normalized.slice(end + 4);
  if (after && !after.startsWith('\n')) throw new MemoryFieldError('front matter', 'the closing "---" must be a line of its own');
  return { front: normalized.slice(4, end), body: after.slice(1) };
}

/** A one-line value (YAML may read `2024` or `true` as non-strings: they are text here). */
function oneLine(v: unknown, field: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v).trim();
  throw new MemoryFieldError(field, 'must be one line of text');
}

function parseLifetime(v: unknown): { lifetime: string; ttlSeconds: number | null } {
  const text = oneLine(v, 'lifetime').toLowerCase();
  if (text === 'permanent') return { lifetime: text, ttlSeconds: null };
  const m = /^(\d+)\s*(minute|hour|day|week)s?$/.exec(text);
  if (!m || Number(m[1]) < 1)
    throw new MemoryFieldError('lifetime', `write "permanent" or a duration like "7 days" or "12 hours", not ${JSON.stringify(v)}`);
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2]!]!;
  return { lifetime: durationText(seconds), ttlSeconds: seconds };
}

function parseTagsValue(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return parseTags(v);
  if (Array.isArray(v) && v.every((t) => typeof t === 'string' || typeof t === 'number')) return parseTags(v.join(','));
  throw new MemoryFieldError('tags', 'write a list like [tooling, node] or words separated by commas');
}

function parseImportance(v: unknown): number {
  const n = typeof v === 'number' ? v : Number.NaN;
  if (!(n >= 0 && n <= 1)) throw new MemoryFieldError('importance', `must be a number from 0 to 1, not ${JSON.stringify(v)}`);
  return n;
}

function readFront(front: string): Record<string, unknown> {
  const doc = parseDocument(front);
  const err = doc.errors[0];
  if (err) throw new MemoryFieldError('front matter', `not valid YAML (${err.message.split('\n')[0]})`);
  if (doc.contents === null) return {};
  if (!isMap(doc.contents)) throw new MemoryFieldError('front matter', 'must be "field: value" lines');
  const out: Record<string, unknown> = {};
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!(EDITABLE_FIELDS as readonly string[]).includes(key))
      throw new MemoryFieldError(key, `is not a field of a memory (the fields are ${EDITABLE_FIELDS.join(', ')})`);
    out[key] = (doc.toJS() as Record<string, unknown>)[key];
  }
  return out;
}

/**
 * Reads a document back. A field left out keeps the memory's value (`base`); without front
 * matter only the text changes. Throws MemoryFieldError naming the field that is wrong.
 */
export function parseMemoryDocument(text: string, base: MemoryRecord): MemoryFields {
  const { front, body } = splitDocument(text);
  const f = front === undefined ? {} : readFront(front);
  const content = body.replace(/^\n+/, '').replace(/\s+$/, '');
  if (!content) throw new MemoryFieldError('text', 'the memory text below the front matter is empty');
  return {
    title: f.title === undefined ? base.title : oneLine(f.title, 'title'),
    type: parseType(f.type, base),
    tags: f.tags === undefined ? base.tags : parseTagsValue(f.tags),
    importance: f.importance === undefined ? base.importance : parseImportance(f.importance),
    scope: parseScope(f.scope, base),
    ...(f.lifetime === undefined ? { lifetime: lifetimeText(base), ttlSeconds: base.ttlSeconds } : parseLifetime(f.lifetime)),
    content,
  };
}

function parseType(v: unknown, base: MemoryRecord): string {
  const type = v === undefined ? base.type : oneLine(v, 'type');
  if (!(MEMORY_TYPES as readonly string[]).includes(type)) throw new MemoryFieldError('type', `must be one of ${MEMORY_TYPES.join(', ')}`);
  return type;
}

function parseScope(v: unknown, base: MemoryRecord): 'project' | 'global' {
  const scope = v === undefined ? base.scope : oneLine(v, 'scope');
  if (scope !== 'project' && scope !== 'global') throw new MemoryFieldError('scope', 'must be "project" or "global"');
  return scope;
}

/** The memory.update patch that turns `from` into what the document says: only the fields that differ. */
export function patchFor(fields: MemoryFields, from: MemoryRecord): UpdateMemoryInput {
  const patch: UpdateMemoryInput = {};
  const shown = displayText(from).replace(/\s+$/, '');
  if (fields.content !== shown && fields.content !== from.content.replace(/\s+$/, '')) patch.content = fields.content;
  if (fields.title !== from.title) patch.title = fields.title;
  if (fields.type !== from.type) patch.type = fields.type;
  if (JSON.stringify(fields.tags) !== JSON.stringify(from.tags)) patch.tags = fields.tags;
  if (fields.importance !== from.importance) patch.importance = fields.importance;
  if (fields.scope !== from.scope) patch.scope = fields.scope;
  if (fields.lifetime !== lifetimeText(from)) patch.ttlSeconds = fields.ttlSeconds;
  return patch;
}
