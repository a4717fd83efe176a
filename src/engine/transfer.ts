/**
 * JSON export and import of memories. The file format is ExportFile (protocol.ts); import also
 * accepts a plain array of objects with at least `content`. Bad files are refused with a
 * message saying what is wrong; bad items are reported per item and never stop the others.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CreateMemoryInput, MemoryRecord } from '../core/memory/types';
import { errorMessage } from '../core/util/errors';
import { EngineError } from './errors';
import type { ExportFile } from './protocol';

/** Largest import file read into memory (a project's memories are far smaller). */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

export function writeExportFile(file: string, data: ExportFile): number {
  if (!path.isAbsolute(file)) throw new EngineError('invalid_input', `Export path must be absolute, got "${file}".`);
  const text = JSON.stringify(data, null, 2) + '\n';
  // Temp file + rename: an interrupted export never leaves a half-written file under the name.
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new EngineError('invalid_input', `Could not write ${file}: ${errorMessage(e)}`);
  }
  return Buffer.byteLength(text);
}

/** Reads an import file → create inputs (one per item; `null` where an item is not an object). */
export function readImportFile(file: string): (CreateMemoryInput | { invalid: string })[] {
  if (!path.isAbsolute(file)) throw new EngineError('invalid_input', `Import path must be absolute, got "${file}".`);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    throw new EngineError('invalid_input', `Cannot read ${file}: ${errorMessage(e)}`);
  }
  if (size > MAX_IMPORT_BYTES) throw new EngineError('invalid_input', `${file} is ${size} bytes; the import limit is ${MAX_IMPORT_BYTES}.`);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EngineError('invalid_input', `${path.basename(file)} is not valid JSON: ${errorMessage(e)}`);
  }
  const items = Array.isArray(data) ? data : isExportFile(data) ? data.memories : undefined;
  if (!items) {
    throw new EngineError('invalid_input', `${path.basename(file)} is neither an Agent Memory export (format "agent-memory-export") nor an array of memories.`);
  }
  return items.map((item, i) => (item && typeof item === 'object' && !Array.isArray(item) ? toInput(item as Partial<MemoryRecord>) : { invalid: `item ${i} is not an object` }));
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
  if (r.summary !== undefined && r.summary !== null) input.summary = r.summary;
  if (r.source !== undefined && r.source !== null) input.source = r.source;
  if (r.agentSource !== undefined && r.agentSource !== null) input.agentSource = r.agentSource;
  if (r.decisions !== undefined) input.decisions = r.decisions;
  if (r.rationale !== undefined) input.rationale = r.rationale;
  if (r.metadata !== undefined) input.metadata = r.metadata;
  if (r.ttlSeconds !== undefined) input.ttlSeconds = r.ttlSeconds;
  input.who = 'import';
  // An import restores what was there: the pipeline already learned from it once.
  input.fromRecall = true;
  return input;
}
