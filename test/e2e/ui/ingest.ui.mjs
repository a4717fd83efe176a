// UI test: ingesting a markdown file as a user would, from the Explorer's context menu. The
// chunks are titled by their section ("ONBOARDING.md › Setup (2 of 3)"), an opened chunk shows
// its markdown under a readable tab name, and ingesting the same file again says it is
// unchanged and adds nothing. Screenshots: test-artifacts/e2e/ingest--*.png.
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openViewContainer, runCommand, treeRow, waitForNotification } from './workbench.mjs';

const ONBOARDING = `# Onboarding

Welcome to the team. This page is where you start, and it is kept short on purpose.

## Setup

Install Node 20. Run \`npm ci\` in the repository root, then \`npm test\`.

- Clone the repository
- Install the recommended extensions
- Ask for access to the vault

## Releases

We cut a release every second Tuesday. Hotfixes need two approvals.

\`\`\`bash
npm run release -- --dry-run
\`\`\`
`;

/** Right-clicks the file in the Explorer and runs "Ingest File into Memory…". */
async function ingestFromExplorer(page, name) {
  // "Show Explorer" rather than the activity bar: clicking an already open container closes it.
  await runCommand(page, 'View: Show Explorer');
  // The file was written behind the workbench's back: the Explorer's refresh button.
  await page.locator('.explorer-viewlet .pane-header').first().hover();
  await page.locator('.action-label[aria-label^="Refresh Explorer"]').first().click();
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
  await row.waitFor({ state: 'visible', timeout: 20000 });
  await row.click({ button: 'right' });
  const item = page.locator('.context-view .action-item', { hasText: 'Ingest File into Memory' }).first();
  await item.waitFor({ state: 'visible', timeout: 10000 });
  await item.click();
  // Under load the menu can swallow the first click (the item highlights, the menu stays): Enter runs the highlighted item.
  if (await item.isVisible().catch(() => false)) await page.keyboard.press('Enter');
}

export const tests = {
  async 'ingest a markdown file: chunk titles by section, markdown kept, re-ingest says unchanged'({ page, screenshot, workspace }) {
    const file = join(workspace, 'ONBOARDING.md');
    writeFileSync(file, ONBOARDING);
    try {
      await ingestFromExplorer(page, 'ONBOARDING.md');
      await waitForNotification(page, 'ONBOARDING.md ingested as 3 chunks.', { timeoutMs: 60000 });
      await screenshot('ingested-toast');

      await openViewContainer(page, 'Agent Memory');
      const chunk = (title) => treeRow(page, title);
      for (const title of ['ONBOARDING.md › Onboarding (1 of 3)', 'ONBOARDING.md › Setup (2 of 3)', 'ONBOARDING.md › Releases (3 of 3)']) {
        await chunk(title).waitFor({ state: 'visible', timeout: 20000 });
      }
      await screenshot('chunk-titles');

      await chunk('ONBOARDING.md › Setup (2 of 3)').click();
      const tab = page.locator('.tab', { hasText: 'ONBOARDING.md › Setup (2 of 3)' }).first();
      await tab.waitFor({ state: 'visible', timeout: 20000 });
      const lines = page.locator('.editor-instance .view-lines').first();
      await lines.filter({ hasText: 'Clone the repository' }).waitFor({ state: 'visible', timeout: 20000 });
      const text = (await lines.innerText()).replace(/\u00a0/g, ' '); // the editor renders spaces as no-break spaces
      assert.match(text, /^## Setup$/m, 'the heading on its own line');
      assert.match(text, /^- Clone the repository$/m, 'the list kept');
      assert.doesNotMatch(text, /We cut a release/, 'the next section is its own chunk');
      await screenshot('chunk-opened');

      await ingestFromExplorer(page, 'ONBOARDING.md');
      await waitForNotification(page, 'ONBOARDING.md is already ingested and unchanged', { timeoutMs: 60000 });
      await screenshot('reingest-unchanged');
    } finally {
      rmSync(file, { force: true });
    }
  },
};
