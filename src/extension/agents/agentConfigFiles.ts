/**
 * Merges the agent-memory MCP server into an agent's configuration file, in the file's own
 * format, without touching anything else that a merge does not have to (README "Connecting
 * other agents"):
 *
 * - JSON (`.mcp.json`, `~/.claude.json`, `~/.cursor/mcp.json`): edited in place with
 *   jsonc-parser — other servers, other keys, comments and the file's indentation are kept.
 * - TOML (`~/.codex/config.toml`): our `[mcp_servers.agent-memory]` table (and its sub-tables)
 *   is replaced where it stands, every copy of it removed — an older setup appended it twice and
 *   Codex then refused the whole file with "duplicate key". Checked by parsing the result
 *   (smol-toml): everything else must read exactly as before.
 * - YAML (`~/.continue/config.yaml`): the `mcpServers` item named agent-memory is replaced or
 *   added with `yaml`'s document API, which keeps comments.
 *
 * A file that already holds the same entry is returned unchanged (running the setup twice
 * changes nothing); a file that cannot be read as its format is an error naming the file's
 * problem, and nothing is written. No `vscode` import: the process tests use the same code.
 */
import * as fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import {
  applyEdits,
  modify,
  parseTree,
  findNodeAtLocation,
  getNodeValue,
  printParseErrorCode,
  type Node as JsonNode,
  type ParseError,
} from 'jsonc-parser';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { parseDocument, isMap, isSeq, type Document } from 'yaml';
import { writeIfChanged, type WriteOutcome } from './agentLauncher';
import type { AgentTarget } from './agentConfigs';
import { HookSettingsError, mergeClaudeHooks } from './claudeHooks';

export class ConfigFileError extends Error {}

// ---------------------------------------------------------------------------------- JSON

function jsonIndent(text: string): { insertSpaces: boolean; tabSize: number } {
  const m = /\n([ \t]+)\S/.exec(text);
  if (!m) return { insertSpaces: true, tabSize: 2 };
  return m[1]!.startsWith('\t') ? { insertSpaces: false, tabSize: 1 } : { insertSpaces: true, tabSize: m[1]!.length };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The parsed tree of a JSON object whose objects along `keyPath` are objects, or a ConfigFileError. */
function parseJsonObject(text: string, keyPath: string[]): JsonNode {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length || !root) {
    const e = errors[0];
    throw new ConfigFileError(
      e ? `it is not valid JSON (line ${lineOf(text, e.offset)}: ${printParseErrorCode(e.error)})` : 'it is not valid JSON',
    );
  }
  if (root.type !== 'object') throw new ConfigFileError('it is not a JSON object');
  for (let i = 1; i < keyPath.length; i++) {
    const parent = findNodeAtLocation(root, keyPath.slice(0, i));
    if (parent && parent.type !== 'object') throw new ConfigFileError(`its "${keyPath.slice(0, i).join('.')}" is not an object`);
  }
  return root;
}

/**
 * Sets `keyPath` (e.g. ["mcpServers", "agent-memory"]) to `value` in a JSON (with comments) text.
 * An object already there keeps the keys `value` does not name (an `env` the person added).
 */
export function mergeJsonEntry(text: string | undefined, keyPath: string[], value: Record<string, unknown>): string {
  if (!text?.trim()) {
    const fresh: Record<string, unknown> = {};
    let at = fresh;
    keyPath.slice(0, -1).forEach((k) => (at = (at[k] = {}) as Record<string, unknown>));
    at[keyPath[keyPath.length - 1]!] = value;
    return `${JSON.stringify(fresh, null, 2)}\n`;
  }
  const root = parseJsonObject(text, keyPath);
  const options = { formattingOptions: { ...jsonIndent(text), eol: text.includes('\r\n') ? '\r\n' : '\n' } };
  const current = findNodeAtLocation(root, keyPath);
  if (!current || current.type !== 'object') return applyEdits(text, modify(text, keyPath, value, options));
  let out = text;
  for (const [k, v] of Object.entries(value)) {
    const node = findNodeAtLocation(parseTree(out, [], { allowTrailingComma: true })!, [...keyPath, k]);
    if (node && isDeepStrictEqual(getNodeValue(node), v)) continue;
    out = applyEdits(out, modify(out, [...keyPath, k], v, options));
  }
  return out;
}

/** The JSON text without `keyPath` (unchanged when it is not there). */
export function removeJsonEntry(text: string, keyPath: string[]): string {
  const root = parseTree(text, [], { allowTrailingComma: true });
  if (!root || !findNodeAtLocation(root, keyPath)) return text;
  return applyEdits(text, modify(text, keyPath, undefined, { formattingOptions: { ...jsonIndent(text), eol: '\n' } }));
}

/** The value at `keyPath` of a JSON text, or undefined (also when the text is not JSON). */
export function readJsonEntry(text: string | undefined, keyPath: string[]): unknown {
  if (!text?.trim()) return undefined;
  const root = parseTree(text, [], { allowTrailingComma: true });
  const node = root && findNodeAtLocation(root, keyPath);
  return node ? getNodeValue(node) : undefined;
}

// ---------------------------------------------------------------------------------- TOML

/** The dotted key of a table header line (`[a."b c".d]`, `[[x]]`), or undefined for other lines. */
export function tomlHeaderKey(line: string): string[] | undefined {
  const m = /^\s*\[\[?(.*?)\]\]?\s*(#.*)?$/.exec(line);
  if (!m) return undefined;
  const parts: string[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let rest = m[1]!;
  while (rest.length) {
    re.lastIndex = 0;
    const p = re.exec(rest);
    if (!p) return undefined;
    parts.push(p[1] !== undefined ? (JSON.parse(`"${p[1]}"`) as string) : (p[2] ?? p[3]!));
    rest = rest.slice(p[0].length);
    if (p[4] === '' && rest.length) return undefined;
  }
  return parts;
}

function isOurTable(key: string[] | undefined, tablePath: string[]): boolean {
  return !!key && key.length >= tablePath.length && tablePath.every((k, i) => key[i] === k);
}

/**
 * The lines without every table at or under `tablePath`; `at`: the line where the first one was.
 * Blank and comment lines go with what follows them: kept before another table, dropped between
 * two of ours.
 */
function stripTables(lines: string[], tablePath: string[]): { kept: string[]; at: number | undefined } {
  const kept: string[] = [];
  let at: number | undefined;
  let inOurs = false;
  let pending: string[] = [];
  const flush = () => {
    kept.push(...pending);
    pending = [];
  };
  for (const line of lines) {
    const key = tomlHeaderKey(line);
    if (key) {
      const ours = isOurTable(key, tablePath);
      if (inOurs && ours) pending = [];
      else flush();
      if (ours && at === undefined) at = kept.length;
      if (!ours) kept.push(line);
      inOurs = ours;
    } else if (/^\s*(#.*)?$/.test(line)) {
      pending.push(line);
    } else if (inOurs) {
      pending = [];
    } else {
      flush();
      kept.push(line);
    }
  }
  flush();
  return { kept, at };
}

function tomlParse(text: string, what: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigFileError(`${what} is not valid TOML (${(e as Error).message.split('\n')[0]})`);
  }
}

function getPath(obj: unknown, keyPath: string[]): unknown {
  return keyPath.reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

/** The table's text: `[a.b]`, its keys and its sub-tables (smol-toml writes them). */
export function tomlTable(tablePath: string[], value: Record<string, unknown>): string {
  const nested = tablePath.reduceRight<Record<string, unknown>>((inner, k) => ({ [k]: inner }), value);
  return `${stringifyToml(nested).trim()}\n`;
}

/** Replaces (or adds) the table at `tablePath` in a TOML text; every other line is kept. */
export function mergeTomlTable(text: string | undefined, tablePath: string[], value: Record<string, unknown>): string {
  if (!text?.trim()) return tomlTable(tablePath, value);
  let previous: unknown;
  try {
    previous = getPath(parseToml(text), tablePath);
  } catch {
    previous = undefined; // e.g. our table twice ("duplicate key"): replaced whole
  }
  const merged = { ...(previous && typeof previous === 'object' ? previous : {}), ...value };
  const block = tomlTable(tablePath, merged);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const { kept, at } = stripTables(lines, tablePath);
  const rest = kept.join(eol);
  const before = tomlParse(rest, 'the file');
  if (getPath(before, tablePath) !== undefined) {
    throw new ConfigFileError(
      `it defines ${tablePath.join('.')} in a form this setup does not edit (not as a [${tablePath.join('.')}] table)`,
    );
  }
  const blockLines = block.trimEnd().split('\n');
  let out: string[];
  if (at !== undefined) out = [...kept.slice(0, at), ...blockLines, ...kept.slice(at)];
  else {
    const body = [...kept];
    while (body.length && body[body.length - 1] === '') body.pop();
    out = body.length ? [...body, '', ...blockLines, ''] : [...blockLines, ''];
  }
  const result = out.join(eol);
  const after = tomlParse(result, 'the result');
  const expected = JSON.parse(JSON.stringify(merged)) as unknown;
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(getPath(after, tablePath))), expected)) {
    throw new ConfigFileError(`the edited ${tablePath.join('.')} would not read back as written`);
  }
  return result === text ? text : result;
}

// ---------------------------------------------------------------------------------- YAML

export interface YamlServerItem {
  name: string;
  command: string;
  args: string[];
}

/** Replaces (or adds) the `mcpServers` item named `item.name` in a YAML text; a new file starts with `header`. */
export function mergeYamlServer(text: string | undefined, item: YamlServerItem, header: Record<string, unknown>): string {
  let doc: Document;
  if (!text?.trim()) {
    doc = parseDocument('{}');
    for (const [k, v] of Object.entries(header)) doc.set(k, v);
  } else {
    doc = parseDocument(text);
    if (doc.errors.length) throw new ConfigFileError(`it is not valid YAML (${doc.errors[0]!.message.split('\n')[0]})`);
    if (!isMap(doc.contents)) throw new ConfigFileError('it is not a YAML mapping');
  }
  const servers = doc.get('mcpServers');
  if (servers === undefined || servers === null) {
    doc.set('mcpServers', doc.createNode([item]));
  } else if (!isSeq(servers)) {
    throw new ConfigFileError('its mcpServers is not a list');
  } else {
    const existing = servers.items.find((n) => isMap(n) && n.get('name') === item.name);
    if (!isMap(existing)) servers.items.push(doc.createNode(item));
    else {
      // Keys the person added to our item (env, cwd…) stay.
      const stale = Object.entries(item).filter(([k, v]) => {
        const node = existing.get(k, true) as { toJSON?: () => unknown } | string | undefined;
        const now = node && typeof node === 'object' && node.toJSON ? node.toJSON() : node;
        return !isDeepStrictEqual(now, v);
      });
      if (!stale.length) return text!;
      for (const [k, v] of stale) existing.set(k, doc.createNode(v));
    }
  }
  if (!text?.trim()) (doc.contents as unknown as { flow?: boolean }).flow = false;
  return doc.toString({ lineWidth: 0 });
}

// ---------------------------------------------------------------------------------- files

/** The file's new text with the target's entry merged in (unchanged when it already holds it). */
export function mergedText(target: AgentTarget, existing: string | undefined): string {
  if (target.format === 'json') return mergeJsonEntry(existing, target.keyPath, target.entry);
  if (target.format === 'claude-hooks') {
    try {
      return mergeClaudeHooks(existing, target.entry as unknown as Parameters<typeof mergeClaudeHooks>[1]);
    } catch (e) {
      throw e instanceof HookSettingsError ? new ConfigFileError(e.message) : e;
    }
  }
  if (target.format === 'toml') return mergeTomlTable(existing, target.keyPath, target.entry as unknown as Record<string, unknown>);
  const { name, command, args } = target.entry as unknown as YamlServerItem;
  return mergeYamlServer(existing, { name, command, args }, target.newFileHeader ?? {});
}

/**
 * Merges the target's entry into its file and writes it when something changed (atomically;
 * an existing file keeps its mode, a new one gets `target.newFileMode`).
 * Throws ConfigFileError (nothing written) when the file cannot be read as its format.
 */
export function writeAgentConfig(target: AgentTarget): WriteOutcome {
  const existing = fs.existsSync(target.file) ? fs.readFileSync(target.file, 'utf8') : undefined;
  const text = mergedText(target, existing);
  if (text === existing) return 'unchanged';
  return writeIfChanged(target.file, text, { mode: target.newFileMode ?? 0o644 });
}
