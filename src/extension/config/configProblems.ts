/**
 * What is wrong with an agent.yaml, as problems with an editor range: the configuration
 * loader's issues (src/core/config, with the line/column range of the value or key they are
 * about), plus a note on every value that a VS Code setting overrides (settings win over the
 * file, see README "Configure"). Invalid VS Code settings are problems too,
 * without a range in the file. Pure: no `vscode` import, so it is unit-tested directly.
 */
import { applyOverrides, parseConfig, type ConfigIssue } from '../../core/config';
import { readYamlEntries } from '../../core/config/yamlSource';
import { SETTINGS_SECTION } from './settingsSchema';
import { settingIdFor } from './settingsLayout';
import { plural } from '../../core/text/plural';
import { truncateLine } from '../../core/text/truncate';

/** 0-based, end exclusive (as vscode.Range). */
export interface ProblemRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface ConfigProblem {
  severity: 'error' | 'warning' | 'info';
  key: string;
  message: string;
  /** Where in agent.yaml; absent for problems of the VS Code settings. */
  range?: ProblemRange;
  /**
   * The text of the range's first line, as people see it in the file (`"enabled: [true"`), or
   * `after "…"` with the last line before it that has text: how a toast names a problem without a key.
   */
  lineText?: string;
  source: 'agent.yaml' | 'settings';
}

export const SETTINGS_SOURCE_NAME = 'VS Code settings';

function lineLength(lines: readonly string[], line: number): number {
  return (lines[line] ?? '').replace(/\r$/, '').length;
}

/** The issue's range; the rest of its line when only the start is known; the first line when nothing is. */
export function issueRange(issue: Pick<ConfigIssue, 'line' | 'column' | 'endLine' | 'endColumn'>, lines: readonly string[]): ProblemRange {
  if (issue.line === undefined) return { line: 0, column: 0, endLine: 0, endColumn: Math.max(1, lineLength(lines, 0)) };
  const line = issue.line - 1;
  const column = Math.max(0, (issue.column ?? 1) - 1);
  if (issue.endLine !== undefined && issue.endColumn !== undefined) {
    const endLine = issue.endLine - 1;
    const endColumn = issue.endColumn - 1;
    if (endLine > line || (endLine === line && endColumn > column)) return { line, column, endLine, endColumn };
  }
  return { line, column, endLine: line, endColumn: Math.max(column + 1, lineLength(lines, line)) };
}

/** How a toast names a line: its text, quoted and cut; a blank line by the last line with text before it. */
export function lineHint(lines: readonly string[], line: number): string | undefined {
  const quote = (t: string) => JSON.stringify(truncateLine(t, 40));
  const own = (lines[line] ?? '').trim();
  if (own) return quote(own);
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const before = (lines[i] ?? '').trim();
    if (before) return `after ${quote(before)}`;
  }
  return undefined;
}

function problemText(issue: ConfigIssue): string {
  return issue.allowed && !issue.message.includes(issue.allowed) ? `${issue.message} (allowed: ${issue.allowed})` : issue.message;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * Problems of agent.yaml `text` (named `file` in messages) and of the explicitly set VS Code
 * `settings` (dotted agent.yaml keys → values, as readSettingOverrides gives them).
 */
export function configProblems(text: string, file: string, settings: Readonly<Record<string, unknown>>): ConfigProblem[] {
  const lines = text.split('\n');
  const parsed = parseConfig(text, file);
  const out: ConfigProblem[] = parsed.issues.map((i) => {
    const range = issueRange(i, lines);
    const lineText = lineHint(lines, range.line);
    return {
      severity: i.severity,
      key: i.key,
      message: problemText(i),
      range,
      ...(lineText ? { lineText } : {}),
      source: 'agent.yaml' as const,
    };
  });
  const layered = applyOverrides(parsed.config, { ...settings }, SETTINGS_SOURCE_NAME);
  const rejected = new Set<string>();
  for (const i of layered.issues) {
    if (i.severity === 'error') rejected.add(i.key);
    const message = `${SETTINGS_SECTION}.${settingIdFor(i.key)} (VS Code settings): ${problemText(i)}`;
    out.push({ severity: i.severity, key: i.key, message, source: 'settings' });
  }
  for (const entry of readYamlEntries(text).entries) {
    if (!(entry.path in settings) || settings[entry.path] === undefined || rejected.has(entry.path)) continue;
    out.push({
      severity: 'info',
      key: entry.path,
      message:
        `${entry.path} is overridden by the VS Code setting ${SETTINGS_SECTION}.${settingIdFor(entry.path)} = ${shown(settings[entry.path])}: ` +
        'that value is used, not this one',
      range: issueRange(entry, lines),
      source: 'agent.yaml',
    });
  }
  return out;
}

/** Problems a person should be told about (not the override notes). */
export function actionable(problems: readonly ConfigProblem[]): ConfigProblem[] {
  return problems.filter((p) => p.severity !== 'info');
}

/** One line per problem, the same for the same problem: what the log and "changed?" checks compare. */
export function problemKey(p: ConfigProblem): string {
  return `${p.source}|${p.severity}|${p.range ? `${p.range.line + 1}:${p.range.column + 1}` : '-'}|${p.message}`;
}

/** A problem of the file as a whole (no key): the file is ignored and the defaults are used. */
function ignoresFile(p: ConfigProblem): boolean {
  return p.source === 'agent.yaml' && p.key === '' && /\bignored\b/.test(p.message);
}

/** `line 5 ("shadowMode: true")`: where a problem without a key is. */
function lineWhere(p: ConfigProblem): string {
  return p.range ? `line ${p.range.line + 1}${p.lineText ? ` (${p.lineText})` : ''}` : '';
}

const WHOLE_FILE_IGNORED = 'The whole file is ignored, and the defaults are used, until it is fixed.';

/**
 * The one notification text for a set of problems, e.g. "agent.yaml has 2 problems: memory.default_ttl
 * (line 3) and 1 more. …"; a YAML syntax error is named by its line's text ("line 5 ("shadowMode:
 * true")"), and says that the whole file is ignored.
 */
export function notificationText(fileName: string, problems: readonly ConfigProblem[]): string {
  const first = problems[0];
  if (!first) return '';
  const more = problems.length > 1 ? ` and ${problems.length - 1} more` : '';
  if (ignoresFile(first)) {
    const where = lineWhere(first);
    if (/^YAML syntax error/.test(first.message))
      return `Agent Memory: ${fileName} has a YAML syntax error${where ? ` at ${where}` : ''}${more}. ${WHOLE_FILE_IGNORED}`;
    const why = first.message.split(';')[0]!;
    return `Agent Memory: ${fileName} cannot be used: ${why}${where ? `, at ${where}` : ''}${more}. ${WHOLE_FILE_IGNORED}`;
  }
  // The key (or the line, for a problem without one): the full message (allowed values, the
  // default used) is in the Problems panel and at the squiggle; a toast that repeats it is too long to read.
  const what = first.key ? `${first.key}${first.range ? ` (line ${first.range.line + 1})` : ''}` : lineWhere(first) || 'the file';
  if (problems.length === 1) {
    return `Agent Memory: ${fileName} has 1 problem: ${what}. Its default is used until it is fixed.`;
  }
  return `Agent Memory: ${fileName} has ${plural(problems.length, 'problem')}: ${what}${more}. Defaults are used for those values until they are fixed.`;
}

/**
 * Remembers what was said already: each problem is logged once (until it is fixed and comes
 * back), and the person is notified once per distinct set of problems — a reload or a save
 * with the same problems says nothing new.
 */
export class ProblemReporter {
  private readonly logged = new Set<string>();
  private notified = '';

  /** The problems to log now, and whether this set deserves a notification. */
  report(problems: readonly ConfigProblem[]): { toLog: ConfigProblem[]; notify: boolean } {
    const shown = actionable(problems);
    const keys = shown.map(problemKey);
    const toLog = shown.filter((_, i) => !this.logged.has(keys[i]!));
    // Fixed problems are forgotten, so they are logged again if they come back.
    for (const k of [...this.logged]) if (!keys.includes(k)) this.logged.delete(k);
    for (const k of keys) this.logged.add(k);
    const fingerprint = keys.join('\n');
    const notify = fingerprint !== this.notified && shown.length > 0;
    this.notified = fingerprint;
    return { toLog, notify };
  }
}
