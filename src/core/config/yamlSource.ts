/**
 * Reads agent.yaml text into flat raw entries (dotted path, value, line, column) without
 * judging the values. YAML errors come back as issues with their line and column.
 */
import { isAlias, isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { plainString } from './describe.js';
import type { RawEntry } from './resolve.js';
import { isSection, specFor } from './schema.js';
import type { ConfigIssue } from './types.js';

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
  const src = source !== undefined ? { source } : {};
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
  walk(doc, root, '', entries, posAt);
  return { ok: true, entries, issues };
}

function walk(doc: Document, map: Node, prefix: string, out: RawEntry[], posAt: PosAt): void {
  if (!isMap(map)) return;
  for (const pair of map.items) {
    const keyNode = pair.key as Node | null;
    const keyText = keyTextOf(keyNode);
    const path = prefix ? `${prefix}.${keyText}` : keyText;
    const valueNode = resolveAlias(doc, pair.value as Node | null);

    if (isSection(path) && isMap(valueNode)) {
      walk(doc, valueNode, path, out, posAt);
      continue;
    }
    const value = valueNode === null ? null : (valueNode.toJS(doc) as unknown);
    // Values of known keys are reported where the value is; anything else at its key.
    const range = specFor(path) && valueNode !== null ? valueNode.range : keyNode?.range;
    out.push({ path, value, ...posAt(range?.[0], range?.[1]) });
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
