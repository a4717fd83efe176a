// UI test: VS Code lists the extension's MCP server the way a user finds it — "MCP: List
// Servers" shows "Agent Memory" (contributes.mcpServerDefinitionProviders, src/extension/
// mcpProvider.ts), and starting it from there runs the bundled CLI's `mcp`: VS Code's output for
// the server says it runs and found all its tools (as many as the MCP SDK's client lists from the
// same CLI), and the server runs with the MCP server's Node options (code-server's runtime is Node,
// not Electron: src/mcp/serverNodeFlags.ts). Screenshots: test-artifacts/e2e/mcp--*.png.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { runCommand } from './workbench.mjs';

/** How many tools the built CLI's MCP server lists to the SDK's own client (a scratch project and store home). */
async function toolCount() {
  const dir = mkdtempSync(join(tmpdir(), 'am-e2e-mcp-'));
  const client = new Client({ name: 'e2e-tool-count', version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [fileURLToPath(new URL('../../../dist/cli.js', import.meta.url)), 'mcp', '--workspace', dir],
        env: { ...process.env, AGENT_MEMORY_HOME: join(dir, 'home') },
        stderr: 'ignore',
      }),
    );
    return (await client.listTools()).tools.length;
  } finally {
    await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The running `agent-memory mcp` servers VS Code started from the bundled CLI
 * (Linux /proc): those with ELECTRON_RUN_AS_NODE=1 in their environment, which mcpProvider.ts sets;
 * each with its command line and the Node options before the CLI's path.
 */
function serversStartedByVsCode() {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let argv;
    let environ;
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile, or another user's
    }
    const cli = argv.findIndex((a) => a.endsWith('/dist/cli.js'));
    if (cli > 0 && argv[cli + 1] === 'mcp' && environ.includes('ELECTRON_RUN_AS_NODE=1'))
      found.push({ commandLine: argv.join(' '), nodeOptions: argv.slice(1, cli) });
  }
  return found;
}

/** The text of the panel's output once it matches `re` (Monaco renders lines as spans with non-breaking spaces). */
async function outputShows(page, re, timeoutMs = 60000) {
  const t0 = Date.now();
  for (;;) {
    const text = await page.evaluate(() =>
      [...document.querySelectorAll('.part.panel .view-line')].map((l) => (l.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'),
    );
    if (re.test(text)) return text;
    if (Date.now() - t0 > timeoutMs) throw new Error(`the output never showed ${re}:\n${text}`);
    await page.waitForTimeout(500);
  }
}

export const tests = {
  async 'MCP: List Servers shows Agent Memory, and it starts'({ page, screenshot }) {
    await runCommand(page, 'MCP: List Servers');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Agent Memory' }).first();
    await row.waitFor({ state: 'visible', timeout: 30000 });
    assert.match(await row.innerText(), /agent-memory[\s\S]*Agent Memory/, 'the server, from the Agent Memory provider');
    await screenshot('list-servers');
    await row.click();
    const start = page.locator('.quick-input-list .monaco-list-row', { hasText: /Start Server/ }).first();
    await start.waitFor({ state: 'visible', timeout: 10000 });
    await screenshot('server-actions');
    await start.click();
    // VS Code opens the server's output: the bundled CLI runs, answers the handshake and lists its tools.
    const tools = await toolCount();
    assert.ok(tools > 10, `the server lists its tools: ${tools}`);
    const log = await outputShows(page, new RegExp(`Discovered\\s+${tools}\\s+tools`));
    assert.match(log, /Connection state:\s+Running/);
    const servers = serversStartedByVsCode();
    assert.ok(servers.length >= 1, 'the server VS Code started is running');
    for (const { commandLine, nodeOptions } of servers) assert.deepEqual(nodeOptions, ['--v8-pool-size=1'], commandLine);
    await screenshot('server-running');
  },
};
