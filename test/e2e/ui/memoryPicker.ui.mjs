// UI test of the one "which memory?" picker (src/extension/memories/memoryPicker.ts) as a person
// meets it from a command given no memory: Show Memory History… asks for search text first,
// lists the matching memories with their kind, and the one picked opens its history. The same
// picker serves Open, Edit, Delete and Make Permanent. Screenshot: test-artifacts/e2e/memoryPicker--*.png.
import assert from 'node:assert/strict';
import { cli, runCommand } from './workbench.mjs';

const quickInput = (page) => page.locator('.quick-input-widget input');
const quickRows = (page) => page.locator('.quick-input-list .monaco-list-row');

export const tests = {
  async 'Show Memory History… picks the memory by search text, with its kind, then opens its history'({ page, screenshot, workspace }) {
    const text = 'The picker test staging database is reset every Sunday night, so seed data lives in fixtures.';
    await cli(workspace, 'add', text, '--type', 'decision', '--title', 'Staging database reset on Sundays');

    await runCommand(page, 'Agent Memory: Show Memory History…');
    await quickInput(page).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await quickInput(page).getAttribute('placeholder'), 'Search text (empty: most recent)');
    await quickInput(page).fill('staging database Sunday');
    await page.keyboard.press('Enter');

    const row = quickRows(page).filter({ hasText: 'Staging database reset on Sundays' }).first();
    await row.waitFor({ state: 'visible', timeout: 20000 });
    const shown = await row.innerText();
    assert.match(shown, /Decision/, `the kind in words: ${shown}`);
    assert.match(shown, /staging database is reset every Sunday/, `the text under the title: ${shown}`);
    assert.equal(await quickInput(page).getAttribute('placeholder'), 'Show the history of which memory?');
    await screenshot('search-result');

    // Typing filters the rows to this one, focused: Enter picks it (a click can land on the row's hover).
    await quickInput(page).fill('Staging database reset on Sundays');
    await quickRows(page).first().filter({ hasText: 'Staging database reset on Sundays' }).waitFor({ state: 'visible', timeout: 5000 });
    await page.keyboard.press('Enter');
    await page
      .locator('.quick-input-widget', { hasText: 'History of "Staging database reset on Sundays"' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    await page.keyboard.press('Escape');
  },
};
