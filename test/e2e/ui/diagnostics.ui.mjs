// UI tests: the command palette runs our command and the notification shows; the summary says
// what is degraded (the pipeline on while Ollama does not answer) instead of "Everything is working".
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addMemoryFromPalette, runCommand, waitForNotification } from './workbench.mjs';

/** A port on 127.0.0.1 where nothing listens (taken, then freed). */
async function closedPort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** The diagnostics document's text (the editor renders spaces as no-break spaces). */
async function summaryText(page) {
  const summary = page.locator('.editor-instance .view-lines', { hasText: 'Agent Memory — diagnostics' }).first();
  await summary.waitFor({ state: 'visible', timeout: 15000 });
  return (await summary.innerText()).replace(/\u00a0/g, ' ');
}

export const tests = {
  async 'palette: Agent Memory: Show Diagnostics shows "Agent Memory is active"'({ page, screenshot }) {
    await screenshot('workbench');
    await runCommand(page, 'Agent Memory: Show Diagnostics');
    const toast = await waitForNotification(page, 'Agent Memory is active');
    assert.match(await toast.innerText(), /Agent Memory is active/);
    // People get sentences in a document; versions, paths and timings stay in the log.
    const summary = page.locator('.editor-instance .view-lines', { hasText: 'Agent Memory — diagnostics' }).first();
    await summary.waitFor({ state: 'visible', timeout: 15000 });
    const text = (await summary.innerText()).replace(/\u00a0/g, ' '); // the editor renders spaces as no-break spaces
    assert.match(text, /^Search: by keywords/m);
    assert.doesNotMatch(text, /extensionVersion|snapshot/);
    await screenshot('summary');
    // "Show Log" reveals the "Agent Memory" output channel with the technical lines.
    await toast.locator('.monaco-button', { hasText: 'Show Log' }).first().click();
    const output = page.locator('.part.panel .monaco-editor', { hasText: 'Diagnostics' }).first();
    await output.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await output.innerText(), /extensionVersion/);
    await screenshot('show-diagnostics');
  },
  async 'Show Diagnostics says the pipeline waits for Ollama and its jobs wait, never "Everything is working"'({
    page,
    screenshot,
    workspace,
  }) {
    const port = await closedPort();
    const yaml = join(workspace, 'agent.yaml');
    // The pipeline on (dry run) with its Ollama at a port where nothing answers: what a person has
    // when Ollama is not started.
    writeFileSync(yaml, `memory:\n  pipelineV2:\n    enabled: true\n    shadowMode: true\n    ollamaUrl: http://127.0.0.1:${port}\n`);
    try {
      await page.locator('.statusbar-item', { hasText: 'shadow' }).first().waitFor({ state: 'visible', timeout: 30000 });
      await addMemoryFromPalette(page, 'Diagnostics test: the nightly export runs after the billing close at 23:00 UTC.');
      await page.keyboard.press('Escape');
      await runCommand(page, 'Agent Memory: Show Diagnostics');
      const toast = await waitForNotification(page, 'Agent Memory is active');
      assert.match(await toast.innerText(), /need(s)? attention/);
      const text = (await summaryText(page)).replace(/\n {2}/g, ' '); // the report wraps long lines at 100 columns
      assert.doesNotMatch(text, /Everything is working/);
      assert.match(text, /Needs attention:/);
      assert.match(
        text,
        new RegExp(`The pipeline is on but Ollama does not answer at http://127\\.0\\.0\\.1:${port}: \\d+ jobs? waits? until it does\\.`),
      );
      await page.mouse.move(700, 450);
      await screenshot('pipeline-waits-for-ollama');
    } finally {
      // Later UI tests run on the same workspace: the pipeline goes off again.
      rmSync(yaml, { force: true });
      await page
        .locator('.statusbar-item', { hasText: 'shadow' })
        .first()
        .waitFor({ state: 'hidden', timeout: 30000 })
        .catch(() => {});
      await runCommand(page, 'View: Close All Editors').catch(() => {});
    }
  },
};
