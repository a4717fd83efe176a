// @tier process
// Process-heavy: the files "Set Up Other Agents…" writes, loaded by the real clients (issue 19,
// item 6). Each client is installed from npm at a pinned version into .vscode-test/agents/ the
// first time (skipped, with the reason, when that fails) and runs with a fresh HOME. The memory
// store is a temporary folder holding a known memory; the client's environment names another,
// empty store (AGENT_MEMORY_HOME), so only the --home the setup wrote reaches the right one. Each
// client must call recall_memories on our server and get that memory back. The models the
// clients talk to are a scripted fake on 127.0.0.1 (test/helpers/fakeLlm.ts): nothing logs in,
// nothing leaves this machine.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { parse as parseToml } from 'smol-toml';
import { writeAgentConfig } from '../../src/extension/agents/agentConfigFiles';
import { agentTargets, type AgentSetupInput, type AgentTarget } from '../../src/extension/agents/agentConfigs';
import { ensureLauncher } from '../../src/extension/agents/agentLauncher';
import { buildExtension, clientEnv, installClient, runAsync, scratchDir, type ClientName } from '../helpers/agentClients';
import { fakeClone } from '../helpers/clones';
import { startFakeLlm } from '../helpers/fakeLlm';

const MEMORY = 'The billing service retries webhooks 7 times with jittered backoff.';
const TOOLS = ['delete_memory', 'get_memory', 'get_project_context', 'list_memories', 'list_suggestions', 'memory_history'];
const posix = process.platform !== 'win32';

interface World {
  root: string;
  /** The person's home folder: the clients' HOME. */
  userHome: string;
  workspace: string;
  /** A store nobody should open: the clients' AGENT_MEMORY_HOME. */
  decoy: string;
  input: AgentSetupInput;
}

let cli: Promise<string> | undefined;

/** A person with the extension installed, its launcher written, a project and a known memory in the store. */
async function world(opts: { defaultHome: boolean }): Promise<World> {
  const root = scratchDir('agents-');
  cli ??= buildExtension(path.join(scratchDir('ext-'), 'extensions'));
  const userHome = path.join(root, 'home');
  const home = opts.defaultHome ? path.join(userHome, '.agent-memory') : path.join(root, 'memory store');
  fs.mkdirSync(userHome, { recursive: true });
  const workspace = fakeClone(root, 'widgets');
  fs.writeFileSync(path.join(workspace, 'agent.yaml'), 'embedding:\n  provider: hash\n');
  const { file: launcher } = ensureLauncher({
    home,
    cliPath: await cli,
    runtime: process.execPath,
    extensionId: 'agent-memory.agent-memory',
  });
  const added = await runAsync(launcher, ['add', MEMORY, '--title', 'webhook retries', '--home', home], {
    cwd: workspace,
    env: clientEnv(userHome),
  });
  assert.equal(added.code, 0, added.err);
  const decoy = path.join(root, 'decoy store');
  return { root, userHome, workspace, decoy, input: { launcher, home, userHome, workspace, platform: process.platform, env: {} } };
}

/** Runs the setup of a target twice: the first writes, the second changes nothing. */
function setUpTwice(w: World, agent: string, scope: 'user' | 'project'): AgentTarget {
  const target = agentTargets(w.input).find((t) => t.agent === agent && t.scope === scope);
  assert.ok(target, `${agent} (${scope}) is offered`);
  const before = fs.existsSync(target.file) ? fs.readFileSync(target.file, 'utf8') : undefined;
  assert.notEqual(writeAgentConfig(target), 'unchanged', 'the first setup writes');
  const text = fs.readFileSync(target.file, 'utf8');
  assert.notEqual(text, before);
  assert.equal(writeAgentConfig(target), 'unchanged', 'the second setup changes nothing');
  assert.equal(fs.readFileSync(target.file, 'utf8'), text);
  return target;
}

function clientOrSkip(t: { skip: (m: string) => void }, name: ClientName): string | undefined {
  const c = installClient(name);
  if ('skip' in c) t.skip(c.skip);
  return 'bin' in c ? c.bin : undefined;
}

/** What Claude Code records when a person trusts the folder and approves its .mcp.json server. */
function approve(w: World): void {
  const state = path.join(w.userHome, '.claude.json');
  fs.mkdirSync(w.userHome, { recursive: true });
  const saved = fs.existsSync(state) ? (JSON.parse(fs.readFileSync(state, 'utf8')) as Record<string, unknown>) : {};
  saved.projects = { [w.workspace]: { hasTrustDialogAccepted: true, enabledMcpjsonServers: ['agent-memory'] } };
  fs.writeFileSync(state, JSON.stringify(saved));
}

const claudeEnv = (w: World, llm?: string) =>
  clientEnv(w.userHome, {
    AGENT_MEMORY_HOME: w.decoy,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // How long `claude -p` waits for its MCP servers before the first turn (MCP_CONNECT_TIMEOUT_MS, 5 s
    // by default) and for one to start (MCP_TIMEOUT): on a loaded CI machine our server can take longer
    // to answer, and a turn that began without it offers the fake model no tool to call.
    MCP_CONNECT_TIMEOUT_MS: '60000',
    MCP_TIMEOUT: '60000',
    // MCP tools offered directly, not behind Claude Code's tool search, so the fake model sees them.
    ENABLE_TOOL_SEARCH: 'false',
    ...(llm ? { ANTHROPIC_BASE_URL: llm, ANTHROPIC_API_KEY: 'sk-ant-test' } : {}),
  });

/** `claude -p` with the fake model, which calls recall_memories; returns what the tool answered. */
async function claudeRecalls(bin: string, w: World): Promise<string> {
  const llm = await startFakeLlm('agent-memory__recall_memories', { query: 'webhook retries' });
  try {
    const args = ['-p', 'What do we know about webhook retries?', '--allowedTools', 'mcp__agent-memory__recall_memories'];
    const r = await runAsync(bin, [...args, '--model', 'claude-sonnet-4-5'], { cwd: w.workspace, env: claudeEnv(w, llm.url) });
    assert.equal(r.code, 0, `claude -p: ${r.err}${r.out}`);
    return llm.toolResults.join('\n');
  } finally {
    await llm.close();
  }
}

test(
  'Claude Code, for you in every project: `claude mcp list` and `get` report it connected; it recalls the memory',
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'claude');
    if (!bin) return;
    const w = await world({ defaultHome: false });
    const target = setUpTwice(w, 'Claude Code', 'user');
    assert.equal(target.file, path.join(w.userHome, '.claude.json'));
    const list = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: claudeEnv(w) });
    assert.equal(list.code, 0, list.err);
    assert.match(
      list.out,
      new RegExp(`agent-memory: ${w.input.launcher.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} mcp --home .* - ✔ Connected`),
    );
    const get = await runAsync(bin, ['mcp', 'get', 'agent-memory'], { cwd: w.workspace, env: claudeEnv(w) });
    assert.equal(get.code, 0, get.err);
    assert.match(get.out, /Scope: User config/);
    assert.match(get.out, /Status: ✔ Connected/);
    assert.match(await claudeRecalls(bin, w), new RegExp(MEMORY.replace(/\./g, '\\.')));
  },
);

test(
  "Claude Code, for everyone on the project: .mcp.json names no one's path and reaches each person's store",
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'claude');
    if (!bin) return;
    const w = await world({ defaultHome: true });
    const target = setUpTwice(w, 'Claude Code', 'project');
    assert.equal(target.file, path.join(w.workspace, '.mcp.json'));
    assert.doesNotMatch(fs.readFileSync(target.file, 'utf8'), new RegExp(w.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    const pending = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: claudeEnv(w) });
    assert.match(pending.out, /agent-memory: .* - ⏸ Pending approval/, 'Claude Code asks before starting a project server');
    // A teammate without the extension, who approved it too: a server that does not start, nothing else.
    const teammate = { ...w, userHome: path.join(w.root, 'teammate') };
    approve(teammate);
    const theirs = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: claudeEnv(teammate) });
    assert.equal(theirs.code, 0, theirs.err);
    assert.match(theirs.out, /agent-memory: .* - \S+ Failed to connect/);
    // The person approves the project's server once, as Claude Code asks them to.
    approve(w);
    const list = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: claudeEnv(w) });
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /agent-memory: .* - ✔ Connected/);
    assert.match(await claudeRecalls(bin, w), new RegExp(MEMORY.replace(/\./g, '\\.')));
  },
);

/** JSON-RPC over `codex app-server`'s stdio: one request at a time. */
function appServer(bin: string, w: World) {
  const local = 'model_providers.local={name="local",base_url="http://127.0.0.1:9/v1",wire_api="responses"}';
  const args = ['app-server', '-c', 'model_provider="local"', '-c', local, '-c', 'model="fake"'];
  const p = spawn(bin, args, {
    cwd: w.workspace,
    env: clientEnv(w.userHome, { AGENT_MEMORY_HOME: w.decoy }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const waiting = new Map<number, (m: any) => void>();
  readline.createInterface({ input: p.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as { id?: number };
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  });
  let id = 0;
  const call = (method: string, params: unknown) =>
    new Promise<any>((resolve, reject) => {
      const i = ++id;
      const timer = setTimeout(() => reject(new Error(`codex app-server: no answer to ${method}; stderr: ${err}`)), 120_000);
      waiting.set(i, (m) => {
        clearTimeout(timer);
        if (m.error) reject(new Error(`${method}: ${JSON.stringify(m.error)}`));
        else resolve(m.result);
      });
      p.stdin.write(`${JSON.stringify({ id: i, method, params })}\n`);
    });
  return { call, notify: (method: string) => p.stdin.write(`${JSON.stringify({ method })}\n`), close: () => p.kill() };
}

test(
  'Codex: ~/.codex/config.toml holds one table after two setups (an old duplicate repaired); its MCP client lists and calls our tools',
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'codex');
    if (!bin) return;
    const w = await world({ defaultHome: false });
    const file = path.join(w.userHome, '.codex', 'config.toml');
    // What an earlier setup left: our table appended twice, which Codex refuses ("duplicate key").
    const old = `[mcp_servers.agent-memory]\ncommand = "node"\nargs = ["/gone/agent-memory-0.1.0/dist/cli.js", "mcp"]\n`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${old}\n${old}`);
    const broken = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: clientEnv(w.userHome) });
    assert.notEqual(broken.code, 0);
    assert.match(broken.err, /duplicate key/);
    setUpTwice(w, 'Codex', 'user');
    assert.equal(fs.readFileSync(file, 'utf8').match(/\[mcp_servers\.agent-memory\]/g)?.length, 1);
    assert.deepEqual((parseToml(fs.readFileSync(file, 'utf8')) as any).mcp_servers['agent-memory'].args, ['mcp', '--home', w.input.home]);
    const list = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: clientEnv(w.userHome) });
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /agent-memory .* enabled/);

    const codex = appServer(bin, w);
    try {
      await codex.call('initialize', { clientInfo: { name: 'agent-memory-test', version: '1' }, capabilities: { experimentalApi: true } });
      codex.notify('initialized');
      const status = (await codex.call('mcpServerStatus/list', {})) as { data: { name: string; tools: Record<string, unknown> }[] };
      const ours = status.data.find((s) => s.name === 'agent-memory');
      assert.ok(ours, `Codex lists our server: ${JSON.stringify(status.data.map((s) => s.name))}`);
      for (const tool of [...TOOLS, 'recall_memories', 'store_memory']) assert.ok(tool in ours.tools, `Codex lists ${tool}`);
      const thread = (await codex.call('thread/start', { cwd: w.workspace })) as { thread: { id: string } };
      const recalled = (await codex.call('mcpServer/tool/call', {
        server: 'agent-memory',
        threadId: thread.thread.id,
        tool: 'recall_memories',
        arguments: { query: 'webhook retries' },
      })) as { content: { text: string }[] };
      assert.match(recalled.content.map((c) => c.text).join('\n'), new RegExp(MEMORY.replace(/\./g, '\\.')));
    } finally {
      codex.close();
    }
  },
);

test(
  "Continue: `cn` loads the server from ~/.continue/config.yaml (the person's model kept) and recalls the memory",
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'cn');
    if (!bin) return;
    const w = await world({ defaultHome: false });
    const llm = await startFakeLlm('recall_memories', { query: 'webhook retries' });
    try {
      // The person's own configuration, with their model (here: the fake one) and a comment.
      const file = path.join(w.userHome, '.continue', 'config.yaml');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const mine = `name: Local Config\nversion: 1.0.0\nschema: v1\n# my model\nmodels:\n  - name: local\n    provider: openai\n    model: fake\n    apiBase: ${llm.url}/v1\n    apiKey: test\n`;
      fs.writeFileSync(file, mine);
      setUpTwice(w, 'Continue', 'user');
      assert.ok(fs.readFileSync(file, 'utf8').startsWith(mine), 'everything the person wrote is kept as it was');
      const r = await runAsync(bin, ['-p', 'What do we know about webhook retries?', '--allow', 'recall_memories'], {
        cwd: w.workspace,
        // No telemetry, and Continue's own service is the fake too: nothing leaves 127.0.0.1.
        env: clientEnv(w.userHome, {
          AGENT_MEMORY_HOME: w.decoy,
          CONTINUE_METRICS_ENABLED: '0',
          CONTINUE_CLI_ENABLE_TELEMETRY: '0',
          CONTINUE_API_BASE: `${llm.url}/`,
        }),
      });
      assert.equal(r.code, 0, `cn -p: ${r.err}${r.out}`);
      assert.match(llm.toolResults.join('\n'), new RegExp(MEMORY.replace(/\./g, '\\.')));
    } finally {
      await llm.close();
    }
  },
);

/** The command line of an entry as the client would run it (Cursor's variables replaced as Cursor does). */
function commandLine(target: AgentTarget, w: World): string[] {
  const expand = (s: string) =>
    s.replace('${workspaceFolder}', w.workspace).replace('${userHome}', w.userHome).replace('${HOME}', w.userHome);
  return [expand(target.entry.command as string), ...(target.entry.args as string[]).map(expand)];
}

test(
  'MCP Inspector runs the exact command line of each written entry (Cursor too) and lists and calls our tools',
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'inspector');
    if (!bin) return;
    for (const defaultHome of [false, true]) {
      const w = await world({ defaultHome });
      const targets = agentTargets(w.input).filter(
        (x) => x.writable && x.format !== 'claude-hooks' && (defaultHome ? x.scope === 'project' : x.scope === 'user'),
      );
      for (const target of targets) {
        const line = commandLine(target, w);
        const cwd = target.agent === 'Cursor' ? w.root : w.workspace; // Cursor: --workspace, from anywhere
        const env = clientEnv(w.userHome, { AGENT_MEMORY_HOME: w.decoy });
        const list = await runAsync(bin, ['--cli', ...line, '--method', 'tools/list'], { cwd, env });
        assert.equal(list.code, 0, `${target.agent} (${target.scope}): ${list.err}`);
        const names = (JSON.parse(list.out) as { tools: { name: string }[] }).tools.map((x) => x.name);
        for (const tool of TOOLS) assert.ok(names.includes(tool), `${target.agent} (${target.scope}) lists ${tool}`);
        const call = await runAsync(
          bin,
          ['--cli', ...line, '--method', 'tools/call', '--tool-name', 'recall_memories', '--tool-arg', 'query=webhook retries'],
          { cwd, env },
        );
        assert.equal(call.code, 0, call.err);
        assert.match(
          call.out,
          new RegExp(MEMORY.replace(/\./g, '\\.')),
          `${target.agent} (${target.scope}) reads the store the setup named`,
        );
      }
    }
  },
);

/** Every tool of ours among the names a client offered its model, under the client's own prefix. */
function offersOurTools(offered: string[][], prefix: string): void {
  const names = new Set(offered.flat());
  for (const tool of [...TOOLS, 'recall_memories', 'store_memory', 'memory_changes_since'])
    assert.ok(names.has(`${prefix}${tool}`), `${prefix}${tool} is offered: ${[...names].join(', ')}`);
}

test(
  'Gemini CLI: `gemini mcp list` reports the server from ~/.gemini/settings.json connected; it offers our tools and recalls the memory',
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'gemini');
    if (!bin) return;
    const w = await world({ defaultHome: false });
    // The person's own settings: an API key sign-in (here: for the fake model) and no usage statistics.
    const file = path.join(w.userHome, '.gemini', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const mine = { security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false } };
    fs.writeFileSync(file, JSON.stringify(mine, null, 2));
    // What Gemini CLI records when the person trusts the folder (it starts no MCP server in an untrusted one).
    fs.writeFileSync(path.join(w.userHome, '.gemini', 'trustedFolders.json'), JSON.stringify({ [w.workspace]: 'TRUST_FOLDER' }));
    setUpTwice(w, 'Gemini CLI', 'user');
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')).security, mine.security, 'the person’s settings are kept');
    const env = (llm?: string) =>
      clientEnv(w.userHome, { AGENT_MEMORY_HOME: w.decoy, ...(llm ? { GEMINI_API_KEY: 'test', GOOGLE_GEMINI_BASE_URL: llm } : {}) });
    const list = await runAsync(bin, ['mcp', 'list'], { cwd: w.workspace, env: env() });
    assert.equal(list.code, 0, list.err);
    assert.match(`${list.out}${list.err}`, /✓ agent-memory: .* mcp --home .* \(stdio\) - Connected/); // (it writes the list to stderr)
    const llm = await startFakeLlm('recall_memories', { query: 'webhook retries' });
    try {
      // Non-interactive, its tools approved (as --approval-mode yolo does), the model the fake one.
      const args = ['--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '-p', 'What do we know about webhook retries?'];
      const r = await runAsync(bin, args, { cwd: w.workspace, env: env(llm.url) });
      assert.equal(r.code, 0, `gemini -p: ${r.err}${r.out}`);
      offersOurTools(llm.offered, 'mcp_agent-memory_');
      assert.match(llm.toolResults.join('\n'), new RegExp(MEMORY.replace(/\./g, '\\.')));
    } finally {
      await llm.close();
    }
  },
);

test(
  'GitHub Copilot CLI: `copilot mcp get` reads ~/.copilot/mcp-config.json; offline with a local model it offers our tools and recalls the memory',
  { timeout: 600_000, skip: !posix && 'POSIX launcher' },
  async (t) => {
    const bin = clientOrSkip(t, 'copilot');
    if (!bin) return;
    const w = await world({ defaultHome: false });
    setUpTwice(w, 'GitHub Copilot CLI', 'user');
    const base = { AGENT_MEMORY_HOME: w.decoy, COPILOT_AUTO_UPDATE: 'false' };
    const get = await runAsync(bin, ['mcp', 'get', 'agent-memory'], { cwd: w.workspace, env: clientEnv(w.userHome, base) });
    assert.equal(get.code, 0, get.err);
    assert.match(get.out, /Status: Enabled[\s\S]*Type: local[\s\S]*mcp --home [\s\S]*Tools: \* \(all\)[\s\S]*Source: User/);
    const llm = await startFakeLlm('recall_memories', { query: 'webhook retries' });
    try {
      // Offline mode with a local model provider: no GitHub sign-in, no telemetry, nothing leaves 127.0.0.1.
      const env = clientEnv(w.userHome, {
        ...base,
        COPILOT_OFFLINE: 'true',
        COPILOT_PROVIDER_BASE_URL: `${llm.url}/v1`,
        COPILOT_PROVIDER_TYPE: 'openai',
        COPILOT_PROVIDER_API_KEY: 'test',
        COPILOT_MODEL: 'fake',
      });
      const args = ['-p', 'What do we know about webhook retries?', '--allow-tool', 'agent-memory', '--no-auto-update'];
      const r = await runAsync(bin, args, { cwd: w.workspace, env });
      assert.equal(r.code, 0, `copilot -p: ${r.err}${r.out}`);
      offersOurTools(llm.offered, 'agent-memory-');
      assert.match(llm.toolResults.join('\n'), new RegExp(MEMORY.replace(/\./g, '\\.')));
    } finally {
      await llm.close();
    }
  },
);
