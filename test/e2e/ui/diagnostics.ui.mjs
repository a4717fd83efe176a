// UI test: the command palette runs our command and the notification shows.
import assert from 'node:assert/strict';
import { runCommand, waitForNotification } from './workbench.mjs';

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
};
