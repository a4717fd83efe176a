// UI test: the Agent Memory sidebar with its three views (Memories, Suggestions, Pipeline);
// pausing the pipeline from the palette shows in the Pipeline view and the status bar.
// Screenshots: test-artifacts/e2e/sidebar--*.png.
import assert from 'node:assert/strict';
import { addMemoryFromPalette as addMemory, deleteAllMemories, openViewContainer, runCommand, treeRow } from './workbench.mjs';

export const tests = {
  async 'sidebar shows Memories, Suggestions and Pipeline; pause shows in the view and the status bar'({ page, screenshot, workspace }) {
    await deleteAllMemories(workspace); // the UI tests share one store: its one memory must be in view
    await addMemory(page, 'The sidebar test: deploys to production need two approvals in the release channel.');
    await page.keyboard.press('Escape');
    await openViewContainer(page, 'Agent Memory');
    for (const title of ['Memories', 'Suggestions', 'Pipeline']) {
      await page.locator('.pane-header', { hasText: title }).first().waitFor({ state: 'visible', timeout: 20000 });
    }
    const row = (text) => page.locator('.monaco-list-row', { hasText: text }).first();
    await row('Project:').waitFor({ state: 'visible', timeout: 20000 });
    await row('Mode:').waitFor({ state: 'visible', timeout: 20000 });
    await row('Worker:').waitFor({ state: 'visible', timeout: 20000 });
    // The tree cuts a long title on screen; its accessible label has all of it (treeRow matches either).
    await treeRow(page, 'deploys to production need two approvals').waitFor({ state: 'visible', timeout: 20000 });
    // The project id without its host fits the sidebar; the tooltip has the whole id.
    assert.match(await row('Project:').innerText(), /example-org\/sample-project/);
    await screenshot('three-views');

    await runCommand(page, 'Agent Memory: Pause Pipeline');
    await row('Worker: paused').waitFor({ state: 'visible', timeout: 20000 });
    const status = page.locator('.statusbar-item', { hasText: 'Memory' }).first();
    await page.locator('.statusbar-item', { hasText: 'paused' }).first().waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await status.innerText(), /paused/);
    await screenshot('paused');

    await runCommand(page, 'Agent Memory: Resume Pipeline');
    await row('Worker: off').waitFor({ state: 'visible', timeout: 20000 });
  },
};
