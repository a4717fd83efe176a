/**
 * Reads agent.yaml text into flat raw entries (dotted path, value, line, column) without
 * judging the values. YAML errors come back as issues with their line and column.
 */
import { isAlias, isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { plainString } from './describe.js';
import type { RawEntry } from './resolve.js';
import { isSection, specFor } from './schema.js';
import type { ConfigIssue } from './types.js';
import { MAX_YAML_DEPTH, yamlTooDeep } from '../util/yamlDepth.js';

export interface YamlEntries {
  /** False when the text is not valid YAML; the entries are then empty. */
  ok: boolean;
  entries: RawEntry[];
  issues: ConfigIssue[];
}

interface Pos {
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

type PosAt = (offset: number | undefined, end?: number) => Pos;

export function readYamlEntries(text: string, source?: string): YamlEntries {
  const src = source !== undefined ? { source } : {};
  // Refused before parsing: the parser recurses per level and can run out of stack or memory.
  const deep = yamlTooDeep(text);
  if (deep) {
    const message = `the file nests deeper than ${MAX_YAML_DEPTH} levels (at line ${deep.line}, column ${deep.column}); it is ignored and defaults are used`;
    return { ok: false, entries: [], issues: [{ severity: 'error', key: '', message, ...deep, ...src }] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  // Start (and end, when given) of a range as 1-based line/column: editors show issues there.
  const posAt: PosAt = (offset, end) => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    if (end === undefined || end <= offset) return { line, column: col };
    const e = lineCounter.linePos(end);
    return { line, column: col, endLine: e.line, endColumn: e.col };
  };
  const issues: ConfigIssue[] = [];

  for (const w of doc.warnings) {
    issues.push({ severity: 'warning', key: '', message: `YAML: ${w.message}`, ...posAt(w.pos[0], w.pos[1]), ...src });
  }
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      const pos = posAt(e.pos[0], e.pos[1]);
      const where = pos.line !== undefined ? ` at line ${pos.line}, column ${pos.column}` : '';
      issues.push({
        severity: 'error',
        key: '',
        message: `YAML syntax error${where}: ${e.message}; the file is ignored and defaults are used`,
        ...pos,
        ...src,
      });
    }
    return { ok: false, entries: [], issues };
  }

  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    return { ok: true, entries: [], issues };
  }
  if (!isMap(root)) {
    issues.push({
      severity: 'error',
      key: '',
      message: 'the file must be a mapping of keys (e.g. "memory:"); it is ignored and defaults are used',
      ...posAt(root.range?.[0], root.range?.[1]),
      ...src,
    });
    return { ok: true, entries: [], issues };
  }

  const entries: RawEntry[] = [];
  walk({ doc, out: entries, posAt, issues, src }, root, '');
  return { ok: true, entries, issues };
}

/**
 * An alias may be used this often per value. YAML's own default (100) already stops "billion
 * laughs" files; it is set here so the limit is ours, and its error becomes a problem at the key.
 */
const MAX_ALIAS_COUNT = 100;

interface Walk {
  doc: Document;
  out: RawEntry[];
  posAt: PosAt;
  issues: ConfigIssue[];
  src: { source?: string };
}

function walk(w: Walk, map: Node, prefix: string): void {
  if (!isMap(map)) return;
  for (const pair of map.items) {
    const keyNode = pair.key as Node | null;
    const keyText = keyTextOf(keyNode);
    const path = prefix ? `${prefix}.${keyText}` : keyText;
    const valueNode = resolveAlias(w.doc, pair.value as Node | null);

    if (isSection(path) && isMap(valueNode)) {
      walk(w, valueNode, path);
      continue;
    }
    const value = readValue(w, path, keyNode, valueNode);
    if (value === NOT_READ) continue;
    // Values of known keys are reported where the value is; anything else at its key.
    const range = specFor(path) && valueNode !== null ? valueNode.range : keyNode?.range;
    w.out.push({ path, value, ...w.posAt(range?.[0], range?.[1]) });
  }
}

const NOT_READ = Symbol('not read');

/** The value as JS, or NOT_READ (with a problem at the key) when its aliases expand too far. */
function readValue(w: Walk, path: string, keyNode: Node | null, valueNode: Node | null): unknown {
  if (valueNode === null) return null;
  try {
    return valueNode.toJS(w.doc, { maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch {
    const message = `${path} repeats aliases (*name) too often to be read; it is ignored`;
    w.issues.push({ severity: 'error', key: path, message, ...w.posAt(keyNode?.range?.[0], keyNode?.range?.[1]), ...w.src });
    return NOT_READ;
  }
}

/** A key as text: a scalar's value ('' for a null key), a complex key (a mapping, say) as YAML. */
function keyTextOf(keyNode: Node | null): string {
  if (isScalar(keyNode)) return plainString(keyNode.value ?? '');
  return keyNode === null ? '' : String(keyNode);
}

/** The node an alias points to (null when it points nowhere); any other node as is. */
function resolveAlias(doc: Document, node: Node | null): Node | null {
  return isAlias(node) ? ((node.resolve(doc) as Node | undefined) ?? null) : node;
}
