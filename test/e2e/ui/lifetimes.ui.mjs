// UI tests of lifetimes (docs/lifecycle.md) as a user meets them: a memory added from the palette
// is permanent and survives the expiry sweep; an agent's automatic capture (the `agent-memory`
// CLI, a client of this window's engine) expires into "Recently Deleted and Expired", and
// Restore brings it back into the tree; ten searches in the search panel count as no access.
// The sweep runs every 10 s here (agent.yaml memory.cleanup_interval, removed afterwards).
// Screenshots: test-artifacts/e2e/lifetimes--*.png.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addMemoryFromPalette, cli, findFrame, openViewContainer, runCommand, treeRow, waitForNotification } from './workbench.mjs';

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

/** The sidebar view (pane) titled `title`. */
const pane = (page, title) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();
/** The row of view `title` whose text contains `text`. */
const row = (page, title, text) => treeRow(pane(page, title), text);

/** Expands the collapsed "Recently Deleted and Expired" view of the Agent Memory sidebar. */
async function openRemovedView(page) {
  await openViewContainer(page, 'Agent Memory');
  const header = page.locator('.pane-header', { hasText: 'Recently Deleted and Expired' }).first();
  await header.waitFor({ state: 'visible', timeout: 20000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return header;
}

export const tests = {
  async 'a memory added from the palette is permanent and survives the expiry sweep'({ page, screenshot, workspace }) {
    await withFastSweep(page, workspace, async () => {
      const mine = 'Lifetimes test: the on-call rotation changes every Monday at 10:00.';
      await addMemoryFromPalette(page, mine);
      // A short-lived capture beside it shows that a sweep really ran.
      const probe = await cli(workspace, 'add', 'Lifetimes test probe: the agent saw a flaky lint step today.', '--capture', '--ttl', '2s');
      assert.equal(probe.status, 'created');
      await page.keyboard.press('Escape');
      await openRemovedView(page);
      await row(page, 'Recently Deleted', 'flaky lint step').waitFor({ state: 'visible', timeout: 40000 }); // expired by a sweep
      const kept = row(page, 'Memories', 'on-call rotation changes every Monday');
      await kept.waitFor({ state: 'visible', timeout: 20000 });
      const text = await kept.innerText();
      assert.doesNotMatch(text, /expire/, `a person's memory shows no expiry: ${text}`);
      await row(page, 'Memories', 'flaky lint step').waitFor({ state: 'detached', timeout: 10000 }); // it left the Memories view
      await kept.hover();
      await screenshot('palette-memory-survives-sweep');
    });
  },

  async "an agent's short-term capture expires into Recently Deleted and Expired; Restore brings it back"({ page, screenshot, workspace }) {
    await withFastSweep(page, workspace, async () => {
      const r = await cli(
        workspace,
        'add',
        'Lifetimes test capture: the integration suite needs Docker 24 or newer.',
        '--capture',
        '--ttl',
        '3s',
      );
      assert.equal(r.memory.ttlSeconds, 3);
      await openRemovedView(page);
      const removed = row(page, 'Recently Deleted', 'integration suite needs Docker 24');
      await removed.waitFor({ state: 'visible', timeout: 40000 });
      assert.match(await removed.innerText(), /expired (just now|\d+ (second|minute)s? ago)/);
      await removed.hover();
      await screenshot('expired-in-removed-view');

      // The inline Restore action (an icon on the row).
      await removed.locator('.action-label[aria-label^="Restore Memory"]').click();
      await waitForNotification(page, 'Memory restored');
      await removed.waitFor({ state: 'detached', timeout: 20000 });
      const back = row(page, 'Memories', 'integration suite needs Docker 24');
      await back.waitFor({ state: 'visible', timeout: 20000 });
      assert.match(
        await back.innerText(),
        /expires (tomorrow|in 1 day|in 2[34] hours)/,
        'restored with a fresh lifetime, shown in the tree',
      );
      await screenshot('restored-into-tree');
      await page.waitForTimeout(11000); // another sweep: it stays
      assert.equal((await cli(workspace, 'get', r.memory.id)).deletedAt, null);
    });
  },

  async 'ten searches in the search panel promote nothing and count no access'({ page, screenshot, workspace }) {
    const r = await cli(workspace, 'add', 'Lifetimes test: the wombat service caches tokens for fifteen minutes.', '--capture');
    const before = await cli(workspace, 'get', r.memory.id);
    assert.equal(before.accessCount, 0);
    await runCommand(page, 'Agent Memory: Open Search Panel');
    const frame = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    for (const q of [
      'wombat',
      'wombat service',
      'wombat tokens',
      'tokens',
      'wombat cache',
      'caches tokens',
      'fifteen minutes',
      'wombat',
      'service tokens',
      'wombat fifteen',
    ]) {
      await frame.locator('#query').fill(q);
      await frame.locator('.result', { hasText: 'wombat service caches tokens' }).first().waitFor({ state: 'visible', timeout: 20000 });
    }
    // The last query's own answer (its words highlighted), not the previous one still on screen.
    await frame.locator('.result mark', { hasText: 'fifteen' }).first().waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('ten-searches');
    await page.waitForTimeout(1500); // longer than the engine's access flush
    const after = await cli(workspace, 'get', r.memory.id);
    assert.equal(after.accessCount, 0, 'typing in the search panel is not an access');
    assert.equal(after.expiresAt, before.expiresAt, 'no lifetime extended, nothing promoted');
    assert.equal(after.ttlSeconds, 86400);
  },
};
