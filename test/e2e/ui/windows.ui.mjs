// UI test: two VS Code windows on the same folder (two workbench pages of one code-server, each
// with its own extension host, one AGENT_MEMORY_HOME). The first window's engine owns the
// project store, the second is its client (ARCHITECTURE.md "One owner, many clients"): each
// window saves a memory, and each window's Memories tree shows both, live.
// Screenshots: test-artifacts/e2e/windows--*.png.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import {
  clearHovers,
  clickQuickInputButton,
  openViewContainer,
  runCommand,
  scrollToRow,
  treeRow,
  waitForNotification,
  waitForWorkbench,
} from './workbench.mjs';

const FIRST = 'First window note: the payments queue is drained by worker pool alpha every minute.';
const SECOND = 'Second window note: staging certificates rotate on the first Tuesday of each month.';

/**
 * "Agent Memory: Add Memory…" as addMemoryFromPalette (workbench.mjs) does it, with the mouse
 * moved off the quick input first: in a second window the title's hover can cover "Save now".
 */
async function addMemory(page, text) {
  await runCommand(page, 'Agent Memory: Add Memory…');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
  await page.mouse.move(700, 700);
  await page
    .locator('.monaco-hover, .context-view .hover-contents')
    .first()
    .waitFor({ state: 'hidden', timeout: 5000 })
    .catch(() => {});
  await clickQuickInputButton(page, 'Save now');
  return waitForNotification(page, 'Memory saved');
}

/** Waits until the window's Memories tree shows a row with `text`. */
async function treeShows(page, text) {
  const header = page.locator('.pane-header', { hasText: 'Memories' }).first();
  // A second click on the activity-bar entry would close the sidebar again.
  if (!(await header.isVisible())) await openViewContainer(page, 'Agent Memory');
  await header.waitFor({ state: 'visible', timeout: 20000 });
  return scrollToRow(page, header, treeRow(page, text));
}

export const tests = {
  async "two windows on one folder: each saves a memory and each tree shows the other's"({ page, screenshot, url }) {
    const second = await page.context().newPage();
    try {
      await second.goto(url);
      await waitForWorkbench(second);

      await addMemory(page, FIRST);
      await page.keyboard.press('Escape');
      await addMemory(second, SECOND);
      await second.keyboard.press('Escape');

      // Each window sees its own memory and the other window's, without a reload.
      for (const p of [page, second]) {
        await treeShows(p, 'First window note');
        await treeShows(p, 'Second window note');
      }
      assert.match(await (await treeShows(page, 'Second window note')).innerText(), /Second window note/);
      // The themes are taken in the second window: the newest window applies theme requests, and
      // another window of code-server may follow the shared settings only later.
      await second.bringToFront();
      await clearHovers(second).catch(() => {}); // a hover (the activity bar's, a row's) would cover the tree
      const shots = await screenshot('second-window-tree', undefined, second); // one file per theme
      const file = Array.isArray(shots) ? shots[0] : shots;
      await page.bringToFront();
      await clearHovers(page).catch(() => {});
      await page.screenshot({ path: join(dirname(file), 'windows--first-window-tree.png') });
    } finally {
      await second.close().catch(() => {});
    }
  },
};
