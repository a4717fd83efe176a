/**
 * Export and import of memories. The export format is JSONL: a header line
 * `{"format":"agent-memory-jsonl","version":1,…}` then one memory per line (a bad line costs
 * that line only, and a file can be streamed or diffed). The older JSON ExportFile
 * (protocol.ts) and a plain array of objects with at least `content` are still read, and
 * written when asked for. Bad files are refused with a message saying what is wrong; bad
 * items are reported per line/item and never stop the others.
 */
import type { SecretKind } from '../core/secrets/rules';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CreateMemoryInput, MemoryRecord } from '../core/memory/types';
import type { MemoryService } from '../core/memory/memoryService';
import { ValidationError } from '../core/memory/errors';
import type { Store } from '../core/store/store';
import { errorMessage } from '../core/util/errors';
import { shownValue } from '../core/util/shownValue';
import { EngineError } from './errors';
import { exportFilePath, importFilePath, writePrivateFileAtomic } from './fileTarget';
import type { ExportFile } from './protocol';

/** Largest import file read into memory (a project's memories are far smaller). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

export function writeExportFile(file: string, data: ExportFile): number {
  const text = JSON.stringify(data, null, 2) + '\n';
  return writePrivateFileAtomic(exportFilePath(file), (put) => put(text));
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An import file's text: a regular file (links followed; a folder, a pipe or a device is refused)
 * of UTF-8 text. A UTF-8 byte order mark is dropped; a NUL byte means binary data, a UTF-16 mark
 * or bytes that are not UTF-8 are refused with what to do; an empty file has nothing to import.
 */
export function readImportText(file: string): string {
  const real = importFilePath(file);
  const size = fs.statSync(real).size;
  if (size > MAX_IMPORT_BYTES) throw new EngineError('invalid_input', `${file} is ${size} bytes; the import limit is ${MAX_IMPORT_BYTES}.`);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(real);
  } catch (e) {
    throw new EngineError('invalid_input', `Cannot read ${file}: ${errorMessage(e)}`);
  }
  return decodeImportText(file, bytes);
}

/** readImportText's checks on the bytes (see there). */
export function decodeImportText(file: string, bytes: Buffer): string {
  const name = path.basename(file);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new EngineError('invalid_input', `${name} is UTF-16 text: save it as UTF-8 and import it again.`);
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    throw new EngineError('invalid_input', `${name} is not a text file (binary data at byte ${nul}): give a .jsonl or .json export.`);
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new EngineError('invalid_input', `${name} is not UTF-8 text: save it as UTF-8 and import it again.`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!text.trim()) throw new EngineError('invalid_input', `${name} is empty: nothing to import.`);
  return text;
}

/** Line breaks of every platform: CRLF, LF and a lone CR (JSON text never holds a raw one). */
const LINE_BREAK = /\r\n|\r|\n/;

/** The JSON formats: an ExportFile or a plain array of objects with at least `content`. */
function parseJsonItems(file: string, text: string): ImportItem[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new EngineError('invalid_input', `${path.basename(file)} is not valid JSON: ${errorMessage(e)}`);
  }
  const items = Array.isArray(data) ? data : isExportFile(data) ? data.memories : undefined;
  if (!items) {
    throw new EngineError(
      'invalid_input',
      `${path.basename(file)} is neither an Agent Memory export (format "agent-memory-export" or "${JSONL_FORMAT}") nor an array of memories.`,
    );
  }
  return items.map((item, i) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? { index: i, input: toInput(item as Partial<MemoryRecord>), ...dates(item as Partial<MemoryRecord>) }
      : { index: i, invalid: `item ${i} is not an object` },
  );
}

function dates(r: Partial<MemoryRecord>): { createdAt?: string; updatedAt?: string } {
  return { ...(isIsoDate(r.createdAt) ? { createdAt: r.createdAt } : {}), ...(isIsoDate(r.updatedAt) ? { updatedAt: r.updatedAt } : {}) };
}

function isExportFile(d: unknown): d is ExportFile {
  return !!d && typeof d === 'object' && (d as ExportFile).format === 'agent-memory-export' && Array.isArray((d as ExportFile).memories);
}

/** The fields of a record that a new memory keeps (ids, versions and timestamps are new). */
function toInput(r: Partial<MemoryRecord>): CreateMemoryInput {
  const input: CreateMemoryInput = { content: r.content as string };
  if (r.title !== undefined) input.title = r.title;
  if (r.type !== undefined) input.type = r.type;
  if (r.scope !== undefined) input.scope = r.scope;
  if (r.tags !== undefined) input.tags = r.tags;
  if (r.importance !== undefined) input.importance = r.importance;
  copyContext(r, input);
  input.who = 'import';
  input.origin = 'import';
  // An import restores what was there: the pipeline already learned from it once.
  input.fromRecall = true;
  return input;
}

/** toInput's second half: summary, provenance, decisions, metadata and time to live. */
function copyContext(r: Partial<MemoryRecord>, input: CreateMemoryInput): void {
  if (r.summary !== undefined && r.summary !== null) input.summary = r.summary;
  if (r.source !== undefined && r.source !== null) input.source = r.source;
  if (r.agentSource !== undefined && r.agentSource !== null) input.agentSource = r.agentSource;
  if (r.decisions !== undefined) input.decisions = r.decisions;
  if (r.rationale !== undefined) input.rationale = r.rationale;
  if (r.metadata !== undefined) input.metadata = r.metadata;
  if (r.ttlSeconds !== undefined) input.ttlSeconds = r.ttlSeconds;
}

// ── JSONL (one memory per line after a header line) ─────────────────────────────────────────

/** The header line's `format`; `version` says which line shape follows. */
export const JSONL_FORMAT = 'agent-memory-jsonl';
export const JSONL_VERSION = 1;

export interface JsonlHeader {
  format: typeof JSONL_FORMAT;
  version: number;
  exportedAt: string;
  projectId: string;
  count: number;
}

/** Store-internal fields a memory line leaves out (row ids, hashes, embedding bookkeeping). */
const INTERNAL_FIELDS = ['rid', 'contentHash', 'docHash', 'embeddingStatus', 'embeddingVersion', 'embeddingHash'] as const;

/** One memory as its JSONL line (no trailing newline). */
export function memoryLine(r: MemoryRecord): string {
  const out: Record<string, unknown> = { ...r };
  for (const f of INTERNAL_FIELDS) delete out[f];
  return JSON.stringify(out);
}

/** Writes header + one line per memory, atomically and privately (writePrivateFileAtomic). */
export function writeJsonlExport(file: string, header: Omit<JsonlHeader, 'format' | 'version'>, records: Iterable<MemoryRecord>): number {
  return writePrivateFileAtomic(exportFilePath(file), (put) => {
    put(JSON.stringify({ format: JSONL_FORMAT, version: JSONL_VERSION, ...header } satisfies JsonlHeader) + '\n');
    for (const r of records) put(memoryLine(r) + '\n');
  });
}

/** One parsed item of an import: a create input (with the original timestamps) or why it is bad. */
export type ImportItem =
  | { line?: number; index: number; input: CreateMemoryInput; createdAt?: string; updatedAt?: string; notes?: string[] }
  | { line?: number; index: number; invalid: string };

/**
 * Whether `text` is read as JSONL: the file is named *.jsonl or starts with a JSONL header line;
 * a file named neither .jsonl nor .json (stdin, a pipe) is JSONL unless it is one JSON array or
 * JSON export.
 */
export function looksLikeJsonl(file: string, text: string): boolean {
  if (/\.jsonl$/i.test(file)) return true;
  const first = parseOrUndefined(text.slice(0, text.search(LINE_BREAK) >= 0 ? text.search(LINE_BREAK) : text.length));
  if (isObject(first) && first.format === JSONL_FORMAT) return true;
  if (/\.json$/i.test(file)) return false;
  const whole = parseOrUndefined(text);
  return !(Array.isArray(whole) || isExportFile(whole));
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Parses JSONL text: an optional header line (a newer version is refused as a whole: its
 * lines may mean something else), then one memory object per line. A bad line is reported
 * with its 1-based line number and skipped; blank lines are ignored.
 */
export function parseJsonl(text: string): { header?: JsonlHeader; items: ImportItem[] } {
  const lines = text.split(LINE_BREAK);
  const items: ImportItem[] = [];
  let header: JsonlHeader | undefined;
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      items.push({ line, index: items.length, invalid: `line ${line}: not valid JSON (${errorMessage(e)})` });
      return;
    }
    if (value && typeof value === 'object' && (value as { format?: unknown }).format === JSONL_FORMAT) {
      const h = value as JsonlHeader;
      if (items.length || header) {
        items.push({ line, index: items.length, invalid: `line ${line}: a second header line` });
        return;
      }
      if (typeof h.version !== 'number' || h.version > JSONL_VERSION) {
        throw new EngineError(
          'invalid_input',
          `This export has format version ${JSON.stringify(h.version)}; this Agent Memory reads version ${JSONL_VERSION} or older. Update the extension to import it.`,
        );
      }
      header = h;
      return;
    }
    items.push(toItem(value, items.length, line));
  });
  return { ...(header ? { header } : {}), items };
}

/** A record-like value → an import item (bad shape → invalid with the line or index). */
export function toItem(value: unknown, index: number, line?: number): ImportItem {
  const where = line !== undefined ? `line ${line}` : `item ${index}`;
  const at = line !== undefined ? { line, index } : { index };
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ...at, invalid: `${where}: not an object` };
  const r = value as Partial<MemoryRecord>;
  if (typeof r.content !== 'string' || !r.content.trim()) return { ...at, invalid: `${where}: no "content" text` };
  const item: ImportItem = { ...at, input: toInput(r) };
  if (isIsoDate(r.createdAt)) item.createdAt = r.createdAt;
  if (isIsoDate(r.updatedAt)) item.updatedAt = r.updatedAt;
  // A date that cannot be read is not silently replaced: the memory is imported with today's date and the result says so.
  const notes = (['createdAt', 'updatedAt'] as const)
    .filter((k) => r[k] !== undefined && r[k] !== null && !isIsoDate(r[k]))
    .map(
      (k) => `${where}: ${k === 'createdAt' ? 'created_at' : 'updated_at'} ${shownValue(r[k])} is not a date; imported with today's date`,
    );
  if (notes.length) item.notes = notes;
  return item;
}

function isIsoDate(v: unknown): v is string {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v));
}

/** Reads an import file of either format: JSONL (header + lines) or the JSON export / array. */
export function readImportItems(file: string): { format: 'jsonl' | 'json'; items: ImportItem[] } {
  const text = readImportText(file);
  if (looksLikeJsonl(file, text)) return { format: 'jsonl', items: parseJsonl(text).items };
  return { format: 'json', items: parseJsonItems(file, text) };
}

/** What became of one import item; `redacted` / `secrets`: the secret guard's kinds (docs/secrets.md). */
export interface ImportOutcome {
  item: ImportItem;
  status: 'created' | 'duplicate' | 'skipped' | 'error';
  id?: string;
  message?: string;
  redacted?: SecretKind[];
  secrets?: SecretKind[];
}

/**
 * Creates a batch of import items in ONE transaction (durable when it returns), keeping each
 * memory's original created_at/updated_at. Exact duplicates (same content) are reported as
 * such and not added again; near-duplicates are kept (they were separate memories before).
 */
export function importBatch(
  store: Store,
  svc: MemoryService,
  items: readonly Extract<ImportItem, { input: CreateMemoryInput }>[],
): ImportOutcome[] {
  const out: ImportOutcome[] = [];
  store.transaction((tx) => {
    for (const item of items) {
      try {
        const r = svc.createInTx(tx, { ...item.input, allowNearDuplicate: true });
        if (r.status === 'created') {
          if (item.createdAt) {
            tx.run('UPDATE memories SET created_at = ?, updated_at = ? WHERE rid = ?', [
              item.createdAt,
              item.updatedAt ?? item.createdAt,
              r.memory.rid,
            ]);
          }
          out.push({ item, status: 'created', id: r.memory.id, ...(r.redacted ? { redacted: r.redacted } : {}) });
        } else if (r.status === 'duplicate') out.push({ item, status: 'duplicate', id: r.memory.id });
        else out.push({ item, status: 'skipped', message: r.detail, ...(r.secrets ? { secrets: r.secrets } : {}) });
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        out.push({ item, status: 'error', message: e.message });
      }
    }
  });
  return out;
}

/** The export format a path asks for: `.json` keeps the older JSON file, anything else is JSONL. */
export function exportFormatFor(file: string): 'jsonl' | 'json' {
  return /\.json$/i.test(file) ? 'json' : 'jsonl';
}
