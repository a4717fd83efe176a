// UI tests: how the extension presents itself — the Getting Started walkthrough, the Settings
// editor filtered to Agent Memory (readable titles, advanced settings last), the view title
// actions with their icons, every view of the Agent Memory container with room for what it shows
// first, the Details page with the icon, and a window close that logs no error.
// Screenshots: test-artifacts/e2e/presence--*--{light,hc,dark}.png.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cli, engineReady, findFrame, openFolder, openViewContainer, ownProjectFolder, runCommand } from './workbench.mjs';

const EXTENSION_ID = 'agent-memory.agent-memory';

/** Every extension-host log file of the instance (one folder per window session). */
function extHostLogs(userDataDir) {
  const out = [];
  const walk = (dir) => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/exthost\.log$/i.test(name)) out.push(p);
    }
  };
  walk(join(userDataDir, 'logs'));
  return out;
}

/** The views of the Agent Memory container, in order (package.json); Webhooks only once webhooks are configured. */
const CONTAINER_VIEWS = ['Memories', 'Suggestions', 'Pipeline', 'Sessions', 'Schedules', 'Recently Deleted and Expired'];
/**
 * Collapsed at first (package.json "visibility"), so Recently Deleted and Expired keeps its room: at
 * 833 px each expanded view takes 120 px at least, and with Schedules open too it got 141 px, not a fifth.
 */
const COLLAPSED_AT_FIRST = ['Sessions', 'Schedules', 'Webhooks'];
const ROW_PX = 22;

/**
 * Checks every view of the container as a person sees it on a fresh layout: its header in the side
 * bar; each expanded view at least three rows tall, with what it shows first (its first row, its
 * welcome text's button) whole, not cut off at its bottom edge; Recently Deleted and Expired a
 * fifth of the side bar at least (memoryUx.ui.mjs). Logs each view's height.
 */
async function checkContainerViews(page, titles) {
  const side = await page.locator('.part.sidebar').boundingBox();
  const views = [];
  for (const title of titles) {
    const header = page.locator('.pane-header', { hasText: title }).first();
    await header.waitFor({ state: 'visible', timeout: 20000 });
    const view = { title, header: await header.boundingBox(), expanded: (await header.getAttribute('aria-expanded')) === 'true' };
    views.push(view);
    if (!view.expanded) continue;
    const body = page.locator('.pane', { has: header }).first().locator('.pane-body').first();
    // What the view shows first: its first row, else its welcome text's first button (or the text).
    const first = body.locator('.monaco-list-row').first().or(body.locator('.welcome-view-content').first());
    await first.waitFor({ state: 'visible', timeout: 30000 });
    const button = body.locator('.welcome-view-content .monaco-button').first();
    view.first = (await button.count()) ? button : body.locator('.monaco-list-row').first();
    view.bodyLocator = body;
  }
  await page.waitForTimeout(500); // the split view settles
  for (const v of views) {
    if (!v.expanded) continue;
    v.body = await v.bodyLocator.boundingBox();
    v.whole = (await v.first.count()) ? await v.first.boundingBox() : undefined;
  }
  const said = views.map((v) => `${v.title} ${v.expanded ? `${Math.round(v.body.height)} px` : 'collapsed'}`);
  console.log(`    side bar ${Math.round(side.height)} px: ${said.join(', ')}`);
  for (const v of views) {
    const { title, header: h, body: b, whole: w } = v;
    assert.ok(h.y >= side.y && h.y + h.height <= side.y + side.height + 1, `${title}: its header is inside the side bar`);
    assert.equal(v.expanded, !COLLAPSED_AT_FIRST.includes(title), `${title}: ${v.expanded ? 'expanded' : 'collapsed'}`);
    if (!v.expanded) continue;
    assert.ok(b.height >= 3 * ROW_PX, `${title}: three rows at least, not ${b.height} px`);
    if (w)
      assert.ok(
        w.y + w.height <= b.y + b.height + 1,
        `${title}: what it shows first is whole (${JSON.stringify(w)} in ${JSON.stringify(b)})`,
      );
    if (title.startsWith('Recently Deleted'))
      assert.ok(b.height >= side.height / 5, `${title}: a fifth of the side bar at least: ${b.height} of ${side.height}`);
  }
}

/**
 * A view collapsed at first, opened by a person on a fresh layout: it gets room for three rows at
 * least, and what it shows first (its first row, or its welcome text's button) is whole. Collapsed
 * again afterwards, as it was.
 */
async function checkOpensWhole(page, title, screenshot) {
  const header = page.locator('.pane-header', { hasText: new RegExp(`^${title}`) }).first();
  await header.waitFor({ state: 'visible', timeout: 20000 });
  assert.equal(await header.getAttribute('aria-expanded'), 'false', `${title} is collapsed at first`);
  await header.click();
  const body = page.locator('.pane', { has: header }).first().locator('.pane-body').first();
  // Its first row, else its welcome text's first button, else the welcome text's first line.
  await body
    .locator('.monaco-list-row')
    .first()
    .or(body.locator('.welcome-view-content').first())
    .waitFor({ state: 'visible', timeout: 30000 });
  const candidates = [
    body.locator('.monaco-list-row'),
    body.locator('.welcome-view-content .monaco-button'),
    body.locator('.welcome-view-content > *'),
  ];
  let first;
  for (const c of candidates) if (!first && (await c.count())) first = c.first();
  await page.waitForTimeout(500); // the split view settles
  const b = await body.boundingBox();
  const w = await first.boundingBox();
  console.log(`    ${title} opened: ${Math.round(b.height)} px`);
  assert.ok(b.height >= 3 * ROW_PX, `${title} opened: three rows at least, not ${b.height} px`);
  assert.ok(
    w.y + w.height <= b.y + b.height + 1,
    `${title} opened: what it shows first is whole (${JSON.stringify(w)} in ${JSON.stringify(b)})`,
  );
  await screenshot(`opened-${title.toLowerCase()}`);
  await header.click();
  await page.waitForFunction((h) => h.getAttribute('aria-expanded') === 'false', await header.elementHandle(), { timeout: 10000 });
}

export const tests = {
  async 'Getting Started walkthrough: add a memory, @memory / Recall…, other agents, the pipeline'({ page, screenshot, workspace }) {
    // A memory saved elsewhere (here the CLI) ticks "Add a memory": the step is about having one.
    await cli(workspace, 'add', 'Presence test: the walkthrough ticks its first step once the project has a memory.');
    await runCommand(page, 'Welcome: Open Walkthrough...');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Agent Memory' }).first();
    await pick.waitFor({ state: 'visible', timeout: 15000 });
    await pick.click();
    const editor = page.locator('.gettingStartedContainer').first();
    await editor.waitFor({ state: 'visible', timeout: 15000 });
    for (const step of ['Add a memory', 'Ask @memory, or Recall…', 'Connect your other agents', 'Turn on the pipeline']) {
      await editor.locator('.getting-started-step', { hasText: step }).first().waitFor({ state: 'visible', timeout: 15000 });
    }
    const first = editor.locator('.getting-started-step[aria-checked="true"]', { hasText: 'Add a memory' }).first();
    await first.waitFor({ state: 'visible', timeout: 15000 });
    // VS Code opens the first step not yet done; open "Add a memory" for its button and its page (a markdown webview).
    await first.click();
    const button = editor.locator('.getting-started-step.expanded a, .getting-started-step.expanded button', { hasText: 'Add Memory' });
    await button.first().waitFor({ state: 'visible', timeout: 10000 });
    await findFrame(page, async (f) => /one thing your agents should know/.test(await f.innerText('body')));
    await screenshot('walkthrough');
  },

  async 'Settings editor filtered to Agent Memory: readable titles, everyday groups first, advanced last, durations as text'({
    page,
    screenshot,
  }) {
    await runCommand(page, 'Preferences: Open Settings (UI)');
    const search = page.locator('.settings-editor .suggest-input-container').first();
    await search.waitFor({ state: 'visible', timeout: 15000 });
    await search.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`@ext:${EXTENSION_ID}`);
    const toc = page.locator('.settings-toc-container .monaco-list-row');
    const groupNames = async () =>
      (await toc.allInnerTexts())
        .map((t) => t.replace(/\s*\(\d+\)\s*$/, '').trim())
        .filter((t) => !['Extensions', 'Agent Memory'].includes(t));
    // Everyday groups only, in order; the advanced ones are hidden until asked for.
    await toc.filter({ hasText: 'Storage' }).first().waitFor({ state: 'visible', timeout: 15000 });
    // The unfiltered table of contents (VS Code's own groups too) shows until the filter applies.
    for (let t0 = Date.now(); (await groupNames()).includes('Commonly Used') && Date.now() - t0 < 15000;) await page.waitForTimeout(100);
    assert.deepEqual(await groupNames(), [
      'Pipeline and Ollama',
      'Lifetimes',
      'Search',
      'Duplicates',
      'Embeddings',
      'Storage',
      'Webhooks',
      'Team Memory',
    ]);
    await page.locator('.settings-editor .setting-item-label', { hasText: 'Ollama Model' }).first().waitFor({ timeout: 15000 });
    const labels = await page.locator('.settings-editor .setting-item-label').allInnerTexts();
    assert.ok(labels.length > 3, 'settings are listed');
    for (const l of labels) assert.doesNotMatch(l, /_|Pipeline V2|Ms$/, `title "${l}"`);
    // The title is the last part of the id in words ("Shadow Mode"), after its group in the category.
    for (const title of ['Ollama Server', 'Ollama Model']) {
      assert.ok(
        labels.some((l) => l.trim() === title),
        `"${title}" in ${labels.join(' | ')}`,
      );
    }
    await screenshot('settings');

    await search.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`@ext:${EXTENSION_ID} @tag:advanced`);
    await toc.filter({ hasText: 'Index (Advanced)' }).first().waitFor({ state: 'visible', timeout: 15000 });
    const advanced = await groupNames();
    assert.ok(advanced.length >= 5 && advanced.every((g) => g.endsWith('(Advanced)')), advanced.join(' | '));
    await screenshot('settings-advanced');

    // A duration is a text box with its readable default, not "Edit in settings.json".
    await search.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(`@ext:${EXTENSION_ID} short-term memory lives`);
    const item = page.locator('.settings-editor .setting-item', { hasText: 'Short Term Lifetime' }).first();
    await item.waitFor({ state: 'visible', timeout: 15000 });
    assert.equal(await item.locator('input').first().inputValue(), '1d');
    assert.equal(await item.locator('a', { hasText: 'Edit in settings.json' }).count(), 0);
    await screenshot('settings-duration');
  },

  async 'every view title action of the Agent Memory views is an icon'({ page, screenshot }) {
    await openViewContainer(page, 'Agent Memory');
    for (const title of ['Memories', 'Suggestions', 'Pipeline']) {
      const header = page.locator('.pane-header', { hasText: title }).first();
      await header.waitFor({ state: 'visible', timeout: 20000 });
      await header.hover();
      const actions = header.locator('.actions .action-label');
      await actions.first().waitFor({ state: 'visible', timeout: 10000 });
      for (const a of await actions.all()) {
        const cls = (await a.getAttribute('class')) ?? '';
        const label = (await a.getAttribute('aria-label')) ?? '';
        assert.match(cls, /codicon-/, `${title}: "${label}" is drawn as an icon`);
        assert.equal((await a.innerText()).trim(), '', `${title}: "${label}" shows no text`);
        assert.ok(label.length > 0, `${title}: the action has an accessible name`);
      }
      // The view title keeps its full text (it collapses to "S…" when an action renders as text).
      assert.equal((await header.locator('.title').first().innerText()).trim().toUpperCase(), title.toUpperCase());
    }
    await page.locator('.pane-header', { hasText: 'Memories' }).first().hover();
    await screenshot('view-titles');
  },

  async 'every view of the Agent Memory container has room: Memories, Suggestions, Pipeline, Sessions, Schedules, Recently Deleted; Webhooks once configured'({
    page,
    screenshot,
    url,
    workspace,
  }) {
    // A folder of its own: a fresh layout (VS Code keeps view sizes per folder) and an empty store.
    const folder = ownProjectFolder(workspace, 'views', 'container-views-test');
    try {
      await openFolder(page, url, folder);
      await openViewContainer(page, 'Agent Memory');
      await checkContainerViews(page, CONTAINER_VIEWS);
      assert.equal(await page.locator('.pane-header', { hasText: 'Webhooks' }).count(), 0, 'no Webhooks view before one is configured');
      await screenshot('container-views');
      // Opened one at a time, as a person first opens them: e.g. the Schedules view's New Reminder… whole.
      for (const title of ['Sessions', 'Schedules']) await checkOpensWhole(page, title, screenshot);

      // A webhook configured (no signing secret: nothing is sent): the Webhooks view joins the others.
      writeFileSync(join(folder, 'agent.yaml'), 'webhooks:\n  endpoints:\n    - name: views-bot\n      url: http://127.0.0.1:9/hook\n');
      await page.locator('.pane-header', { hasText: 'Webhooks' }).first().waitFor({ state: 'visible', timeout: 30000 });
      await checkContainerViews(page, [...CONTAINER_VIEWS, 'Webhooks']);
      await screenshot('container-views-webhooks');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },

  async "the extension's Details page shows its icon and the user README"({ page, screenshot }) {
    await runCommand(page, 'Extensions: Show Installed Extensions');
    const entry = page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Agent Memory' }).first();
    await entry.waitFor({ state: 'visible', timeout: 20000 });
    const listIcon = entry.locator('img.icon').first();
    await listIcon.waitFor({ state: 'visible', timeout: 10000 });
    await entry.click();
    const details = page.locator('.extension-editor').first();
    await details.waitFor({ state: 'visible', timeout: 20000 });
    const icon = details.locator('.header img.icon').first();
    await icon.waitFor({ state: 'visible', timeout: 10000 });
    await page.waitForFunction((img) => img.complete && img.naturalWidth === 128, await icon.elementHandle(), { timeout: 10000 });
    await findFrame(page, async (f) => /Getting started/i.test(await f.innerText('body')), { timeoutMs: 20000 });
    await screenshot('details');
  },

  async 'Export Memories… proposes a file in Downloads (or home), not in the workspace'({ page, screenshot, workspace }) {
    await runCommand(page, 'Agent Memory: Export Memories (JSONL)…');
    // code-server's save dialog is a quick input holding the proposed path.
    const input = page.locator('.quick-input-widget input').first();
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await page.waitForFunction((el) => /agent-memory-\d{4}-\d\d-\d\d\.jsonl$/.test(el.value), await input.elementHandle(), {
      timeout: 10000,
    });
    const proposed = await input.inputValue();
    const downloads = join(homedir(), 'Downloads');
    const folder = existsSync(downloads) ? downloads : homedir();
    assert.ok(proposed.replace(/^~/, homedir()).startsWith(folder + '/'), `${proposed} is in ${folder}`);
    assert.ok(!proposed.startsWith(workspace), `${proposed} is outside the workspace ${workspace}`);
    await screenshot('export-dialog');
    await page.keyboard.press('Escape');
  },

  async 'closing the window logs no error (no "Unable to refresh tree view agentMemory.pipeline")'({ page, server }) {
    await openViewContainer(page, 'Agent Memory');
    const row = (text) => page.locator('.monaco-list-row', { hasText: text }).first();
    await row('Worker:').waitFor({ state: 'visible', timeout: 30000 });
    // The window settles first: the engine's "ready" refreshes every view, and a refresh still on its
    // way when the window goes is cancelled by VS Code itself (the same message, not ours to avoid).
    await engineReady(page);
    await new Promise((r) => setTimeout(r, 2000));
    const files = extHostLogs(server.userDataDir);
    assert.ok(files.length > 0, 'the extension host writes a log');
    // What each log gains from here on (sizes per file: other windows' hosts may write meanwhile).
    const sizes = new Map(files.map((f) => [f, statSync(f).size]));
    // Leaving the page closes the window: the extension host deactivates the extension, whose
    // engine stops; nothing may try to refresh a view that is going away.
    await page.goto('about:blank');
    // Wait for the extension host to terminate, then a little longer for late errors.
    const added = () =>
      extHostLogs(server.userDataDir)
        .map((f) =>
          readFileSync(f)
            .subarray(sizes.get(f) ?? 0)
            .toString('utf8'),
        )
        .join('\n');
    const t0 = Date.now();
    while (!/Extension host terminating/.test(added()) && Date.now() - t0 < 45000) await new Promise((r) => setTimeout(r, 250));
    assert.match(added(), /Extension host terminating/, 'the window close reached the extension host');
    await new Promise((r) => setTimeout(r, 3000));
    assert.doesNotMatch(added(), /Unable to refresh tree view agentMemory\.\w+/);
    // Each log entry with its stack (the lines up to the next timestamp): none is an error from this
    // extension — e.g. "Channel has been closed" thrown by a log line during deactivate.
    const entries = added().split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/);
    const ours = entries.filter((e) => /^\S+ \S+ \[error\]/.test(e.trimStart()) && /agent-?memory/i.test(e));
    assert.deepEqual(ours, [], 'the extension host logged no error from Agent Memory while the window closed');
  },
};
