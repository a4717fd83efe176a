// UI test: "Agent Memory: Set Up Other Agents…" as a person uses it (issue 19, item 6). The
// window wrote the launcher into its store home when it started, and that launcher runs the
// installed extension's CLI; the command offers each agent's user-level file (no project files:
// this store home is not the default ~/.agent-memory), writes Codex's once and says so, says
// "nothing changed" the second time, and shows every agent's entry. The agents' folders of this
// instance are under test-artifacts (scripts/e2e.mjs): never the developer's own.
// Screenshots: test-artifacts/e2e/agents--*.png.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { UI_STORE_HOME, runCommand, waitForNotification } from './workbench.mjs';

const CODEX_HOME = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'test-artifacts',
  'e2e',
  'store-home-agent-config-codex',
);
const LAUNCHER = join(UI_STORE_HOME, 'bin', 'agent-memory');

async function launcherWritten(timeoutMs = 30000) {
  const t0 = Date.now();
  while (!existsSync(LAUNCHER)) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`the window did not write ${LAUNCHER}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function pickSetup(page, label) {
  await runCommand(page, 'Agent Memory: Set Up Other Agents');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 15000 });
  return row;
}

export const tests = {
  async 'Set Up Other Agents writes Codex once; the launcher runs the installed CLI'({ page, screenshot, workspace }) {
    await launcherWritten();
    const script = readFileSync(LAUNCHER, 'utf8');
    assert.equal(statSync(LAUNCHER).mode & 0o777, 0o755);
    const runtime = /^runtime='([^']+)'$/m.exec(script)?.[1];
    assert.ok(runtime && existsSync(runtime), `the launcher records the runtime of this VS Code: ${runtime}`);
    assert.match(script, /^cli='[^']*agent-memory[^']*\/dist\/cli\.js'$/m, 'and the installed extension');
    const { stdout } = await promisify(execFile)(LAUNCHER, ['stats', '--json', '--workspace', workspace], { timeout: 60000 });
    assert.equal(typeof JSON.parse(stdout).project, 'object', 'the launcher runs the CLI on this store');

    const codex = await pickSetup(page, 'Codex: for you, in every project');
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.ok(rows.some((r) => r.includes('Claude Code: for you, in every project')));
    assert.ok(rows.some((r) => r.includes('Show the configuration of every agent')));
    assert.ok(!rows.some((r) => r.includes('for everyone on this project')), 'no project files for a store elsewhere');
    await screenshot('choices');
    await codex.click();
    await waitForNotification(page, 'Codex is set up for you, in every project');
    await screenshot('written');
    const file = join(CODEX_HOME, 'config.toml');
    const written = readFileSync(file, 'utf8');
    assert.match(
      written,
      new RegExp(
        `^\\[mcp_servers\\.agent-memory\\]\\ncommand = "${LAUNCHER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"\\nargs = \\[ "mcp", "--home", `,
      ),
    );

    await (await pickSetup(page, 'Codex: for you, in every project')).click();
    await waitForNotification(page, 'Codex was already set up for you, in every project');
    assert.equal(readFileSync(file, 'utf8'), written, 'the second setup changes nothing');

    await (await pickSetup(page, 'Show the configuration of every agent')).click();
    // A read-only Markdown document: nothing to save, so closing it never asks.
    const tab = page.locator('.tabs-container .tab', { hasText: 'Connect other agents to Agent Memory' }).first();
    await tab.waitFor({ state: 'visible', timeout: 15000 });
    assert.equal(await page.locator('.tabs-container .tab.dirty').count(), 0, 'no unsaved document left behind');
    await screenshot('shown');
  },
};
