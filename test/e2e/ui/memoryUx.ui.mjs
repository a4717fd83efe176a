// UI tests of saving and editing memories as a person meets them (issue 19): Add Memory names
// types in words and Save now stores the first sentence as the title; Add Selection offers no
// Back on its first step; a wrong value in a memory document is underlined, listed in Problems,
// and Ctrl+S says why in words; "Make permanent" only on short-term memories; the delete dialog
// says where a deleted memory can be restored; an expiry is told, and a restored expired memory
// says for how long it is kept; Recently Deleted and Expired opens with room for its rows.
// Screenshots: test-artifacts/e2e/memoryUx--*.png.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  clickQuickInputButton,
  cli,
  findFrame,
  openViewContainer,
  retypeLine,
  runCommand,
  treeRow,
  waitForNotification,
} from './workbench.mjs';

const quickInput = (page) => page.locator('.quick-input-widget input');
const quickTitle = (page, text) => page.locator('.quick-input-widget', { hasText: text }).first();
/** A button of the open quick input's title bar, by the start of its tooltip. */
const quickButton = (page, tooltip) =>
  page
    .locator(
      `.quick-input-widget .quick-input-titlebar .action-label[aria-label^="${tooltip}"], ` +
        `.quick-input-widget .quick-input-header .action-label[aria-label^="${tooltip}"]`,
    )
    .first();
/** The sidebar view (pane) titled `title`. */
const pane = (page, title) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();

/** The newest live memory whose text starts with `start` (the CLI lists newest first). */
async function stored(workspace, start) {
  const { items } = await cli(workspace, 'list', '--limit', '20');
  const m = items.find((x) => x.preview.startsWith(start));
  assert.ok(m, `a stored memory starting "${start}": ${items.map((x) => x.preview).join(' | ')}`);
  return cli(workspace, 'get', m.id);
}

/** Opens the memory whose tree row shows `text` as its document (a click on the row), retried while the tree refreshes. */
async function openFromTree(page, text) {
  await openViewContainer(page, 'Agent Memory');
  for (let attempt = 1; ; attempt++) {
    await treeRow(page, text).waitFor({ state: 'visible', timeout: 20000 });
    await treeRow(page, text).click();
    try {
      await page.locator('.editor-instance .view-line', { hasText: 'lifetime:' }).first().waitFor({ state: 'visible', timeout: 5000 });
      return;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/** Sweeps every 10 s while `fn` runs (agent.yaml, removed afterwards). */
async function withFastSweep(page, workspace, fn) {
  const agentYaml = join(workspace, 'agent.yaml');
  writeFileSync(agentYaml, 'memory:\n  cleanup_interval: 10s\n');
  try {
    await page.waitForTimeout(3000); // the extension reloads its configuration when agent.yaml appears
    await fn();
  } finally {
    rmSync(agentYaml, { force: true });
  }
}

export const tests = {
  async 'Add Memory names types in words; Save now stores the first sentence as the title'({ page, screenshot, workspace }) {
    await runCommand(page, 'Agent Memory: Add Memory…');
    await quickInput(page).waitFor({ state: 'visible', timeout: 10000 });
    await quickInput(page).fill('Deploy freeze starts Friday at noon. No merges after that without the release captain.');
    await page.keyboard.press('Enter');
    await quickTitle(page, 'Add Memory: type').waitFor({ state: 'visible', timeout: 10000 });
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    const labels = rows.map((r) => r.split('\n')[0].trim());
    for (const words of ['General', 'Code pattern', 'Decision']) assert.ok(labels.includes(words), `${words} in ${labels.join(', ')}`);
    assert.ok(!rows.some((r) => /_/.test(r)), `no type id with an underscore: ${rows.join(' | ')}`);
    assert.match(rows.find((r) => r.startsWith('Code pattern')) ?? '', /How code is written here/);
    // The list shows nine rows at a time: the last types are found by typing, by their words.
    await quickInput(page).fill('seman');
    assert.match(await page.locator('.quick-input-list .monaco-list-row').first().innerText(), /^Semantic\nWhat something is or means\.$/);
    await quickInput(page).fill('');
    await quickButton(page, 'Back').waitFor({ state: 'visible', timeout: 5000 }); // the second step can go back to the text
    await screenshot('type-step-in-words');

    await clickQuickInputButton(page, 'Save now');
    await waitForNotification(page, 'Memory saved');
    const m = await stored(workspace, 'Deploy freeze starts Friday at noon.');
    assert.equal(m.title, 'Deploy freeze starts Friday at noon.', 'the title the title step proposes');
    assert.equal(m.expiresAt, null, 'permanent');
  },

  async 'Add Selection starts at the type step, with Save now and no Back'({ page, screenshot, workspace }) {
    await runCommand(page, 'Go to File...');
    await quickInput(page).fill('index.ts');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'index.ts' }).first().waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: 'index.ts' }).first().waitFor({ state: 'visible', timeout: 10000 });
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+a');
    // From the palette, without runCommand's Escape (which would drop the selection the command needs).
    await page.keyboard.press('F1');
    await quickInput(page).fill('>Agent Memory: Add Selection as Memory');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'Add Selection as Memory' })
      .first()
      .waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Enter');
    await quickTitle(page, 'Add Memory: type').waitFor({ state: 'visible', timeout: 10000 });
    await quickButton(page, 'Save now').waitFor({ state: 'visible', timeout: 5000 });
    assert.equal(await quickButton(page, 'Back').count(), 0, 'no Back on the first step');
    await screenshot('selection-first-step');
    await page.keyboard.press('Enter'); // code pattern (preselected for code)
    await quickTitle(page, 'Add Memory: tags').waitFor({ state: 'visible', timeout: 10000 });
    await quickButton(page, 'Back').waitFor({ state: 'visible', timeout: 5000 });
    await clickQuickInputButton(page, 'Save now');
    await waitForNotification(page, 'Memory saved');
    const m = await stored(workspace, 'export function greet');
    assert.equal(m.type, 'code_pattern');
    assert.equal(m.title, 'export function greet(name: string): string {', 'the first line');
    await runCommand(page, 'View: Close All Editors');
  },

  async 'a wrong value in a memory document is underlined and listed in Problems; Ctrl+S says why; lifetime 2m saves'({
    page,
    screenshot,
    workspace,
  }) {
    const m = (await cli(workspace, 'add', 'The numbat build cache is wiped every Sunday night.', '--title', 'Numbat cache wipe')).memory;
    await openFromTree(page, 'Numbat cache wipe');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    await retypeLine(page, 6, 'importance: high');
    await editor.locator('.squiggly-error').first().waitFor({ state: 'visible', timeout: 10000 });
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'importance: must be a number from 0 to 1, not "high"' });
    await problem.first().waitFor({ state: 'visible', timeout: 10000 });
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await screenshot('wrong-value-underlined');

    await page.keyboard.press('Control+s');
    const toast = await waitForNotification(page, 'Not saved — importance: must be a number from 0 to 1, not "high"');
    assert.match(await toast.innerText(), /Correct the underlined value, then save again/);
    const toasts = await page.locator('.notifications-toasts .notification-toast').allInnerTexts();
    assert.ok(
      !toasts.some((t) => /FileSystemError|Unable to write file|Failed to save/.test(t)),
      `no raw save error: ${toasts.join(' | ')}`,
    );
    assert.equal((await cli(workspace, 'get', m.id)).version, 1, 'nothing saved');
    await screenshot('ctrl-s-says-why');

    // The same lifetimes as agent.yaml and the CLI: "2m" is one.
    await retypeLine(page, 6, 'importance: 0.5');
    await retypeLine(page, 8, 'lifetime: 2m');
    await editor.locator('.squiggly-error').first().waitFor({ state: 'detached', timeout: 10000 });
    await page.keyboard.press('Control+s');
    await page.locator('.statusbar-item', { hasText: 'Memory saved' }).first().waitFor({ state: 'visible', timeout: 15000 });
    const saved = await cli(workspace, 'get', m.id);
    assert.equal(saved.ttlSeconds, 120);
    await editor.locator('.view-line', { hasText: 'lifetime: 2 minutes' }).first().waitFor({ state: 'visible', timeout: 10000 });
    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'View: Hide Panel');
  },

  async '"Make permanent" only on short-term memories; the delete dialog says where and how long it can be restored'({
    page,
    screenshot,
    workspace,
  }) {
    await cli(workspace, 'add', 'Quokka staging runs the nightly load test at 02:00.', '--title', 'Quokka load test', '--ttl', '7d');
    await cli(workspace, 'add', 'Quokka production deploys need two approvals.', '--title', 'Quokka deploy rule');
    await runCommand(page, 'Agent Memory: Open Search Panel');
    const search = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    await search.locator('#query').fill('quokka');
    const card = (title) => search.locator('#results .result', { hasText: title }).first();
    await card('Quokka load test').waitFor({ state: 'visible', timeout: 20000 });
    await card('Quokka deploy rule').waitFor({ state: 'visible', timeout: 20000 });
    const actions = (title) =>
      card(title)
        .locator('.actions button')
        .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    assert.ok((await actions('Quokka load test')).includes('Make permanent'), 'a short-term memory can be made permanent');
    assert.deepEqual(await actions('Quokka deploy rule'), ['Open', 'Copy text', 'Edit…', 'Delete…'], 'a permanent one is not offered it');
    await card('Quokka deploy rule').locator('.content').click({ button: 'right' });
    const menu = page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible', timeout: 10000 });
    assert.ok(!(await menu.locator('.action-label').allInnerTexts()).includes('Make Permanent'));
    await page.keyboard.press('Escape');
    await card('Quokka load test').hover();
    await screenshot('make-permanent-on-short-term-only');

    await card('Quokka deploy rule').hover();
    await card('Quokka deploy rule').locator('.actions button[aria-label="Delete…"]').click();
    const dialog = page.locator('.monaco-dialog-box').first();
    await dialog.waitFor({ state: 'visible', timeout: 10000 });
    const text = await dialog.innerText();
    assert.match(text, /Delete the memory "Quokka deploy rule"\?/);
    assert.match(text, /It moves to Recently Deleted and Expired \(Agent Memory sidebar\), where it can be restored for 30 days\./);
    assert.doesNotMatch(text, /history/);
    await screenshot('delete-dialog');
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10000 });
  },

  async 'an expiry is told with a notification; Restore says for how long; Keep Permanently keeps it'({ page, screenshot, workspace }) {
    await withFastSweep(page, workspace, async () => {
      const r = await cli(workspace, 'add', 'Wombat canary: the flaky login test was muted for today.', '--capture', '--ttl', '2s');
      const toast = await waitForNotification(page, 'A short-term memory expired: “Wombat canary', { timeoutMs: 40000 });
      assert.match(await toast.innerText(), /Restore it from Recently Deleted and Expired within 30 days if you still need it\./);
      await page.waitForTimeout(500); // the toast slides in
      await screenshot('expiry-notice');
      await toast.locator('.monaco-button', { hasText: 'Restore' }).first().click();
      const restored = await waitForNotification(page, 'Memory restored for 1 day');
      assert.match(
        await restored.innerText(),
        /It was short-term and had expired; it expires again (tomorrow|in 2[34] hours) unless it is used\. Keep it permanently\?/,
      );
      await restored.locator('.monaco-button', { hasText: 'Keep Permanently' }).first().waitFor({ state: 'visible', timeout: 5000 });
      await page.waitForTimeout(500); // the toast slides in
      await screenshot('restored-for-a-day');
      await restored.locator('.monaco-button', { hasText: 'Keep Permanently' }).first().click();
      await waitForNotification(page, 'Memory made permanent');
      assert.equal((await cli(workspace, 'get', r.memory.id)).expiresAt, null, 'permanent now');
    });
  },

  async 'Recently Deleted and Expired opens with room for its rows'({ page, screenshot, workspace }) {
    for (let i = 1; i <= 6; i++) {
      const r = await cli(workspace, 'add', `Removed-view probe ${i}: a note deleted to fill the Recently Deleted view.`);
      await cli(workspace, 'delete', r.memory.id);
    }
    await openViewContainer(page, 'Agent Memory');
    const header = page.locator('.pane-header', { hasText: 'Recently Deleted and Expired' }).first();
    await header.waitFor({ state: 'visible', timeout: 20000 });
    if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
    const removed = pane(page, 'Recently Deleted and Expired');
    await treeRow(removed, 'Removed-view probe 6').waitFor({ state: 'visible', timeout: 20000 });
    await page.waitForTimeout(500); // the split view settles
    const body = await removed.locator('.pane-body').boundingBox();
    // Rows shown whole inside the view's body (not cut off at its bottom edge).
    const rows = await removed
      .locator('.monaco-list-row')
      .evaluateAll(
        (els, bottom) => els.filter((e) => e.getBoundingClientRect().height > 0 && e.getBoundingClientRect().bottom <= bottom + 1).length,
        body.y + body.height,
      );
    const side = await page.locator('.part.sidebar').boundingBox();
    console.log(`    Recently Deleted and Expired: ${rows} rows shown whole, ${Math.round(body.height)} of ${Math.round(side.height)} px`);
    assert.ok(rows >= 6, `the six removed memories are shown whole, not ${rows}`);
    assert.ok(body.height >= side.height / 5, `a fifth of the sidebar at least: ${body.height} of ${side.height}`);
    await screenshot('removed-view-room');
  },
};
