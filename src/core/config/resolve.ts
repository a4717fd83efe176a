/**
 * Applies raw (unvalidated) key/value entries on top of a base configuration: per-key
 * validation, unknown-key warnings, cross-field rules. Invalid values keep the base value.
 */
import { CROSS_FIELD_RULES } from './crossField.js';
import { describeAllowed, formatValue, plainString, showRaw } from './describe.js';
import { CONFIG_SCHEMA, CONFIG_SECTIONS, isSection, specFor } from './schema.js';
import { suggestKey } from './suggest.js';
import { MAX_REPORTED_ISSUES } from './limits.js';
import { deepFreeze, getAt, setAt, thaw } from './tree.js';
import type { ConfigIssue, ConfigResult, ConfigShape, ResolvedConfig } from './types.js';
import { checkValue } from './validate.js';

export interface RawEntry {
  path: string;
  value: unknown;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

export interface ResolveOptions {
  source?: string;
  /** What the base configuration is, for messages: the defaults, or values set before (overrides). */
  base: 'defaults' | 'previous';
}

const KNOWN_NAMES: readonly string[] = [...CONFIG_SCHEMA.map((s) => s.path), ...CONFIG_SECTIONS];

type Place = Pick<ConfigIssue, 'line' | 'column' | 'endLine' | 'endColumn' | 'source'>;

function place(entry: RawEntry | undefined, source: string | undefined): Place {
  const out: Place = {};
  if (entry?.line !== undefined) out.line = entry.line;
  if (entry?.column !== undefined) out.column = entry.column;
  if (entry?.endLine !== undefined) out.endLine = entry.endLine;
  if (entry?.endColumn !== undefined) out.endColumn = entry.endColumn;
  if (source !== undefined) out.source = source;
  return out;
}

type IssueBody = Omit<ConfigIssue, keyof Place>;

/** The warning for a key set a second time (the last value is used). */
function duplicateIssue(entry: RawEntry, earlier: RawEntry): IssueBody {
  const { path, value } = entry;
  const where = earlier.line !== undefined ? ` (first set at line ${earlier.line})` : '';
  return { severity: 'warning', key: path, value, message: `${path} is set more than once${where}; the last value is used` };
}

/**
 * The issue for a path that is not a key: a section given a value other than a mapping (an
 * empty section is fine: undefined), or an unknown key. `reported` is how many issues there are so far.
 */
function notAKeyIssue(entry: RawEntry, reported: number): IssueBody | undefined {
  const { path, value } = entry;
  if (isSection(path)) {
    if (value === null || value === undefined) return undefined;
    return {
      severity: 'error',
      key: path,
      value,
      message: `${path} is a section and must be a mapping of keys, not ${showRaw(value)}; the keys under it are left unchanged`,
    };
  }
  // A suggestion only for issues that will be shown: a hostile file may hold 10⁵ unknown keys.
  const hint = reported < MAX_REPORTED_ISSUES ? suggestKey(path, KNOWN_NAMES) : undefined;
  return {
    severity: 'warning',
    key: path,
    value,
    message: `unknown key ${path || '(empty)'} is ignored${hint ? ` (did you mean ${hint}?)` : ''}`,
  };
}

export function resolveEntries(base: ResolvedConfig, entries: readonly RawEntry[], opts: ResolveOptions): ConfigResult {
  const shape = thaw(base);
  const issues: ConfigIssue[] = [];
  const explicit = new Map<string, RawEntry>();
  const seen = new Map<string, RawEntry>();
  const at = (e: RawEntry | undefined) => place(e, opts.source);

  for (const entry of entries) {
    const { path, value } = entry;
    const earlier = seen.get(path);
    seen.set(path, entry);
    if (earlier) issues.push({ ...duplicateIssue(entry, earlier), ...at(entry) });

    const spec = specFor(path);
    if (!spec) {
      const issue = notAKeyIssue(entry, issues.length);
      if (issue) issues.push({ ...issue, ...at(entry) });
      continue;
    }

    const fallback = getAt(shape, path);
    const keeping = `${opts.base === 'defaults' ? 'the default' : 'the previous value'} ${formatValue(spec, fallback)}`;
    if (value === null || value === undefined) {
      issues.push({
        severity: 'warning',
        key: path,
        value,
        message: `${path} has no value; using ${keeping}`,
        allowed: describeAllowed(spec),
        ...at(entry),
      });
      continue;
    }
    const checked = checkValue(spec, value);
    if (!checked.ok) {
      issues.push({
        severity: 'error',
        key: path,
        value,
        message: `${path}: ${checked.message}; using ${keeping}`,
        allowed: describeAllowed(spec),
        ...at(entry),
      });
      continue;
    }
    if (checked.warning) {
      issues.push({
        severity: 'warning',
        key: path,
        value,
        message: `${path}: ${checked.warning}`,
        allowed: describeAllowed(spec),
        ...at(entry),
      });
    }
    setAt(shape as unknown as Record<string, unknown>, path, checked.value);
    explicit.set(path, entry);
  }

  issues.push(...applyCrossFieldRules(shape, base, explicit, opts));
  return { config: deepFreeze(shape), issues };
}

function applyCrossFieldRules(
  shape: ConfigShape,
  base: ResolvedConfig,
  explicit: ReadonlyMap<string, RawEntry>,
  opts: ResolveOptions,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const tree = shape as unknown as Record<string, unknown>;
  for (const rule of CROSS_FIELD_RULES) {
    const problem = rule.violation(shape);
    if (problem === undefined) continue;
    const setHere = rule.keys.filter((k) => explicit.has(k));
    const key = setHere[0] ?? rule.keys[0];
    const entry = explicit.get(key);
    const issue: ConfigIssue = { severity: rule.severity, key, value: getAt(shape, key), message: problem, ...place(entry, opts.source) };
    if (rule.severity === 'error') {
      for (const k of setHere) setAt(tree, k, getAt(base, k));
      let reset: readonly string[] = setHere;
      let label = opts.base === 'defaults' ? 'the default' : 'the previous value';
      if (rule.violation(shape) !== undefined) {
        // The base itself breaks the rule (it was not built by this module): use the defaults.
        for (const k of rule.keys) setAt(tree, k, specFor(k)?.default);
        reset = rule.keys;
        label = 'the default';
      }
      const list = reset.map((k) => `${k} = ${plainString(getAt(shape, k))}`).join(' and ');
      issue.message = `${problem}; using ${label}${reset.length > 1 ? 's' : ''} ${list}`;
    }
    issues.push(issue);
  }
  return issues;
}
