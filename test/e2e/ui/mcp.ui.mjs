// UI test: VS Code lists the extension's MCP server the way a user finds it — "MCP: List
// Servers" shows "Agent Memory" (contributes.mcpServerDefinitionProviders, src/extension/
// mcpProvider.ts), and starting it from there runs the bundled CLI's `mcp`: VS Code's output for
// the server says it runs and found its 11 tools. Screenshots: test-artifacts/e2e/mcp--*.png.
import assert from 'node:assert/strict';
import { runCommand } from './workbench.mjs';

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
    const log = await outputShows(page, /Discovered\s+11\s+tools/);
    assert.match(log, /Connection state:\s+Running/);
    await screenshot('server-running');
  },
};
