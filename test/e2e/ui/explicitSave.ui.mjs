// UI test: Add Memory of a text very like a memory already saved keeps it as its own memory; the
// notification names the similar memory in words and offers "Review Merge…", which opens the
// merge preview of their suggestion. Screenshots: test-artifacts/e2e/explicitSave--*.png.
import assert from 'node:assert/strict';
import { addMemoryFromPalette, waitForNotification } from './workbench.mjs';

// The same two sentences as test/fixtures/closeDuplicates.ts (99 % alike for the built-in model).
const FIRST = 'The nightly backup job runs at 02:00 UTC and keeps the daily snapshots in the backups bucket.';
const SECOND = 'The nightly backup job runs at 02:00 UTC and keeps 14 daily snapshots in the backups bucket.';

export const tests = {
  async 'a save very like a saved memory is kept, and its notification names the similar memory'({ page, screenshot }) {
    await addMemoryFromPalette(page, FIRST);
    await page.keyboard.press('Escape');
    await addMemoryFromPalette(page, SECOND);
    const toast = await waitForNotification(page, 'similar to “The nightly backup job');
    const said = (await toast.locator('.notification-list-item-message').innerText()).replace(/\s+/g, ' ');
    assert.match(
      said,
      /^Memory saved: The nightly backup job runs at 02:00 UTC and keeps 14 daily[^;]*; similar to “The nightly backup job/,
    );
    assert.match(said, /\(\d\d%\)\. It is kept as its own memory, with a merge suggestion to review\.$/);
    await screenshot('similar-kept');
    await toast.locator('.monaco-button', { hasText: 'Review Merge…' }).first().click();
    const confirm = await waitForNotification(page, 'Merge these two memories');
    await page
      .locator('.editor-instance .view-lines', { hasText: '14 daily snapshots' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('merge-preview');
    await confirm.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
  },
};
