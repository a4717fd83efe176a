// UI tests of the surfaces a new user meets first (README "Use", "Chat", "Configure"):
// recall answers without a language model, Add Memory's steps, an invalid agent.yaml in the
// Problems panel. Screenshots: test-artifacts/e2e/trust--*.png.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  addMemoryFromPalette,
  clickQuickInputButton,
  findFrame,
  goToLine,
  openViewContainer,
  runCommand,
  waitForNotification,
} from './workbench.mjs';

const quickInput = (page) => page.locator('.quick-input-widget input');
const quickRow = (page, text) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();

/** Types into the open quick input step and presses Enter (an empty text keeps the default). */
async function answer(page, text, { waitFor } = {}) {
  const input = quickInput(page);
  await input.waitFor({ state: 'visible', timeout: 10000 });
  if (waitFor) await page.locator('.quick-input-widget', { hasText: waitFor }).first().waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
}

/** The visible text of the editor that shows `hasText`, whitespace (and word wrap) collapsed to single spaces. */
async function editorText(page, hasText) {
  const lines = page.locator('.part.editor .monaco-editor .view-lines', { hasText }).first();
  await lines.waitFor({ state: 'visible', timeout: 15000 });
  return (await lines.innerText()).replace(/\s+/g, ' ');
}

export const tests = {
  // Measured on VS Code 1.139 (code-server): with no language model, the chat view answers a
  // request to @memory itself with "Language model unavailable"; the participant's handler is
  // never called. "Agent Memory: Recall…" gives the answer instead.
  async 'recall answers without a model: chat refuses before @memory runs, Recall… answers with the memories'({ page, screenshot }) {
    await addMemoryFromPalette(page, 'The recall probe: the quokka-mq queue broker listens on port 61616 in staging.');
    await page.keyboard.press('Escape');
    const chatInput = page.locator('.interactive-input-editor').first();
    // The chat view may still be open from an earlier test (the workbench keeps its layout).
    if (!(await chatInput.isVisible())) await page.keyboard.press('Control+Alt+KeyI'); // View: Toggle Chat
    await chatInput.waitFor({ state: 'visible', timeout: 20000 });
    await chatInput.click();
    // An earlier test may have left text in the input: start from an empty one (one question per request).
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('@memory which port does quokka-mq use?', { delay: 20 });
    await page.keyboard.press('Enter');
    const session = page.locator('.interactive-session').first();
    await session.locator('text=Language model unavailable').first().waitFor({ state: 'visible', timeout: 20000 });
    const chatText = await session.innerText();
    assert.doesNotMatch(chatText, /Recalled \d+ memor|61616/, 'the participant did not answer: VS Code refused first');
    await screenshot('chat-without-model');
    await page.keyboard.press('Control+Alt+KeyI');

    await runCommand(page, 'Agent Memory: Recall…');
    await answer(page, 'which port does quokka-mq use?', { waitFor: 'Recall' });
    // The results document and a list of the recalled memories to open.
    await quickRow(page, 'quokka-mq queue broker').waitFor({ state: 'visible', timeout: 20000 });
    const doc = await editorText(page, 'Recalled');
    // Earlier tests leave other memories; the one that answers comes first.
    assert.match(doc, /^# Recall: which port does quokka-mq use\? Recalled \d+ memor(y|ies) for your question: 1\. The recall probe: /);
    assert.match(doc, /listens on port 61616 in staging\./);
    // Each memory ends with "Open"; no address, id or percent-encoding in the text (the link is the editor's).
    assert.match(doc, /\(general · Open\)/);
    assert.doesNotMatch(doc, /agent-memory:|%[0-9A-F]{2}|\[\d+\]:/, `no address lines: ${doc}`);
    await screenshot('recall-results');
    await quickRow(page, 'quokka-mq queue broker').click();
    const memoryTab = page
      .locator('.tab', { hasText: /\.md/ })
      .filter({ hasNotText: /Recall - / })
      .first();
    await memoryTab.waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('recall-opened-memory');

    // Back in the results document, the first memory's "Open" is a link to it.
    await runCommand(page, 'View: Close Editor');
    await memoryTab.waitFor({ state: 'detached', timeout: 10000 });
    await goToLine(page, 6);
    for (const key of ['End', 'ArrowLeft', 'ArrowLeft']) await page.keyboard.press(key);
    await runCommand(page, 'Open Link');
    await memoryTab.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await memoryTab.innerText(), /The recall probe/);

    // The markdown preview of the results reads the same, without link lines.
    await page.locator('.tab', { hasText: 'Recall - ' }).first().click();
    await runCommand(page, 'Markdown: Open Preview');
    const preview = await findFrame(
      page,
      async (f) =>
        (await f.locator('.markdown-body, body.vscode-body').count()) > 0 && /Recalled/.test(await f.locator('body').innerText()),
    );
    const rendered = await preview.locator('body').innerText();
    assert.match(rendered, /\(general · Open\)/);
    assert.doesNotMatch(rendered, /agent-memory:|%[0-9A-F]{2}|\[\d+\]:/);
    await screenshot('recall-preview');
  },

  async 'Add Memory asks type, tags, lifetime, importance, scope and title, with back and defaults'({ page, screenshot }) {
    await runCommand(page, 'Agent Memory: Add Memory…');
    await answer(page, 'Deploys to production happen on Tuesdays and need two approvals.');
    await answer(page, 'decision', { waitFor: 'type' });
    await screenshot('step-type');
    await answer(page, 'deploy, Ops', { waitFor: 'tags' });
    await answer(page, '7 days', { waitFor: 'lifetime' });
    await answer(page, 'High', { waitFor: 'importance' });
    // On the scope step, go back: importance again, with High preselected (Enter keeps it).
    await page.locator('.quick-input-widget', { hasText: 'scope' }).first().waitFor({ state: 'visible', timeout: 10000 });
    await screenshot('step-scope');
    await clickQuickInputButton(page, 'Back');
    await answer(page, '', { waitFor: 'importance' });
    await answer(page, 'Global', { waitFor: 'scope' });
    const title = quickInput(page);
    await page.locator('.quick-input-widget', { hasText: 'title' }).first().waitFor({ state: 'visible', timeout: 10000 });
    const suggested = await title.inputValue();
    assert.equal(suggested, 'Deploys to production happen on Tuesdays and need two approvals.', 'the first sentence is suggested');
    await answer(page, 'Production deploy rule');
    const toast = await waitForNotification(page, 'Memory saved: Production deploy rule');
    // VS Code names the extension that raised it (a linked dist/ made this "Null Extension Description").
    const label = await toast.locator('.monaco-list-row').first().getAttribute('aria-label');
    assert.match(label ?? '', /^Info: Memory saved: Production deploy rule, source: Agent Memory, notification/);
    await screenshot('saved');

    // What was saved, as the memory's document shows it.
    await runCommand(page, 'Agent Memory: Recall…');
    await answer(page, 'production deploys approvals', { waitFor: 'Recall' });
    await quickRow(page, 'Production deploy rule').click();
    const text = await editorText(page, 'lifetime:');
    // The memory document's front matter (docs/editing.md).
    assert.match(text, /type: decision/);
    assert.match(text, /scope: global/);
    assert.match(text, /importance: 0\.7/);
    assert.match(text, /tags: \[ deploy, ops \]/);
    assert.match(text, /lifetime: 1 week # expires \d{1,2} \w{3} 20\d\d/);
    await screenshot('saved-memory');
  },

  async 'an invalid agent.yaml gives a Problems entry at the right line, one notification, a warning status bar'(t) {
    const { page, screenshot, workspace } = t;
    const file = join(workspace, 'agent.yaml');
    const yaml = ['# Agent Memory settings of this project', 'memory:', '  default_ttl: soon', 'search:', '  vector_weight: 0.5', ''].join(
      '\n',
    );
    try {
      writeFileSync(file, yaml);
      const toast = await waitForNotification(page, 'agent.yaml has 1 problem', { timeoutMs: 30000 });
      assert.match(await toast.innerText(), /memory\.default_ttl.*\(line 3\)/s);
      assert.match(await toast.innerText(), /Open agent\.yaml/);
      // The warning state shows once the engine is ready (it may still be starting in a long run).
      const warning = page
        .locator('.statusbar-item', { hasText: 'Memory' })
        .filter({ has: page.locator('.codicon-warning') })
        .first();
      await warning.waitFor({ state: 'visible', timeout: 30000 });
      await screenshot('notification');

      await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Show Problems' }).first().click();
      const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'memory.default_ttl' }).first();
      await row.waitFor({ state: 'visible', timeout: 15000 });
      assert.match(await row.innerText(), /Ln 3, Col 16/);
      await screenshot('problems');
      await row.click(); // opens agent.yaml at the value, with its squiggle
      await page.locator('.part.editor .monaco-editor .squiggly-error').first().waitFor({ state: 'visible', timeout: 15000 });
      await screenshot('squiggle');

      // Saving the same problems again is not a new notification.
      await page.keyboard.press('Escape'); // dismisses the toast
      writeFileSync(file, `${yaml}\n`);
      await page.waitForTimeout(3000);
      const again = page.locator('.notifications-toasts .notification-toast', { hasText: 'agent.yaml has' });
      assert.equal(await again.count(), 0, 'one notification per change');
    } finally {
      rmSync(file, { force: true });
    }
    await openViewContainer(page, 'Explorer');
  },
  async 'a YAML syntax error in agent.yaml: the notification quotes the line and says the whole file is ignored'({
    page,
    screenshot,
    workspace,
  }) {
    const file = join(workspace, 'agent.yaml');
    try {
      writeFileSync(file, ['memory:', '  default_ttl: 7d', '  pipelineV2:', '    enabled: [true', '    shadowMode: true', ''].join('\n'));
      const toast = await waitForNotification(page, 'agent.yaml has a YAML syntax error', { timeoutMs: 30000 });
      const text = (await toast.innerText()).replace(/\s+/g, ' ');
      assert.match(
        text,
        /YAML syntax error at line 5 \("shadowMode: true"\)\. The whole file is ignored, and the defaults are used, until it is fixed\./,
      );
      assert.doesNotMatch(text, /problems?: \(line/, 'never a problem without what it is about');
      await page.mouse.move(700, 450);
      await screenshot('yaml-syntax-error');
    } finally {
      rmSync(file, { force: true });
    }
  },
};
