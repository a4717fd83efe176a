// The search panel as a person uses it: memories imported from a JSONL file (one bad line is
// reported, the good ones kept), then searched with the filters (type, scope, tags, dates) and
// driven from the keyboard (↓/↑ between results, Delete asks to delete, / focuses the query,
// Esc clears, Enter opens). Then relevance as people read it: a nonsense query shows "No relevant
// memories", a real one highlights the matched word and clamps a long memory behind "Show more",
// actions sit in the context menu, and the panel survives a window reload with its query.
// Screenshots: test-artifacts/e2e/search--*.png.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  deleteAllMemories,
  findFrame,
  openViewContainer,
  runCommand,
  scrollToRow,
  waitForNotification,
  waitForWorkbench,
} from './workbench.mjs';

const HEADER = { format: 'agent-memory-jsonl', version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'e2e', count: 3 };
const MEMORIES = [
  {
    title: 'Wallaby keyboard decision',
    type: 'decision',
    tags: ['ui-nav'],
    importance: 0.7,
    createdAt: '2024-02-01T10:00:00.000Z',
    content: 'Wallaby panel: keyboard navigation uses the arrow keys, Enter opens and Delete asks first.',
  },
  {
    title: 'Wallaby flaky spec fix',
    type: 'fix',
    tags: ['ui-nav', 'flaky'],
    importance: 0.5,
    createdAt: '2025-06-01T10:00:00.000Z',
    content: 'Wallaby fix: the flaky wallaby spec waited on a timer; it now waits for the answer instead.',
  },
  {
    title: 'Wallaby region fact',
    type: 'fact',
    scope: 'global',
    tags: ['ui-nav'],
    importance: 0.4,
    createdAt: '2026-01-15T10:00:00.000Z',
    content: 'Wallaby fact: the wallaby service runs in eu-central-1 with two replicas.',
  },
];

function webviewFrame(page, selector) {
  return findFrame(page, async (f) => (await f.locator(selector).count()) > 0, { timeoutMs: 30000 });
}

/** Titles of the results shown, in order. */
const titles = (frame) => frame.locator('#results .result .title').allInnerTexts();

/** Waits until the status line says the answer for the current query and filters arrived (not the recent memories shown before typing). */
async function answered(frame) {
  await frame
    .locator('#status', { hasText: /^\d+ relevant memor(y|ies) \(|^No relevant memories|later than/ })
    .waitFor({ state: 'visible', timeout: 20000 });
}

/** Waits until exactly these results (any order) are shown: the answer to the latest filters. */
async function expectTitles(frame, expected) {
  await answered(frame);
  const want = [...expected].sort();
  await frame
    .waitForFunction(
      (w) =>
        JSON.stringify([...document.querySelectorAll('#results .result .title')].map((e) => e.textContent).sort()) === JSON.stringify(w),
      want,
      { timeout: 20000 },
    )
    .catch(async () => assert.deepEqual((await titles(frame)).sort(), want));
}

/**
 * Groups the Memories view by `mode` ('Tag' or 'Type') with the toggle in its title bar (shown
 * while the header is hovered), clicking again until the toggle offers the other grouping: the
 * title bar is redrawn as the view fills while the window starts, and a click on an action that is
 * replaced under the pointer does nothing.
 */
async function groupBy(header, mode) {
  const other = mode === 'Tag' ? 'Type' : 'Tag';
  for (let attempt = 1; ; attempt++) {
    await header.hover();
    const toggle = header.locator(`a.action-label[aria-label^="Group Memories by ${mode}"]`);
    if (await toggle.isVisible()) await toggle.click();
    const done = await header
      .locator(`a.action-label[aria-label^="Group Memories by ${other}"]`)
      .waitFor({ state: 'attached', timeout: 3000 })
      .then(() => true)
      .catch(() => false);
    if (done) return;
    if (attempt >= 5) throw new Error(`the Memories view does not group by ${mode.toLowerCase()} after ${attempt} clicks`);
  }
}

/**
 * Answers the simple file dialog with `file`. The dialog fills its box with the workspace
 * folder once it has read it, which can overwrite a path typed before: wait for that first,
 * and type again until the box holds the path and the dialog lists the file.
 */
async function choosePath(page, file) {
  const box = page.locator('.quick-input-widget input');
  await box.waitFor({ state: 'visible', timeout: 10000 });
  await page.waitForFunction(() => (document.querySelector('.quick-input-widget input')?.value ?? '').endsWith('/'), undefined, {
    timeout: 10000,
  });
  const name = file.split('/').pop();
  for (let attempt = 0; ; attempt++) {
    await box.fill(file);
    const listed = await page
      .locator('.quick-input-list .monaco-list-row', { hasText: name })
      .first()
      .waitFor({ state: 'visible', timeout: 5000 })
      .then(
        () => true,
        () => false,
      );
    if (listed && (await box.inputValue()) === file) break;
    if (attempt >= 4) throw new Error(`the open dialog did not take the path ${file} (box: ${await box.inputValue()})`);
  }
  // The dialog may still be reading the folder when Enter comes: then it stays open with the
  // path, and Enter again accepts it.
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press('Enter');
    const closed = await box.waitFor({ state: 'hidden', timeout: 10000 }).then(
      () => true,
      () => false,
    );
    if (closed) break;
    if (attempt >= 2 || (await box.inputValue()) !== file) throw new Error(`the open dialog stayed open (box: ${await box.inputValue()})`);
  }
}

const selectedIndex = (frame) =>
  frame.evaluate(() => [...document.querySelectorAll('#results .result')].findIndex((e) => e.getAttribute('aria-current') === 'true'));

export const tests = {
  async 'import JSONL, then filters and keyboard navigation in the search panel'({ page, screenshot, workspace }) {
    const dir = join(workspace, 'e2e-search');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'wallaby.jsonl');
    writeFileSync(
      file,
      [JSON.stringify(HEADER), ...MEMORIES.map((m) => JSON.stringify(m)), '{"content": "a truncated line'].join('\n') + '\n',
    );

    // Import through the palette and the open dialog (code-server's simple dialog: a path box).
    await runCommand(page, 'Agent Memory: Import Memories (JSONL or JSON)…');
    await choosePath(page, file);
    const toast = await waitForNotification(page, 'Imported 3 of 4 memories', { timeoutMs: 30000 });
    assert.match(await toast.innerText(), /1 invalid/);
    await screenshot('import-toast');

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const frame = await webviewFrame(page, '#query');
    const query = frame.locator('#query');
    await query.fill('wallaby');
    await answered(frame);
    const shown = await titles(frame);
    assert.deepEqual(
      shown.slice(0, 3).sort(),
      MEMORIES.map((m) => m.title).sort(),
      `the three wallaby memories come first: ${shown.join(' | ')}`,
    );
    // One relevance per result; the per-leg breakdown and the match type on hover.
    const first = frame.locator('#results .result').first();
    assert.match(await first.locator('.relevance').innerText(), /^\d{1,3} %$/);
    const breakdown = await first.locator('.relevance').getAttribute('title');
    assert.match(breakdown, /^Relevance \d{1,3} %\nMatched words: wallaby\n/);
    assert.match(breakdown, /Ranking: final \d\.\d\d · text (\d\.\d\d|—) · vector (\d\.\d\d|—) · graph (\d\.\d\d|—)/);
    assert.match(breakdown, /Found by: (hybrid|keyword|vector)$/);
    // A result's actions are icons that appear on hover (or selection), not buttons on every card.
    const second = frame.locator('#results .result').nth(1);
    const actionsOpacity = () => second.locator('.actions').evaluate((el) => getComputedStyle(el).opacity);
    await page.mouse.move(5, 5);
    assert.equal(await actionsOpacity(), '0', 'no actions on a card not hovered');
    await second.hover();
    assert.equal(await actionsOpacity(), '1', 'the actions on hover');
    // An imported memory is permanent: "Make permanent" is offered on short-term ones only (memory.ui.mjs).
    assert.deepEqual(await second.locator('.actions button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label'))), [
      'Open',
      'Copy text',
      'Edit…',
      'Delete…',
    ]);
    await page.mouse.move(5, 5);
    await screenshot('results');

    // Keyboard: ↓ from the query selects the first result, ↓ the second, ↑ back to the first.
    await query.focus();
    await page.keyboard.press('ArrowDown');
    assert.equal(await selectedIndex(frame), 0);
    await page.keyboard.press('ArrowDown');
    assert.equal(await selectedIndex(frame), 1);
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('aria-current')), 'true', 'focus follows the selection');
    await page.keyboard.press('ArrowUp');
    assert.equal(await selectedIndex(frame), 0);
    await screenshot('keyboard-selection');

    // Delete asks first (a modal in the workbench); cancelling keeps the memory.
    const selectedTitle = (await titles(frame))[0];
    await page.keyboard.press('Delete');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 10000 });
    assert.match(await dialog.innerText(), /Delete the memory/);
    await screenshot('delete-confirm');
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden', timeout: 10000 });
    assert.equal((await titles(frame))[0], selectedTitle, 'nothing was deleted');

    // Filters: type (multi), scope, tags, created-at range; the empty and error states.
    await frame.locator('#typesBox summary').click();
    await frame.locator('#types input[value="fix"]').check();
    await frame.locator('#types input[value="decision"]').check();
    await expectTitles(frame, ['Wallaby keyboard decision', 'Wallaby flaky spec fix']);
    assert.equal(await frame.locator('#typesSummary').innerText(), 'fix, decision');
    await screenshot('filter-types');
    await frame.locator('#types input[value="decision"]').uncheck();
    await expectTitles(frame, ['Wallaby flaky spec fix']);
    await frame.locator('#typesBox summary').click();
    await frame.locator('#clearFilters').click();

    await frame.locator('#scope').selectOption('global');
    await expectTitles(frame, ['Wallaby region fact']);
    await frame.locator('#scope').selectOption('');
    await frame.locator('#tags').fill('flaky');
    await expectTitles(frame, ['Wallaby flaky spec fix']);
    await frame.locator('#tags').fill('');
    await frame.locator('#before').fill('2024-12-31');
    await expectTitles(frame, ['Wallaby keyboard decision']);
    await frame.locator('#after').fill('2024-06-01');
    await frame.locator('#before').fill('2025-12-31');
    await expectTitles(frame, ['Wallaby flaky spec fix']);
    await screenshot('filter-dates');
    await frame.locator('#after').fill('2026-01-01');
    await frame.locator('#status.error', { hasText: 'later than' }).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await frame.locator('#results .result').count(), 0);
    await screenshot('filter-error');
    await frame.locator('#before').fill('');
    await frame.locator('#after').fill('');
    await frame.locator('#tags').fill('no-such-tag');
    await frame
      .locator('#status.empty', { hasText: 'No relevant memories for “wallaby”. Clear the filters to search everything.' })
      .waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('filter-empty');
    await frame.locator('#clearFilters').click();
    await answered(frame);
    assert.equal(await frame.locator('#tags').inputValue(), '');

    // "/" focuses the query from a result; Esc clears it.
    await frame.locator('#results .result').first().click();
    await page.keyboard.press('/');
    assert.equal(await frame.evaluate(() => document.activeElement?.id), 'query');
    await page.keyboard.press('Escape');
    assert.equal(await query.inputValue(), '');
    // An empty query shows the recent memories, newest first.
    await frame.locator('#status', { hasText: 'Recent memories — type to search' }).waitFor({ state: 'visible', timeout: 10000 });
    assert.ok((await frame.locator('#results .result').count()) >= 3);
    assert.equal(await frame.locator('#results .result .relevance').count(), 0, 'no relevance without a query');

    // Enter on a selected result opens the memory.
    await query.fill('wallaby region');
    await answered(frame);
    await query.focus();
    await page.keyboard.press('ArrowDown');
    const openTitle = (await titles(frame))[0];
    await page.keyboard.press('Enter');
    // The memory's own tab becomes the active one (other memory tabs may be open from earlier tests).
    const opened = page.locator('.tab.active', { hasText: openTitle.split(' ')[0] }).first();
    await opened.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await opened.innerText(), /\.md/);
    await screenshot('enter-opens');
  },

  async 'the memory tree grouped by tag, with age, importance and scope'({ page, screenshot }) {
    await openViewContainer(page, 'Agent Memory');
    // The toggle in the Memories view's title bar (its actions show while the header is hovered).
    const header = page.locator('.pane-header', { hasText: 'Memories' }).first();
    await groupBy(header, 'Tag');
    try {
      // A group row (top level): under the type grouping a memory row also shows "#ui-nav" among its tags.
      const group = page.locator('.monaco-list-row[aria-level="1"]', { hasText: '#ui-nav' }).first();
      await scrollToRow(page, header, group);
      const row = page.locator('.monaco-list-row', { hasText: 'Wallaby flaky spec fix' }).first();
      await scrollToRow(page, header, row);
      // The age shows beside the title at the default sidebar width (normal importance, project scope: not repeated).
      const description = row.locator('.label-description').first();
      assert.match(await description.innerText(), /^\d+ (d|mo|y) ago · fix$/);
      const [rowBox, descBox] = [await row.boundingBox(), await description.boundingBox()];
      assert.ok(descBox && descBox.width > 0 && descBox.x + descBox.width <= rowBox.x + rowBox.width, 'the description is not cut off');
      await screenshot('tree-by-tag');
      await row.click({ button: 'right' });
      const menu = page.locator('.context-view .monaco-menu');
      await menu.waitFor({ state: 'visible', timeout: 10000 });
      const entries = await menu.locator('.action-label').allInnerTexts();
      for (const e of ['Copy Memory Content', 'Open in Search Panel', 'Edit Memory', 'Delete Memory'])
        assert.ok(entries.includes(e), `${e} in ${entries.join(', ')}`);
      await screenshot('tree-context-menu');
    } finally {
      // The context menu closed; the grouping is kept in the workspace's state, and the later
      // tests look for rows under the type grouping: a failure above must not leave it to them.
      await page.keyboard.press('Escape');
      await groupBy(header, 'Type').catch((e) => console.log(`      cleanup: the type grouping not restored: ${e.message}`));
    }
    // Type groups are headed by a word ("Fix"), not the type id.
    await scrollToRow(page, header, page.locator('.monaco-list-row', { hasText: /^Fix/ }).first());
  },

  async 'search relevance: nonsense finds nothing, a match is highlighted and clamped, actions in the context menu, restored after a reload'({
    page,
    screenshot,
    workspace,
  }) {
    // Its own memories only: the UI tests share one store, and the HTML-markup probe of memory.ui.mjs
    // sits just above USE-lite's cosine floor for "xyzzy frobnicate" (relevance 1 %, bench/RESULTS-relevance.md).
    await deleteAllMemories(workspace);
    // A 20,000-character memory, imported (typing it would take minutes).
    const para = 'Zebrafish release checklist: tag the build, publish the notes, then tell the channel. ';
    const long = para.repeat(Math.ceil(20000 / para.length)).slice(0, 20000);
    const dir = join(workspace, 'e2e-search');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'zebrafish.jsonl');
    const memory = { type: 'workflow', tags: ['release'], createdAt: '2026-02-01T10:00:00.000Z', content: long };
    writeFileSync(file, [JSON.stringify({ ...HEADER, count: 1 }), JSON.stringify(memory)].join('\n') + '\n');
    await runCommand(page, 'Agent Memory: Import Memories (JSONL or JSON)…');
    await choosePath(page, file);
    await waitForNotification(page, 'Imported 1 of 1 memory', { timeoutMs: 30000 });

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const frame = await webviewFrame(page, '#query');
    const query = frame.locator('#query');

    // Nonsense: nothing clears the relevance floor, and the panel says so.
    await query.fill('xyzzy frobnicate');
    await frame
      .locator('#status.empty', { hasText: 'No relevant memories for “xyzzy frobnicate”.' })
      .waitFor({ state: 'visible', timeout: 20000 });
    assert.equal(await frame.locator('#results .result').count(), 0);
    await screenshot('nonsense-no-relevant');

    // A real word: the long memory first, its text in the proportional font, the word marked,
    // a few lines shown with "Show more".
    await query.fill('zebrafish');
    await answered(frame);
    const hit = frame.locator('#results .result').first();
    const content = hit.locator('.content');
    assert.match((await content.innerText()).slice(0, 40), /^Zebrafish release checklist/);
    // Untitled: no title repeating the text, and no empty title row; the text heads the result, beside its badges.
    assert.equal(await hit.locator('.title').count(), 0, 'no title repeating the text');
    assert.equal(await hit.locator('.result-head .content').count(), 1, 'the text heads the result');
    const [head, badge] = [await content.boundingBox(), await hit.locator('.badge').boundingBox()];
    assert.ok(Math.abs(head.y - badge.y) < 8, `the first line is beside the type badge (${head.y} vs ${badge.y})`);
    assert.equal(await content.locator('mark').first().innerText(), 'Zebrafish');
    assert.ok((await content.locator('mark').count()) > 10, 'every occurrence is marked');
    const font = await content.evaluate((el) => getComputedStyle(el).fontFamily);
    const editorFont = await content.evaluate(() => getComputedStyle(document.body).getPropertyValue('--vscode-font-family'));
    assert.ok(!/monospace/i.test(font) && font.length > 0, `proportional font: ${font} (workbench: ${editorFont})`);
    const clamped = (await content.boundingBox()).height;
    assert.ok(clamped < 120, `clamped to a few lines: ${clamped}px`);
    const more = hit.locator('button.more');
    assert.equal(await more.innerText(), 'Show more');
    assert.equal(await more.getAttribute('aria-expanded'), 'false');
    assert.match(await hit.locator('.relevance').innerText(), /^\d{1,3} %$/);
    await hit.hover();
    await screenshot('highlight-clamped');
    await more.click();
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
    assert.ok((await content.boundingBox()).height > clamped * 5, 'Show more shows the whole text');
    await screenshot('show-more');
    await more.click();

    // The result's actions in its context menu.
    await hit.locator('.content').click({ button: 'right' });
    const menu = page.locator('.context-view .monaco-menu');
    await menu.waitFor({ state: 'visible', timeout: 10000 });
    const entries = await menu.locator('.action-label').allInnerTexts();
    for (const e of ['Open', 'Copy Text', 'Edit…', 'Delete…']) assert.ok(entries.includes(e), `${e} in ${entries.join(', ')}`);
    assert.ok(!entries.includes('Make Permanent'), `a permanent memory is not offered Make Permanent: ${entries.join(', ')}`);
    await screenshot('context-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden', timeout: 10000 });
    // From the keyboard: Shift+F10 on the selected result opens the same menu. In one full run the
    // key opened a menu without the result's actions: the focus had not reached the result yet
    // (the webview was still handling the click). The key is pressed again, at most twice more,
    // only after a menu that is not the result's; what that menu held is kept for the message.
    const keyboardMenus = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      await hit.click();
      await hit.focus(); // the key goes to the focused result
      await frame.waitForFunction(() => document.activeElement?.classList.contains('result'), undefined, { timeout: 5000 });
      await page.keyboard.press('Shift+F10');
      await menu.waitFor({ state: 'visible', timeout: 10000 });
      await menu.locator('.action-label').first().waitFor({ state: 'visible', timeout: 5000 });
      keyboardMenus.push(await menu.locator('.action-label').allInnerTexts());
      await page.keyboard.press('Escape');
      await menu.waitFor({ state: 'hidden', timeout: 10000 });
      if (keyboardMenus.at(-1).includes('Copy Text')) break;
    }
    assert.ok(keyboardMenus.at(-1).includes('Copy Text'), `Shift+F10 on a result opens its menu: ${JSON.stringify(keyboardMenus)}`);

    // A window reload brings the panel back with its query and results.
    await runCommand(page, 'Developer: Reload Window');
    await page.waitForTimeout(2000);
    await waitForWorkbench(page);
    const again = await webviewFrame(page, '#query');
    await again.waitForFunction(() => document.querySelector('#query')?.value === 'zebrafish', undefined, { timeout: 30000 });
    await answered(again);
    assert.match(await again.locator('#results .result .content').first().innerText(), /^Zebrafish release checklist/);
    await screenshot('restored-after-reload');
  },
};
