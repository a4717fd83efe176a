// UI test: a text the low-value rule skips gets "Save anyway", and a saved memory's notification
// has "Open" (no raw ids in messages). Screenshots: test-artifacts/e2e/saveAnyway--*.png.
import { clickQuickInputButton, runCommand, waitForNotification } from './workbench.mjs';

/** Clicks a button of the notification toast that contains `text`. */
async function clickToastButton(page, text, button) {
  const toast = await waitForNotification(page, text);
  await toast.locator('.monaco-button', { hasText: button }).first().click();
}

export const tests = {
  async 'a skipped low-value text offers Save anyway; the saved memory opens from its notification'({ page, screenshot }) {
    await runCommand(page, 'Agent Memory: Add Memory…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('thanks so much, ok cool 👍');
    await page.keyboard.press('Enter');
    await clickQuickInputButton(page, 'Save now');
    await waitForNotification(page, 'Not saved: The text is filler');
    await screenshot('skipped-save-anyway');
    await clickToastButton(page, 'Not saved: The text is filler', 'Save anyway');
    await waitForNotification(page, 'Memory saved: thanks so much, ok cool 👍');
    await screenshot('saved-open');
    await clickToastButton(page, 'Memory saved: thanks so much, ok cool', 'Open');
    await page
      .locator('.editor-instance .view-lines', { hasText: 'thanks so much, ok cool' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('opened');
  },
};
