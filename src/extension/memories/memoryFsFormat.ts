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
 * Reading it back checks every field and names the one that is wrong, with where its value is
 * written (the editor underlines it: memoryDiagnostics.ts). Pure: no `vscode` import.
 */
import { parseDocument, Document, isMap, isNode, isScalar } from 'yaml';
import { MEMORY_TYPES, type MemoryRecord, type UpdateMemoryInput } from '../../core/memory/types';
import { LIFETIME_EXAMPLES, parseLifetimeSeconds } from '../../core/lifecycle/lifetimeText';
import { parseTags } from './addMemorySteps';
import { durationText, humanDate } from '../../core/text/timeWords';
import { displayText } from '../../core/documents/markdownText';
import { sharedByText } from '../team/teamText';

export const EDITABLE_FIELDS = ['title', 'type', 'tags', 'importance', 'scope', 'lifetime'] as const;

/**
 * A field of the document holds a value the memory cannot take: the message names the field;
 * `start` and `end` are where the value is written (offsets into the document's text).
 */
export class MemoryFieldError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
    readonly start = 0,
    readonly end = 0,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'MemoryFieldError';
  }
}

/** The sentence of a save refused for a wrong value (the editor underlines the value: memoryDiagnostics.ts). */
export function notSavedMessage(p: Pick<MemoryFieldError, 'message'>): string {
  return `Not saved — ${p.message}. Correct the underlined value, then save again (your text stays in the editor).`;
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
  const expiry = m.expiresAt ? ` # expires ${humanDate(m.expiresAt)}${extendedByUse(m) ? ' (extended by use)' : ''}` : '';
  const lines = [
    '---',
    `# Version ${m.version}${m.updatedAt === m.createdAt ? '' : ` · updated ${humanDate(m.updatedAt)}`} · created ${humanDate(m.createdAt)}`,
    // Team memory: who made the version the server holds (docs/team.md "In VS Code").
    ...(m.sharedBy ? [`# Team memory: last shared version by ${sharedByText(m.sharedBy)}`] : []),
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

/** One line of the document: where a part of it starts and ends (offsets into the text). */
interface Span {
  start: number;
  end: number;
}

/** A field as written in the front matter: its value (as YAML reads it) and where the value is. */
interface Written extends Span {
  value: unknown;
}

/** A document read without a record: the fields it writes, its text, and every problem found. */
interface ReadDocument {
  fields: Map<string, Written>;
  content: string;
  problems: MemoryFieldError[];
}

const FRONT_START = 4; // "---\n"

/** Splits the front matter from the body; a document without one is all body. */
function splitDocument(text: string): { front?: string; body: string; bodyAt: number; problem?: MemoryFieldError } {
  if (!text.startsWith('---\n')) return { body: text, bodyAt: 0 };
  const end = text.indexOf('\n---', 3);
  if (end < 0)
    return { body: '', bodyAt: text.length, problem: new MemoryFieldError('front matter', 'the closing "---" line is missing', 0, 3) };
  const after = text.slice(end + 4);
  if (after && !after.startsWith('\n')) {
    const lineEnd = text.indexOf('\n', end + 1);
    const problem = new MemoryFieldError(
      'front matter',
      'the closing "---" must be a line of its own',
      end + 1,
      lineEnd < 0 ? text.length : lineEnd,
    );
    return { body: '', bodyAt: text.length, problem };
  }
  return { front: text.slice(FRONT_START, end), body: after.slice(1), bodyAt: end + 5 };
}

/** The front matter's fields with where each value is written (offsets into the document). */
function readFront(front: string): { fields: Map<string, Written>; problems: MemoryFieldError[] } {
  const fields = new Map<string, Written>();
  const doc = parseDocument(front);
  const err = doc.errors[0];
  if (err) {
    const [a, b] = err.pos;
    const problem = new MemoryFieldError(
      'front matter',
      `not valid YAML (${err.message.split('\n')[0]})`,
      FRONT_START + a,
      FRONT_START + Math.max(b, a + 1),
    );
    return { fields, problems: [problem] };
  }
  if (doc.contents === null) return { fields, problems: [] };
  if (!isMap(doc.contents)) {
    const [a, b] = doc.contents.range ?? [0, front.length];
    return { fields, problems: [new MemoryFieldError('front matter', 'must be "field: value" lines', FRONT_START + a, FRONT_START + b)] };
  }
  const problems: MemoryFieldError[] = [];
  const js = doc.toJS() as Record<string, unknown>;
  for (const pair of doc.contents.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    const keyRange = isNode(pair.key) ? pair.key.range : undefined;
    const valueRange = isNode(pair.value) && pair.value.range[1] > pair.value.range[0] ? pair.value.range : keyRange;
    const [a, b] = valueRange ?? [0, 0];
    if (!(EDITABLE_FIELDS as readonly string[]).includes(key)) {
      const [ka, kb] = keyRange ?? [a, b];
      const detail = `is not a field of a memory (the fields are ${EDITABLE_FIELDS.join(', ')})`;
      problems.push(new MemoryFieldError(key, detail, FRONT_START + ka, FRONT_START + kb));
      continue;
    }
    fields.set(key, { value: js[key], start: FRONT_START + a, end: FRONT_START + b });
  }
  return { fields, problems };
}

const FIELD_CHECKS: Readonly<Record<string, (v: unknown) => unknown>> = {
  title: (v) => oneLine(v, 'title'),
  type: (v) => parseType(v),
  tags: (v) => parseTagsValue(v),
  importance: (v) => parseImportance(v),
  scope: (v) => parseScope(v),
  lifetime: (v) => parseLifetime(v),
};

/** Reads a document's fields and text, checking each written value; every problem is kept, in document order. */
function readDocument(text: string): ReadDocument {
  const split = splitDocument(text);
  const { fields, problems } = split.front === undefined ? { fields: new Map<string, Written>(), problems: [] } : readFront(split.front);
  if (split.problem) problems.push(split.problem);
  for (const [field, w] of fields) {
    try {
      FIELD_CHECKS[field]?.(w.value);
    } catch (e) {
      if (!(e instanceof MemoryFieldError)) throw e;
      problems.push(new MemoryFieldError(e.field, e.detail, w.start, w.end));
    }
  }
  const content = split.body.replace(/^\n+/, '').replace(/\s+$/, '');
  if (!content && !split.problem) {
    problems.push(new MemoryFieldError('text', 'the memory text below the front matter is empty', split.bodyAt, text.length));
  }
  problems.sort((x, y) => x.start - y.start);
  return { fields, content, problems };
}

/** Offsets in the text with "\r\n" line ends, from offsets in the same text with "\n". */
function crlfOffsets(original: string): (n: number) => number {
  const removedAt: number[] = [];
  for (let i = original.indexOf('\r\n'); i >= 0; i = original.indexOf('\r\n', i + 2)) removedAt.push(i - removedAt.length);
  return (n) => n + removedAt.filter((at) => at < n).length;
}

/**
 * Every wrong value of a document, in document order, each with where it is written (offsets
 * into `text`): what the editor underlines and lists in the Problems panel.
 */
export function memoryDocumentProblems(text: string): MemoryFieldError[] {
  const at = crlfOffsets(text);
  return readDocument(text.replace(/\r\n/g, '\n')).problems.map((p) => new MemoryFieldError(p.field, p.detail, at(p.start), at(p.end)));
}

/**
 * Reads a document back. A field left out keeps the memory's value (`base`); without front
 * matter only the text changes. Throws MemoryFieldError naming the (first) field that is wrong.
 */
export function parseMemoryDocument(text: string, base: MemoryRecord): MemoryFields {
  const { fields, content, problems } = readDocument(text.replace(/\r\n/g, '\n'));
  if (problems[0]) throw problems[0];
  const f = (name: string) => fields.get(name)?.value;
  return {
    title: fields.has('title') ? oneLine(f('title'), 'title') : base.title,
    type: fields.has('type') ? parseType(f('type')) : base.type,
    tags: fields.has('tags') ? parseTagsValue(f('tags')) : base.tags,
    importance: fields.has('importance') ? parseImportance(f('importance')) : base.importance,
    scope: fields.has('scope') ? parseScope(f('scope')) : base.scope,
    ...(fields.has('lifetime') ? parseLifetime(f('lifetime')) : { lifetime: lifetimeText(base), ttlSeconds: base.ttlSeconds }),
    content,
  };
}

/** A one-line value (YAML may read `2024` or `true` as non-strings: they are text here). */
function oneLine(v: unknown, field: string): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return String(v).trim();
  throw new MemoryFieldError(field, 'must be one line of text');
}

/** The same lifetimes agent.yaml and the CLI accept (parseLifetimeSeconds), and the words this document shows. */
function parseLifetime(v: unknown): { lifetime: string; ttlSeconds: number | null } {
  const seconds = parseLifetimeSeconds(oneLine(v, 'lifetime'));
  if (seconds === undefined) throw new MemoryFieldError('lifetime', `write ${LIFETIME_EXAMPLES}, not ${JSON.stringify(v)}`);
  return seconds === null ? { lifetime: 'permanent', ttlSeconds: null } : { lifetime: durationText(seconds), ttlSeconds: seconds };
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

function parseType(v: unknown): string {
  const type = oneLine(v, 'type');
  if (!(MEMORY_TYPES as readonly string[]).includes(type)) throw new MemoryFieldError('type', `must be one of ${MEMORY_TYPES.join(', ')}`);
  return type;
}

function parseScope(v: unknown): 'project' | 'global' {
  const scope = oneLine(v, 'scope');
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
