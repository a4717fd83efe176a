// Accessibility of what Agent Memory draws itself, checked by axe-core (the engine behind
// Lighthouse and the browsers' accessibility audits) against WCAG 2.1 A and AA: the search and
// graph webviews in the light, both high-contrast (dark and light) and dark themes (names of every control, contrast
// of our own colours, landmarks, ARIA use), and the memory tree's accessible labels; and a Tab
// walk through both webviews: every control reached, each with a role and a name in Chromium's own
// accessibility tree (what a screen reader is given, read over the DevTools protocol). VS Code's
// own workbench is not ours to audit. Screenshots: test-artifacts/e2e/a11y--*.png.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ALL_THEMES, cli, deleteAllMemories, findFrame, openViewContainer, runCommand } from './workbench.mjs';

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
  for (const theme of ['light', 'hc', 'hcl', 'dark']) {
    const violations = await inTheme(theme, () => axeViolations(frame));
    assert.deepEqual(violations, [], `${what} in the ${theme} theme:\n${JSON.stringify(violations, null, 2)}`);
  }
}

/** Resolves once `frame`'s DOM has not changed for `quietMs` (a result list re-rendered by a late event would lose the walk's marks). */
function settled(frame, quietMs = 1500) {
  return frame.evaluate(
    (ms) =>
      new Promise((resolve) => {
        const done = () => {
          observer.disconnect();
          resolve();
        };
        let timer = setTimeout(done, ms);
        const observer = new MutationObserver(() => {
          clearTimeout(timer);
          timer = setTimeout(done, ms);
        });
        observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class', 'hidden'] });
      }),
    quietMs,
  );
}

/**
 * Chromium's accessibility tree for `frame` (the tree screen readers read through the platform's
 * accessibility API) over the DevTools protocol: `focused()` gives the role and name of the
 * element that has the focus. A webview in another process has its own session; one in the page's
 * process is reached from the workbench's document.
 */
async function accessibilityOf(page, frame) {
  let cdp;
  let expression = 'document.activeElement';
  try {
    cdp = await page.context().newCDPSession(frame);
  } catch {
    // Same process: the workbench reaches the webview's document through its two iframes (same origin here).
    cdp = await page.context().newCDPSession(page);
    // The webview's frame is written into an iframe of VS Code's webview host, whose address carries the same id.
    const id = new URL(frame.url()).searchParams.get('id');
    expression = `(() => {
      for (const outer of document.querySelectorAll('iframe.webview')) {
        if (new URL(outer.src).searchParams.get('id') !== ${JSON.stringify(id)}) continue;
        const inner = outer.contentDocument?.querySelector('iframe#active-frame') ?? outer.contentDocument?.querySelector('iframe');
        return inner?.contentDocument?.activeElement ?? null;
      }
      return null;
    })()`;
  }
  await cdp.send('DOM.enable');
  await cdp.send('Accessibility.enable');
  return {
    async focused() {
      const { result } = await cdp.send('Runtime.evaluate', { expression });
      assert.ok(result.objectId, `the focused element of ${frame.url()}`);
      const { node } = await cdp.send('DOM.describeNode', { objectId: result.objectId });
      const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { backendNodeId: node.backendNodeId, fetchRelatives: false });
      const ax = nodes[0];
      return { role: ax?.role?.value ?? '', name: (ax?.name?.value ?? '').trim(), ignored: Boolean(ax?.ignored) };
    },
    detach: () => cdp.detach(),
  };
}

/**
 * Presses Tab from `start` through the webview until focus leaves it. Returns how many visible
 * controls it has (buttons, fields, links, anything focusable), what Chromium's accessibility tree
 * gives a screen reader for each one reached ("button: Open"), and the ones Tab never reached.
 */
async function tabWalk(page, frame, start) {
  await settled(frame);
  const total = await frame.evaluate(() => {
    const sel = 'button, input, select, textarea, a[href], summary, [tabindex]:not([tabindex="-1"]), [role="button"]';
    const shown = (el) => {
      const r = el.getBoundingClientRect();
      // checkVisibility: not inside a closed <details> or a hidden element (opacity 0 counts as shown).
      return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true }) && !el.disabled;
    };
    const els = [...document.querySelectorAll(sel)].filter(shown);
    els.forEach((el, i) => el.setAttribute('data-a11y-probe', String(i)));
    return els.length;
  });
  const ax = await accessibilityOf(page, frame);
  await frame.locator(start).focus();
  const announced = new Map();
  const unmarked = [];
  try {
    for (let i = 0; i < total + 10; i++) {
      const probe = await frame.evaluate(() =>
        document.hasFocus() && document.activeElement !== document.body
          ? (document.activeElement?.getAttribute('data-a11y-probe') ?? `unmarked: ${document.activeElement?.outerHTML.slice(0, 120)}`)
          : null,
      );
      if (probe === null) break; // focus left the webview
      if (probe.startsWith('unmarked')) unmarked.push(probe);
      else if (!announced.has(probe)) {
        const { role, name, ignored } = await ax.focused();
        announced.set(probe, ignored ? `(ignored) ${role}: ${name}` : `${role}: ${name}`);
      }
      await page.keyboard.press('Tab');
    }
  } finally {
    await ax.detach();
  }
  const missed = await frame.evaluate(
    (seen) =>
      [...document.querySelectorAll('[data-a11y-probe]')]
        .filter((el) => !seen.includes(el.getAttribute('data-a11y-probe')))
        .map((el) => el.outerHTML.slice(0, 160)),
    [...announced.keys()],
  );
  return { total, announced: [...announced.values()], missed, unmarked };
}

/** Every control reached by Tab, and each announced with a role and a non-empty name. */
function assertKeyboardReachable(what, { total, announced, missed, unmarked }) {
  assert.deepEqual(unmarked, [], `${what}: Tab reached elements that were drawn after the walk began`);
  assert.deepEqual(missed, [], `${what}: controls Tab never reaches`);
  assert.equal(announced.length, total);
  for (const line of announced) {
    assert.match(
      line,
      /^(?!\(ignored\))(?!(generic|none|presentation):)[A-Za-z]+: \S/,
      `${what}: a control without a role or a name: ${line}`,
    );
  }
}

export const tests = {
  async 'search and graph webviews pass axe (WCAG 2.1 A and AA) in light, dark and both high-contrast themes; tree rows have full accessible labels'({
    page,
    screenshot,
    inTheme,
    workspace,
  }) {
    await deleteAllMemories(workspace);
    // One of them short-term: only a short-term memory offers "Make permanent".
    for (const [i, [content, title]] of NOTES.entries())
      await cli(workspace, 'add', content, '--title', title, '--tags', 'numbat', ...(i === 0 ? ['--ttl', '30d'] : []));

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const search = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    await search.locator('#query').fill('numbat canary');
    await search.locator('#results .result').first().waitFor({ state: 'visible', timeout: 20000 });
    await assertAccessible(search, inTheme, 'the search panel with results');
    await search.locator('#query').fill('xyzzy frobnicate');
    await search.locator('#status', { hasText: /No relevant memories/ }).waitFor({ timeout: 20000 });
    await assertAccessible(search, inTheme, 'the search panel with no result');
    await screenshot('search-audited', ALL_THEMES);

    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Agent Memory: Open Memory Graph');
    const graph = await findFrame(page, async (f) => (await f.locator('#canvas').count()) > 0, { timeoutMs: 30000 });
    await graph.waitForFunction(() => (window.agentMemoryGraph?.cy.nodes().length ?? 0) >= 3, null, { timeout: 30000 });
    // The knowledge graph is off here: the banner that says so, with its settings link, is audited too.
    await graph.locator('#notice .link-button').waitFor({ state: 'visible', timeout: 15000 });
    await assertAccessible(graph, inTheme, 'the memory graph');
    await screenshot('graph-audited', ALL_THEMES);

    // The tree cuts long titles on screen; a screen reader hears the whole title and the description.
    await runCommand(page, 'View: Close All Editors');
    await openViewContainer(page, 'Agent Memory');
    const row = page.locator('.monaco-list-row[aria-label*="Numbat canary retries"]').first();
    await row.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await row.getAttribute('aria-label'), /^Numbat canary retries, (just now|\d+ min ago) · #numbat$/);
  },
  async 'every control of the search panel and the graph is reached with Tab and announced with its name'({ page, workspace }) {
    await deleteAllMemories(workspace);
    // One of them short-term: only a short-term memory offers "Make permanent".
    for (const [i, [content, title]] of NOTES.entries())
      await cli(workspace, 'add', content, '--title', title, '--tags', 'numbat', ...(i === 0 ? ['--ttl', '30d'] : []));

    await runCommand(page, 'Agent Memory: Open Search Panel');
    const search = await findFrame(page, async (f) => (await f.locator('#query').count()) > 0, { timeoutMs: 30000 });
    await search.locator('#query').fill('numbat');
    await search.locator('#results .result').nth(2).waitFor({ state: 'visible', timeout: 20000 });
    // The type filter opens from the keyboard, and its options are reached too.
    await search.locator('#typesSummary').focus();
    await page.keyboard.press('Enter');
    await search.locator('#type-decision').waitFor({ state: 'visible', timeout: 5000 });
    const inSearch = await tabWalk(page, search, '#query');
    console.log(`    search panel: ${inSearch.total} controls, in Tab order: ${inSearch.announced.join(' | ')}`);
    assertKeyboardReachable('the search panel', inSearch);
    // Each result's actions are among them, named ("Make permanent" on the short-term one only).
    for (const action of ['Open', 'Copy text', 'Edit…', 'Delete…']) {
      assert.equal(inSearch.announced.filter((a) => a === `button: ${action}`).length, 3, action);
    }
    assert.equal(inSearch.announced.filter((a) => a === 'button: Make permanent').length, 1, 'Make permanent');
    assert.ok(inSearch.announced.includes('checkbox: decision'), 'a type option is announced by its label');

    await runCommand(page, 'View: Close All Editors');
    await runCommand(page, 'Agent Memory: Open Memory Graph');
    const graph = await findFrame(page, async (f) => (await f.locator('#canvas').count()) > 0, { timeoutMs: 30000 });
    await graph.waitForFunction(() => (window.agentMemoryGraph?.cy.nodes().length ?? 0) >= 3, null, { timeout: 30000 });
    await graph.locator('#notice .link-button').waitFor({ state: 'visible', timeout: 15000 });
    const inGraph = await tabWalk(page, graph, '#mode');
    console.log(`    graph: ${inGraph.total} controls, in Tab order: ${inGraph.announced.join(' | ')}`);
    assertKeyboardReachable('the graph', inGraph);
    assert.ok(
      inGraph.announced.some((a) => a.startsWith('application: Graph: Tab to focus')),
      'the drawing itself is a Tab stop',
    );
  },
};
