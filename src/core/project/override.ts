/** The explicit override file: `.agent-memory.yml` (or Contextify's `.contextify.yml`) with `name: <id>`. */
import * as path from 'node:path';
import { parse } from 'yaml';
import { errorMessage } from '../util/errors';
import { MAX_YAML_DEPTH, yamlTooDeep } from '../util/yamlDepth';
import { entryKind, readSmallFile } from './fsRead';

/** Looked for in this order in each directory; the first one with a usable `name:` wins. */
export const OVERRIDE_FILE_NAMES = ['.agent-memory.yml', '.agent-memory.yaml', '.contextify.yml', '.contextify.yaml'] as const;

const MAX_OVERRIDE_BYTES = 64 * 1024;

export interface Override {
  name: string;
  file: string;
}

/**
 * The override in `dir`, if any. A file that cannot be read, is not YAML or has no usable
 * `name:` is reported in `warnings` and skipped, so resolution falls through to VCS detection.
 */
export function readOverride(dir: string, warnings: string[]): Override | undefined {
  for (const fileName of OVERRIDE_FILE_NAMES) {
    const file = path.join(dir, fileName);
    if (entryKind(file) !== 'file') continue;
    const name = overrideName(file);
    if (typeof name === 'string') return { name, file };
    warnings.push(`ignored ${file}: ${name.problem}`);
  }
  return undefined;
}

function overrideName(file: string): string | { problem: string } {
  const read = readSmallFile(file, MAX_OVERRIDE_BYTES);
  if (!read.ok) return { problem: `cannot read it (${read.error})` };
  const deep = yamlTooDeep(read.text);
  if (deep) return { problem: `it nests deeper than ${MAX_YAML_DEPTH} levels (line ${deep.line}), so it was not read` };
  let doc: unknown;
  try {
    doc = parse(read.text);
  } catch (err) {
    return { problem: `not valid YAML (${firstLine(errorMessage(err))})` };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    return { problem: 'expected a mapping with a "name:" field' };
  }
  const raw = (doc as Record<string, unknown>).name;
  if (raw === undefined || raw === null) return { problem: 'no "name:" field' };
  if (typeof raw !== 'string' && typeof raw !== 'number') {
    return { problem: `"name:" must be a string, not ${Array.isArray(raw) ? 'a list' : typeof raw}` };
  }
  const name = String(raw).trim();
  if (!name) return { problem: '"name:" is empty' };
  if (/[\r\n]/.test(name)) return { problem: '"name:" must be a single line' };
  return name;
}

const firstLine = (s: string): string => s.split('\n')[0];
