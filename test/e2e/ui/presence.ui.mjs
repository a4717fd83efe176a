// UI tests: how the extension presents itself — the Getting Started walkthrough, the Settings
// editor filtered to Agent Memory (readable titles, advanced settings last), the view title
// actions with their icons, the Details page with the icon, and a window close that logs no
// error. Screenshots: test-artifacts/e2e/presence--*--{light,hc,dark}.png.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cli, findFrame, openViewContainer, runCommand } from './workbench.mjs';

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
    assert.doesNotMatch(added(), /\[error\].*agent-?memory/i);
  },
};
