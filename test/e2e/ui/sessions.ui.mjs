// UI test of agent sessions in VS Code (docs/sessions.md "In VS Code") as a person meets them:
// a session an agent logged (the `agent-memory` CLI, a client of this window's engine) shows in
// the Sessions view with its scratchpad; clicking it opens the read-only transcript; Resume puts
// its summary and scratchpad into the chat input as data; Forget Session asks first, and only
// the confirmed answer forgets it. Screenshots: test-artifacts/e2e/sessions--*.png
// (light, high contrast, dark).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UI_STORE_HOME, cli, openViewContainer, treeRow } from './workbench.mjs';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'cli.js');

/** `agent-memory session log <id>` with the events as JSON on stdin. */
function logEvents(workspace, sessionId, agent, events) {
  const r = spawnSync(process.execPath, [CLI, 'session', 'log', sessionId, '--agent', agent, '--workspace', workspace, '--json'], {
    input: events.map((e) => JSON.stringify(e)).join('\n'),
    env: { ...process.env, AGENT_MEMORY_HOME: UI_STORE_HOME },
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

async function openSessionsView(page) {
  await openViewContainer(page, 'Agent Memory');
  const header = page.locator('.pane-header', { hasText: /^Sessions/ }).first();
  await header.waitFor({ state: 'visible', timeout: 20000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return page.locator('.pane', { has: header }).first();
}

export const timeouts = { 'the Sessions view lists a logged session; transcript, Resume and Forget Session': 180_000 };

export const tests = {
  async 'the Sessions view lists a logged session; transcript, Resume and Forget Session'({ page, screenshot, workspace }) {
    const id = `e2e-${Date.now()}`;
    logEvents(workspace, id, 'Claude Code', [
      { role: 'user', content: 'Sessions e2e: why does the deploy script hang on the health check?' },
      { role: 'assistant', content: 'The health check polls port 8081 but the service listens on 8080.' },
    ]);
    await cli(workspace, 'scratchpad', id, 'point the health check at 8080', 'rerun the deploy');

    const pane = await openSessionsView(page);
    const row = treeRow(pane, 'Claude Code');
    await row.waitFor({ state: 'visible', timeout: 30000 });
    assert.match(await row.innerText(), /just now|seconds? ago|minutes? ago/);
    assert.match(await row.innerText(), /2 turns/);
    await row.locator('.monaco-tl-twistie').click(); // the scratchpad items below the session
    await treeRow(pane, 'point the health check at 8080').waitFor({ state: 'visible', timeout: 10000 });
    await row.hover();
    await screenshot('sessions-view');

    await row.locator('.label-name').click();
    const editor = page.locator('.editor-instance .view-lines').first();
    await page
      .locator('.tab', { hasText: `Session ${id}.md` })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    await editor.filter({ hasText: 'polls port 8081' }).waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('transcript');

    await row.hover();
    await row.locator('.action-label[aria-label^="Resume Session in Chat"]').click();
    const input = page.locator('.interactive-input-editor').first();
    await input.waitFor({ state: 'visible', timeout: 20000 });
    await input.filter({ hasText: "Let's resume an earlier session" }).waitFor({ state: 'visible', timeout: 20000 });
    await screenshot('resume-in-chat');

    // Forget asks first: Cancel keeps it.
    const forget = async () => {
      await row.click({ button: 'right' });
      const item = page.locator('.context-view .action-item', { hasText: 'Forget Session…' }).first();
      await item.waitFor({ state: 'visible', timeout: 10000 });
      await item.click();
      if (await item.isVisible().catch(() => false)) await page.keyboard.press('Enter');
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 10000 });
      assert.match(
        await dialog.innerText(),
        /Forget the session of Claude Code from .*2 turns, summary and scratchpad are removed for good/s,
      );
      return dialog;
    };
    let dialog = await forget();
    await screenshot('forget-asks');
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    assert.ok(
      (await cli(workspace, 'session', 'list')).items.some((s) => s.sessionId === id),
      'Cancel forgets nothing',
    );
    dialog = await forget();
    await dialog.locator('.monaco-button', { hasText: 'Forget Session' }).first().click();
    await row.waitFor({ state: 'detached', timeout: 20000 });
    assert.ok(!(await cli(workspace, 'session', 'list')).items.some((s) => s.sessionId === id), 'forgotten');
  },
};
