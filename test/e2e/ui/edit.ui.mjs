// UI tests of editable memories and their history (docs/editing.md), as a person does it: open
// a memory from the tree (the tab is named after it), edit the title and the text, Ctrl+S (the
// status bar confirms, the tree shows the new title), the history timeline, compare an old
// version with the current one, restore it; and a save over a change made meanwhile is refused
// (VS Code's "content of the file is newer"), Compare shows both, Accept overwrites on purpose.
// Screenshots: test-artifacts/e2e/edit--*.png.
import assert from 'node:assert/strict';
import { addMemoryFromPalette, goToLine, openViewContainer, retypeLine, runCommand, treeRow, waitForNotification } from './workbench.mjs';

const row = (page, text) => treeRow(page, text);
const tab = (page, text) => page.locator('.tabs-container .tab', { hasText: text }).first();

/**
 * Opens the memory whose tree row shows `text` (a click runs "Open Memory") and waits for its tab.
 * The tree refreshes when a memory changes: a click on a row being replaced is lost, so it is retried.
 */
async function openFromTree(page, text, tabTitle) {
  await openViewContainer(page, 'Agent Memory');
  for (let attempt = 1; ; attempt++) {
    await row(page, text).waitFor({ state: 'visible', timeout: 20000 });
    await row(page, text).click();
    try {
      await tab(page, tabTitle).waitFor({ state: 'visible', timeout: 5000 });
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
  await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
}

/** Types `text` at the end of the memory's text (line 11: after the 9 lines of front matter and a blank line). */
async function appendToText(page, text) {
  await goToLine(page, 11);
  await page.keyboard.press('End');
  await page.keyboard.type(text, { delay: 5 });
  // The document holds the typed text: its tab shows unsaved changes.
  await page.locator('.tabs-container .tab.active.dirty').first().waitFor({ state: 'visible', timeout: 10000 });
}

const saved = (page) => page.locator('.statusbar-item', { hasText: 'Memory saved' }).first();

/** "Show Memory History…" for the active memory document, then a version's row. */
async function openHistory(page) {
  await runCommand(page, 'Agent Memory: Show Memory History…');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Version 1' }).first().waitFor({ state: 'visible', timeout: 15000 });
}

async function pickVersionAction(page, versionLabel, action) {
  await page.locator('.quick-input-list .monaco-list-row', { hasText: versionLabel }).first().click();
  const item = page.locator('.quick-input-list .monaco-list-row', { hasText: action }).first();
  await item.waitFor({ state: 'visible', timeout: 10000 });
  await item.click();
}

export const tests = {
  async 'open a memory as a document named after it, edit it, Ctrl+S: the status bar confirms, the tree shows the change'({
    page,
    screenshot,
  }) {
    const text = 'Use pnpm, not npm, for every package in this repository.';
    await addMemoryFromPalette(page, text);
    await openFromTree(page, 'Use pnpm, not npm, for every package', 'Use pnpm, not npm, for every package in this repository.md');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'lifetime: permanent' }).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(
      await tab(page, 'Use pnpm')
        .getAttribute('aria-label')
        .then((l) => /Use pnpm, not npm, for every package in this repository\.md/.test(l ?? '')),
      true,
    );
    await screenshot('document');

    await retypeLine(page, 3, 'title: Package manager');
    await appendToText(page, ' The lock file is pnpm-lock.yaml.');
    await screenshot('edited');
    await page.keyboard.press('Control+s');
    await saved(page).waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await saved(page).innerText(), /Memory saved: Package manager \(version 2\)/);
    // The tree shows the new title, and so does the tab.
    await row(page, 'Package manager').waitFor({ state: 'visible', timeout: 15000 });
    await tab(page, 'Package manager.md').waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('saved-tree-updated');
  },

  async 'the history timeline: compare an older version with the current one and restore it'({ page, screenshot }) {
    await addMemoryFromPalette(page, 'Deploys go out on Tuesdays after the standup.');
    await openFromTree(page, 'Deploys go out on Tuesdays', 'Deploys go out on Tuesdays after the standup.md');
    await retypeLine(page, 3, 'title: Deploy day');
    await appendToText(page, ' Never on Fridays.');
    await page.keyboard.press('Control+s');
    await saved(page).waitFor({ state: 'visible', timeout: 15000 });
    await tab(page, 'Deploy day.md').waitFor({ state: 'visible', timeout: 15000 });

    await openHistory(page);
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.match(rows[0], /Version 2 · Edited (content and title|title and content)/);
    assert.match(rows[0], /current · by you · (just now|1 minute ago)/);
    assert.match(rows[1], /Version 1 · Created/);
    await screenshot('history-timeline');

    await pickVersionAction(page, 'Version 1 · Created', 'Compare with Current');
    await page.locator('.tabs-container .tab', { hasText: 'Version 1 ↔ Current' }).first().waitFor({ state: 'visible', timeout: 15000 });
    await page.locator('.monaco-diff-editor').first().waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('compare-with-current');

    await runCommand(page, 'View: Close Editor');
    await openHistory(page);
    await pickVersionAction(page, 'Version 1 · Created', 'Restore This Version');
    await waitForNotification(page, 'Restored version 1 of');
    // The tree and the open document show the restored memory (version 1's title: its first sentence, as Save now stored it).
    await row(page, 'Deploys go out on Tuesdays after the standup').waitFor({ state: 'visible', timeout: 15000 });
    await page
      .locator('.editor-instance .view-line', { hasText: '# Version 3 · updated' })
      .first()
      .waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('restored');
  },

  async 'saving over a change made meanwhile is refused; Compare shows both, Accept overwrites on purpose'({ page, screenshot }) {
    const name = 'Releases are cut on Mondays by the release captain.md';
    await addMemoryFromPalette(page, 'Releases are cut on Mondays by the release captain.');
    await openFromTree(page, 'Releases are cut on Mondays', name);
    await appendToText(page, ' Hotfixes ship any day.');
    await page.keyboard.press('Control+s');
    await saved(page).waitFor({ state: 'visible', timeout: 15000 });

    // Unsaved edit here, while the memory changes elsewhere (version 1 restored from the history).
    await appendToText(page, ' Not on Fridays.');
    await openHistory(page);
    await pickVersionAction(page, 'Version 1 · Created', 'Restore This Version');
    await waitForNotification(page, 'Restored version 1 of');

    // Back in the memory's document, still holding the unsaved edit, then save.
    await tab(page, name).click();
    await page.locator('.tabs-container .tab.active.dirty').first().waitFor({ state: 'visible', timeout: 10000 });
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+s');
    // VS Code's own save check, as for a file on disk: named after the memory, no id.
    const error = await waitForNotification(page, 'The content of the file is newer');
    const message = await error.innerText();
    assert.match(message, new RegExp(`Failed to save '${name.replace(/[.]/g, '\\.')}'`));
    assert.doesNotMatch(message, /id=|[0-9a-f]{8}-[0-9a-f]{4}-/, 'no memory id in the message');
    await screenshot('conflict-message');

    await error.locator('.monaco-button', { hasText: 'Compare' }).first().click();
    await page.locator('.tabs-container .tab', { hasText: 'Resolve save conflict' }).first().waitFor({ state: 'visible', timeout: 15000 });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.waitFor({ state: 'visible', timeout: 15000 });
    // Left the stored memory (version 3, the restored text), right the unsaved edit.
    await page
      .locator('.monaco-diff-editor .editor.original .view-line', { hasText: '# Version 3 · updated' })
      .first()
      .waitFor({ state: 'visible', timeout: 15000 });
    await page
      .locator('.monaco-diff-editor .editor.modified .view-line', { hasText: 'Not on Fridays' })
      .first()
      .waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('conflict-compare');

    // Accept ("Use your changes and overwrite file contents") replaces the stored memory on purpose.
    await page.locator('.editor-actions .action-label[aria-label*="overwrite file contents"]').first().click();
    await page
      .locator('.statusbar-item', { hasText: /Memory saved: .*version 4/ })
      .first()
      .waitFor({ state: 'visible', timeout: 15000 });
    await page.waitForFunction(() => !document.querySelector('.tabs-container .tab.dirty'), null, { timeout: 10000 });
    await tab(page, name).click();
    // Monaco draws spaces as no-break spaces.
    const shown = (await page.locator('.editor-instance .monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(shown, /Hotfixes ship any day\. Not on Fridays\./);
    await screenshot('conflict-overwritten');
  },
};
