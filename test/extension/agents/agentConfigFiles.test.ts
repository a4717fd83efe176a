// Merging the agent-memory server into each agent's file (issue 19, item 6): other servers,
// settings, comments and the person's own edits are kept; a second run changes nothing; the
// Codex file an older setup broke by appending our table twice ("duplicate key") is repaired.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import {
  ConfigFileError,
  mergeJsonEntry,
  mergeTomlTable,
  mergeYamlServer,
  readJsonEntry,
  removeJsonEntry,
  tomlHeaderKey,
  writeAgentConfig,
} from '../../../src/extension/agents/agentConfigFiles';
import { agentTargets } from '../../../src/extension/agents/agentConfigs';
import { tmpDir } from '../../helpers/tmp';

const KEY = ['mcpServers', 'agent-memory'];
const entry = { command: '/home/dev/.agent-memory/bin/agent-memory', args: ['mcp', '--home', '/home/dev/.agent-memory'] };

test('JSON: other servers, keys, comments and indentation are kept; twice = no change', () => {
  const before = [
    '{',
    '    // the team servers',
    '    "mcpServers": {',
    '        "github": { "command": "gh-mcp" }',
    '    },',
    '    "theme": "dark"',
    '}',
    '',
  ].join('\n');
  const once = mergeJsonEntry(before, KEY, entry);
  assert.match(once, /\/\/ the team servers/);
  assert.match(once, /\n {8}"agent-memory": \{\n {12}"command"/, 'four-space indentation kept');
  const parsed = JSON.parse(once.replace(/\/\/.*\n/, '')) as { mcpServers: Record<string, unknown>; theme: string };
  assert.deepEqual(parsed.mcpServers, { github: { command: 'gh-mcp' }, 'agent-memory': entry });
  assert.equal(parsed.theme, 'dark');
  assert.equal(mergeJsonEntry(once, KEY, entry), once, 'a second run changes nothing');
  assert.equal(mergeJsonEntry(undefined, KEY, entry), `${JSON.stringify({ mcpServers: { 'agent-memory': entry } }, null, 2)}\n`);
  assert.equal(mergeJsonEntry('  \n', KEY, entry), mergeJsonEntry(undefined, KEY, entry));
});

test('JSON: our old entry is replaced, keys the person added to it stay', () => {
  const old = JSON.stringify({
    mcpServers: {
      'agent-memory': { command: 'node', args: ['/x/agent-memory-0.1.0/dist/cli.js', 'mcp'], env: { DEBUG: '1' } },
    },
  });
  const merged = JSON.parse(mergeJsonEntry(old, KEY, entry)) as { mcpServers: Record<string, unknown> };
  assert.deepEqual(merged.mcpServers['agent-memory'], { ...entry, env: { DEBUG: '1' } });
});

test('JSON: removing our entry keeps the other servers; a file without it is unchanged', () => {
  const text = '{\n  "mcpServers": {\n    "github": { "command": "gh-mcp" },\n    "agent-memory": { "command": "node" }\n  }\n}\n';
  const removed = removeJsonEntry(text, KEY);
  assert.deepEqual(JSON.parse(removed), { mcpServers: { github: { command: 'gh-mcp' } } });
  assert.equal(removeJsonEntry(removed, KEY), removed);
});

test('JSON: a file that is not an object, or broken, is refused with the reason', () => {
  assert.throws(() => mergeJsonEntry('[1,2]', KEY, entry), /not a JSON object/);
  assert.throws(() => mergeJsonEntry('{"mcpServers": [1]}', KEY, entry), /"mcpServers" is not an object/);
  assert.throws(
    () => mergeJsonEntry('{\n"a": 1,\n"b" 2}', KEY, entry),
    (e: Error) => e instanceof ConfigFileError && /line 3/.test(e.message),
  );
});

const CODEX = ['mcp_servers', 'agent-memory'];

test('TOML: the table is added after the rest; twice = no change; comments and other tables kept', () => {
  const before = [
    '# my Codex settings',
    'model = "o4-mini"',
    '',
    '[mcp_servers.github]',
    'command = "gh-mcp" # the GitHub server',
    '',
  ].join('\n');
  const once = mergeTomlTable(before, CODEX, entry);
  assert.ok(once.startsWith(before.trimEnd()), 'everything before is kept as it was');
  assert.match(once, /\n\n\[mcp_servers\.agent-memory\]\ncommand = "\/home\/dev\/\.agent-memory\/bin\/agent-memory"\nargs = \[/);
  const parsed = parseToml(once) as Record<string, any>;
  assert.equal(parsed.model, 'o4-mini');
  assert.deepEqual({ ...parsed.mcp_servers['agent-memory'] }, entry);
  assert.equal(mergeTomlTable(once, CODEX, entry), once, 'a second run changes nothing');
  assert.equal(mergeTomlTable(mergeTomlTable(once, CODEX, entry), CODEX, entry), once);
});

test('TOML: a file with our table twice (the old append) is repaired where the first one was', () => {
  const oldBlock = '[mcp_servers.agent-memory]\ncommand = "node"\nargs = ["/x/agent-memory-0.1.0/dist/cli.js", "mcp"]\n';
  const broken = `model = "o3"\n\n${oldBlock}\n[tui]\ntheme = "dark"\n\n${oldBlock}`;
  assert.throws(() => parseToml(broken), /duplicate|already/i, 'the file Codex refused');
  const fixed = mergeTomlTable(broken, CODEX, entry);
  const parsed = parseToml(fixed) as Record<string, any>;
  assert.deepEqual({ ...parsed.mcp_servers['agent-memory'] }, entry);
  assert.equal(parsed.tui.theme, 'dark');
  assert.equal(fixed.match(/\[mcp_servers\.agent-memory\]/g)!.length, 1);
  assert.ok(fixed.indexOf('[mcp_servers.agent-memory]') < fixed.indexOf('[tui]'), 'replaced where it stood');
  assert.equal(mergeTomlTable(fixed, CODEX, entry), fixed);
});

test('TOML: keys and sub-tables the person added to our table stay; other forms are refused', () => {
  const edited = `[mcp_servers."agent-memory"]\ncommand = "old"\nstartup_timeout_sec = 30\n\n[mcp_servers.agent-memory.env]\nDEBUG = "1"\n\n[tui]\nx = 1\n`;
  const merged = mergeTomlTable(edited, CODEX, entry);
  const parsed = parseToml(merged) as Record<string, any>;
  assert.equal(parsed.mcp_servers['agent-memory'].startup_timeout_sec, 30);
  assert.deepEqual({ ...parsed.mcp_servers['agent-memory'].env }, { DEBUG: '1' });
  assert.equal(parsed.mcp_servers['agent-memory'].command, entry.command);
  assert.equal(parsed.tui.x, 1);
  assert.equal(mergeTomlTable(merged, CODEX, entry), merged);
  assert.throws(
    () => mergeTomlTable('[mcp_servers]\nagent-memory = { command = "x" }\n', CODEX, entry),
    /in a form this setup does not edit/,
  );
  assert.throws(() => mergeTomlTable('model = \n', CODEX, entry), /not valid TOML/);
  assert.deepEqual(tomlHeaderKey(` [ mcp_servers . "agent-memory" ] # ours`), ['mcp_servers', 'agent-memory']);
  assert.deepEqual(tomlHeaderKey(`[[a.'b c']]`), ['a', 'b c']);
  assert.equal(tomlHeaderKey('key = "[not a header]"'), undefined);
});

const item = { name: 'agent-memory', ...entry };
const HEADER = { name: 'Local Config', version: '1.0.0', schema: 'v1' };

test("YAML: Continue's config.yaml keeps its models, comments and other servers; twice = no change", () => {
  const before = [
    'name: Local Config',
    'version: 1.0.0',
    'schema: v1',
    '# my models',
    'models:',
    '  - name: Llama',
    '    provider: ollama',
    '    model: llama3',
    'mcpServers:',
    '  - name: github # the team one',
    '    command: gh-mcp',
    '',
  ].join('\n');
  const once = mergeYamlServer(before, item, HEADER);
  assert.ok(once.startsWith(before.slice(0, before.indexOf('mcpServers:'))), 'everything before mcpServers is kept as it was');
  assert.match(once, /# the team one/);
  const parsed = parseYaml(once) as { mcpServers: unknown[]; models: unknown[] };
  assert.deepEqual(parsed.mcpServers, [{ name: 'github', command: 'gh-mcp' }, item]);
  assert.equal(parsed.models.length, 1);
  assert.equal(mergeYamlServer(once, item, HEADER), once, 'a second run changes nothing');
  const fresh = mergeYamlServer(undefined, item, HEADER);
  assert.deepEqual(parseYaml(fresh), { ...HEADER, mcpServers: [item] });
  assert.match(fresh, /^name: Local Config\nversion: 1\.0\.0\nschema: v1\nmcpServers:\n {2}- name: agent-memory\n/);
  const withEnv = mergeYamlServer('mcpServers:\n  - name: agent-memory\n    command: node\n    env:\n      A: "1"\n', item, HEADER);
  assert.deepEqual((parseYaml(withEnv) as { mcpServers: unknown[] }).mcpServers, [{ ...item, env: { A: '1' } }]);
  assert.throws(() => mergeYamlServer('mcpServers: nope\n', item, HEADER), /mcpServers is not a list/);
  assert.throws(() => mergeYamlServer('a: [1\n', item, HEADER), /not valid YAML/);
});

test('writeAgentConfig writes each user-level file once, then reports no change; a broken file is left alone', () => {
  const home = tmpDir('am-agentcfg-');
  const input = {
    launcher: path.join(home, '.agent-memory/bin/agent-memory'),
    home: path.join(home, '.agent-memory'),
    userHome: home,
    platform: 'linux' as const,
  };
  const targets = agentTargets(input).filter((t) => t.writable);
  assert.deepEqual(
    targets.map((t) => writeAgentConfig(t)),
    targets.map(() => 'created'),
  );
  const texts = targets.map((t) => fs.readFileSync(t.file, 'utf8'));
  assert.deepEqual(
    targets.map((t) => writeAgentConfig(t)),
    targets.map(() => 'unchanged'),
  );
  assert.deepEqual(
    targets.map((t) => fs.readFileSync(t.file, 'utf8')),
    texts,
  );
  assert.equal(fs.statSync(path.join(home, '.claude.json')).mode & 0o777, 0o600, "Claude Code's state file stays private");
  const codex = targets.find((t) => t.agent === 'Codex')!;
  fs.writeFileSync(codex.file, 'model = \n');
  assert.throws(() => writeAgentConfig(codex), /not valid TOML/);
  assert.equal(fs.readFileSync(codex.file, 'utf8'), 'model = \n');
});

test("Zed's settings.json keeps its comments and other settings; the entry goes under context_servers, once", () => {
  const dir = tmpDir('am-zed-');
  const zed = agentTargets({
    launcher: '/home/dev/.agent-memory/bin/agent-memory',
    home: '/home/dev/.agent-memory',
    userHome: dir,
    workspace: '/home/dev/widgets',
    platform: 'linux',
    env: {},
  }).find((t) => t.agent === 'Zed')!;
  fs.mkdirSync(path.dirname(zed.file), { recursive: true });
  const before = '// Zed settings\n{\n  // my theme\n  "theme": "One Dark",\n  "context_servers": { "other": { "command": "x" } }\n}\n';
  fs.writeFileSync(zed.file, before);
  writeAgentConfig(zed);
  const after = fs.readFileSync(zed.file, 'utf8');
  assert.ok(after.includes('// my theme') && after.includes('"theme": "One Dark"'), after);
  assert.deepEqual({ ...(readJsonEntry(after, ['context_servers', 'other']) as object) }, { command: 'x' });
  assert.deepEqual(JSON.parse(JSON.stringify(readJsonEntry(after, ['context_servers', 'agent-memory']))), zed.entry);
  writeAgentConfig(zed);
  assert.equal(fs.readFileSync(zed.file, 'utf8'), after, 'a second run changes nothing');
});
