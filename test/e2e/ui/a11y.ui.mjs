// Accessibility of what Agent Memory draws itself, checked by axe-core (the engine behind
// Lighthouse and the browsers' accessibility audits) against WCAG 2.1 A and AA: the search and
// graph webviews in the light, high-contrast and dark themes (names of every control, contrast
// of our own colours, landmarks, ARIA use), and the memory tree's accessible labels. VS Code's
// own workbench is not ours to audit. Screenshots: test-artifacts/e2e/a11y--*.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cli, deleteAllMemories, findFrame, openViewContainer, runCommand } from './workbench.mjs';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

const NOTES = [
  ['Numbat builds are signed with the release key from the vault.', 'Numbat release signing'],
  ['The numbat service retries a failed canary three times before paging the on-call.', 'Numbat canary retries'],
  ['Numbat logs go to the central collector; keep them for 30 days.', 'Numbat log retention'],
];

/** The axe violations in `frame` (a webview's inner document), each with a few of its nodes. */
async function axeViolations(frame) {
  await frame.evaluate(AXE_SOURCE);
  return frame.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ')}`),
    }));
  }, WCAG);
}

/** Runs axe in each screenshot theme and asserts no violation; `what` names the surface. */
async function assertAccessible(frame, inTheme, what) {
  for (const theme of ['light', 'hc', 'dark']) {
    const violations = await inTheme(theme, () => axeViolations(frame));
    assert.deepEqual(violations, [], `${what} in the ${theme} theme:\n${JSON.stringify(violations, null, 2)}`);
  }
}

export const tests = {
  async 'search and graph webviews pass axe (WCAG 2.1 A and AA) in light, high contrast and dark; tree rows have full accessible labels'({
    page,
    screenshot,
    inTheme,
    workspace,
  }) {
    await deleteAllMemories(workspace);
    for (const [content, title] of NOTES) await cli(workspace, 'add', content, '--title', title, '--tags', 'numbat');

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const search = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    await search.locator('#query').fill('numbat canary');
    await search.locator('#results .result').first().waitFor({ state: 'visible', timeout: 20000 });
    await assertAccessible(search, inTheme, 'the search panel with results');
    await search.locator('#query').fill('xyzzy frobnicate');
    await search.locator('#status', { hasText: /No relevant memories/ }).waitFor({ timeout: 20000 });
    await assertAccessible(search, inTheme, 'the search panel with no result');
    await screenshot('search-audited');

    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Agent Memory: Open Memory Graph');
    const graph = await findFrame(page, async (f) => (await f.locator('#canvas').count()) > 0, { timeoutMs: 30000 });
    await graph.waitForFunction(() => (window.agentMemoryGraph?.cy.nodes().length ?? 0) >= 3, null, { timeout: 30000 });
    // The knowledge graph is off here: the banner that says so, with its settings link, is audited too.
    await graph.locator('#notice .link-button').waitFor({ state: 'visible', timeout: 15000 });
    await assertAccessible(graph, inTheme, 'the memory graph');
    await screenshot('graph-audited');

    // The tree cuts long titles on screen; a screen reader hears the whole title and the description.
    await runCommand(page, 'View: Close All Editors');
    await openViewContainer(page, 'Agent Memory');
    const row = page.locator('.monaco-list-row[aria-label*="Numbat canary retries"]').first();
    await row.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await row.getAttribute('aria-label'), /^Numbat canary retries, (just now|\d+ min ago) · #numbat$/);
  },
};
