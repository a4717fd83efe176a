// The one list of command ids and context keys (src/extension/commandIds.ts) matches package.json
// (contributed commands, the commands its menus, keybindings and links name, the keys its `when`
// clauses read) and the sources (every "agentMemory.…" id the extension and the webviews write is
// a known one, every command is used by the code). That the running extension registers exactly
// these commands is checked in VS Code by test/e2e/suite/extension.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND_IDS, CONTEXT_KEYS } from '../../src/extension/commandIds';
import { listSourceFiles } from '../helpers/importScan';

const root = path.resolve(__dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const contributes = pkg.contributes as Record<string, unknown> & {
  commands: { command: string }[];
  views: Record<string, { id: string }[]>;
  viewsContainers: Record<string, { id: string }[]>;
  configuration: { properties: Record<string, unknown> }[];
};
const commands = new Set<string>(COMMAND_IDS);
const contextKeys = new Set<string>(CONTEXT_KEYS);
const viewIds = new Set([...Object.values(contributes.views), ...Object.values(contributes.viewsContainers)].flat().map((v) => v.id));
const settings = new Set(contributes.configuration.flatMap((s) => Object.keys(s.properties)));

/** The webview panel types (graphPanel.ts, searchPanel.ts; `webviewId` in when clauses). "agentMemory.search" is a command too. */
const PANEL_TYPES = new Set(['agentMemory.graph', 'agentMemory.search']);

/** Ids of other kinds the extension writes: each says what it names. */
const OTHER_IDS: Readonly<Record<string, string>> = {
  'agentMemory.memory': 'the chat participant (contributes.chatParticipants)',
  'agentMemory.mcp': 'the MCP server definition provider (contributes.mcpServerDefinitionProviders)',
  'agentMemory.config': 'the diagnostics collection of agent.yaml',
  'agentMemory.status': 'the status bar item',
  'agentMemory.team': "the team memory's status bar item",
  'agentMemory.plainStoresNoticeSaid': 'a global state key',
  'agentMemory.expiredSeenUntil': 'a workspace state key',
  'agentMemory.lastExportFolder': 'a global state key',
  'agentMemory.projectFolder': 'a workspace state key',
  'agentMemory.treeGrouping': 'a workspace state key (also a context key)',
  'agentMemory.duplicates.autoMergeSimilarity': 'a setting id of the Settings editor layout',
};

/** Every "agentMemory.…" id in a text (not `config.agentMemory.…`, a setting read in a when clause). */
const idsIn = (text: string): string[] => [...text.matchAll(/(?<![\w.])agentMemory\.[A-Za-z0-9_.]*[A-Za-z0-9_]/g)].map((m) => m[0]);

/** Every value of `key` anywhere in `value` (menus, keybindings, walkthrough steps…). */
function valuesOf(value: unknown, key: string, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) valuesOf(v, key, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === key && typeof v === 'string') out.push(v);
      else valuesOf(v, key, out);
    }
  return out;
}

test('package.json contributes exactly the commands of COMMAND_IDS, each once', () => {
  const contributed = contributes.commands.map((c) => c.command);
  assert.equal(new Set(COMMAND_IDS).size, COMMAND_IDS.length, 'an id is listed twice');
  assert.equal(new Set(contributed).size, contributed.length, 'a command is contributed twice');
  assert.deepEqual([...contributed].sort(), [...COMMAND_IDS].sort());
});

test("package.json's menus, keybindings and command links name only commands of the list", () => {
  const named = valuesOf({ ...contributes, commands: [] }, 'command').filter((c) => c.startsWith('agentMemory.'));
  const linked = [...JSON.stringify(contributes).matchAll(/command:(agentMemory\.[A-Za-z0-9_.]+)/g)].map((m) => m[1]!);
  assert.ok(named.length > 50 && linked.length > 3, `found ${named.length} menu entries and ${linked.length} links: the scan is broken`);
  assert.deepEqual(
    [...named, ...linked].filter((c) => !commands.has(c)),
    [],
  );
});

test('when clauses read only context keys of the list, view ids and panel types; every context key is read there', () => {
  const clauses = [...valuesOf(contributes, 'when'), ...valuesOf(contributes, 'enablement')];
  // Walkthrough steps complete on a context key (`onContext:…`) too.
  const read = [
    ...clauses.flatMap(idsIn),
    ...[...JSON.stringify(contributes).matchAll(/onContext:(agentMemory\.[A-Za-z0-9_.]+)/g)].map((m) => m[1]!),
  ];
  assert.ok(clauses.length > 50, `found ${clauses.length} when clauses: the scan is broken`);
  assert.deepEqual(
    read.filter((k) => !contextKeys.has(k) && !viewIds.has(k) && !PANEL_TYPES.has(k)),
    [],
  );
  assert.deepEqual(
    CONTEXT_KEYS.filter((k) => !read.includes(k)),
    [],
    'a context key no when clause reads',
  );
});

test('every "agentMemory." id the extension and the webviews write is a known one, and every command is used', () => {
  const files = [...listSourceFiles(path.join(root, 'src/extension')), ...listSourceFiles(path.join(root, 'webview'))].filter(
    (f) => !f.endsWith(`${path.sep}commandIds.ts`),
  );
  const written = new Set<string>();
  for (const f of files)
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/['"`](agentMemory\.[A-Za-z0-9_.]+)['"`]/g)) written.add(m[1]!);
  const known = (id: string) =>
    commands.has(id) ||
    contextKeys.has(id) ||
    viewIds.has(id) ||
    PANEL_TYPES.has(id) ||
    settings.has(id) ||
    id in OTHER_IDS ||
    (id.endsWith('.focus') && viewIds.has(id.slice(0, -'.focus'.length)));
  assert.ok(written.size > 100, `found ${written.size} ids: the scan is broken`);
  assert.deepEqual(
    [...written].filter((id) => !known(id)),
    [],
  );
  assert.deepEqual(
    COMMAND_IDS.filter((c) => !written.has(c)),
    [],
    'a command the code never names (not registered)',
  );
  assert.deepEqual(
    Object.keys(OTHER_IDS).filter((id) => !written.has(id)),
    [],
    'an id of OTHER_IDS the code no longer writes',
  );
});
