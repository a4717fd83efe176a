// UI tests: two VS Code windows on one folder, the first owning the project's store, the second
// its client (ARCHITECTURE.md "One owner, many clients"), and what a person sees when the owner
// goes away. (1) The pipeline mode chosen in the first window is the person's setting: after that
// window reloads and the second takes the store over, both windows still run and show it.
// (2) Restart Engine in the owning window shows its progress, then "Engine restarted"; the other
// window logs the owner's restart as a handover (never "engine crashed") and is back at once.
// (3) Two folders of one project (a clone): the second window's settings differ from the owner's;
// it is told so when it connects, and when it takes the store over the change of pipeline mode
// is said in both windows. (4) agent.yaml problems are each logged once per window: a window that
// connects after the owner saved a bad file three times and fixed it logs none of them.
// Each test opens its windows on folders of a project of its own (its own store): windows that
// earlier UI tests left behind (code-server keeps a closed window's extension host for a while,
// still connected to the sample project's store) cannot own, or take over, these tests' store.
// Screenshots: test-artifacts/e2e/owner--*.png.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { openViewContainer, runCommand, waitForNotification, waitForWorkbench } from './workbench.mjs';

/** The "Agent Memory" output logs of every extension host of the server written since `sinceMs`. */
function agentMemoryLogs(server, sinceMs) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('Agent Memory.log') && statSync(f).mtimeMs >= sinceMs) out.push({ file: f, text: readFileSync(f, 'utf8') });
    }
  };
  const logs = join(server.userDataDir, 'logs');
  if (existsSync(logs)) walk(logs);
  return out;
}

/**
 * A folder `<workspace>-<name>` that is a clone of project `project` (its git origin): the same
 * project id, hence the same store, for every folder made with the same `project`.
 */
function projectFolder(workspace, name, project) {
  const dir = `${workspace}-${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, '.git', 'config'), `[remote "origin"]\n\turl = https://github.com/example-org/${project}.git\n`);
  writeFileSync(join(dir, 'README.md'), `# ${project}, ${name}\n`);
  return dir;
}

/** The workbench URL of `folder` (the harness's URL opens the sample workspace). */
const folderUrl = (url, folder) => url.replace(/folder=[^&]*/, `folder=${encodeURIComponent(folder)}`);

/** Opens `folder` in `page` and waits for its engine. */
async function openFolder(page, url, folder) {
  await page.goto(folderUrl(url, folder));
  await waitForWorkbench(page);
  await engineReady(page);
}

/** Milliseconds between the first line matching `from` and the next one matching `to` (log lines start with [ISO time]). */
function between(text, from, to) {
  const lines = text.split('\n');
  const at = (l) => Date.parse(l.slice(1, 25));
  const i = lines.findIndex((l) => from.test(l));
  const j = lines.findIndex((l, k) => k > i && to.test(l));
  return i >= 0 && j >= 0 ? at(lines[j]) - at(lines[i]) : undefined;
}

/** The Agent Memory status bar item. */
const statusItem = (page) => page.locator('.statusbar-item', { hasText: /Memory: \d+/ }).first();

/** Waits until the window's engine is ready (the status bar item counts memories). */
async function engineReady(page) {
  await page
    .locator('.statusbar-item', { hasText: /Memory: \d+/ })
    .first()
    .waitFor({ state: 'visible', timeout: 60000 });
}

/** Opens the Agent Memory side bar (once) and waits for the Pipeline view's row starting with `text`. */
async function pipelineRow(page, text, timeout = 30000) {
  const header = page.locator('.pane-header', { hasText: 'Pipeline' }).first();
  if (!(await header.isVisible())) await openViewContainer(page, 'Agent Memory');
  await header.waitFor({ state: 'visible', timeout: 20000 });
  const row = page.locator('.pane', { has: header }).locator('.monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout });
  return row;
}

/** "Agent Memory: Switch Pipeline Mode…" → `label` ("Shadow"…); Ollama is not there: "Switch Anyway"; saved for this workspace. */
async function switchMode(page, label) {
  await runCommand(page, 'Agent Memory: Switch Pipeline Mode…');
  const pick = (text) => page.locator('.quick-input-list .monaco-list-row', { hasText: text }).first();
  await pick(label).waitFor({ state: 'visible', timeout: 15000 });
  await pick(label).click();
  if (label !== 'Off') {
    const anyway = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Switch Anyway' }).first();
    await anyway.waitFor({ state: 'visible', timeout: 20000 });
    await anyway.click();
  }
  await pick('This workspace').waitFor({ state: 'visible', timeout: 15000 });
  await pick('This workspace').click();
  await waitForNotification(page, `pipeline mode is now ${label.toLowerCase()}`);
}

const TWO_WINDOWS_MS = 150_000; // two windows starting, a reload or a restart, on a loaded machine

export const tests = {
  async "the pipeline mode set in the owning window survives its reload: the window that takes over runs the person's mode"({
    page,
    screenshot,
    url,
    workspace,
  }) {
    const folder = projectFolder(workspace, 'reload', 'owner-reload-test');
    await openFolder(page, url, folder); // the first window owns the store
    const second = await page.context().newPage();
    try {
      await openFolder(second, url, folder); // the second is its client

      await page.bringToFront();
      await switchMode(page, 'Shadow');
      await pipelineRow(page, 'Mode: shadow');
      await second.bringToFront();
      await pipelineRow(second, 'Mode: shadow');

      // The owner reloads: the second window takes the store over (or the reloaded one gets it
      // back); either way the person's setting, shadow, is what runs and what both windows show.
      await page.bringToFront();
      await runCommand(page, 'Developer: Reload Window');
      await waitForWorkbench(page);
      await engineReady(page);
      await second.bringToFront();
      await engineReady(second);
      await pipelineRow(second, 'Mode: shadow');
      assert.match(await statusItem(second).innerText(), /shadow/);
      await second.mouse.move(700, 450);
      await second.screenshot({ path: 'test-artifacts/e2e/owner--second-window-after-takeover.png' });
      await page.bringToFront();
      await pipelineRow(page, 'Mode: shadow');
      assert.match(await statusItem(page).innerText(), /shadow/);
      await page.mouse.move(700, 450);
      await screenshot('reloaded-window-after-takeover');
    } finally {
      await second.close().catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    }
  },
  async 'Restart Engine in the owning window: progress, then "Engine restarted"; the other window logs a handover, not a crash'({
    page,
    screenshot,
    url,
    server,
    workspace,
  }) {
    const folder = projectFolder(workspace, 'restart', 'owner-restart-test');
    await openFolder(page, url, folder); // the first window owns the store
    const second = await page.context().newPage();
    try {
      await openFolder(second, url, folder);
      const since = Date.now();
      await page.bringToFront();
      await runCommand(page, 'Agent Memory: Restart Engine');
      await waitForNotification(page, 'Restarting the memory engine');
      await page.screenshot({ path: 'test-artifacts/e2e/owner--restart-progress.png' });
      await waitForNotification(page, 'Engine restarted', { timeoutMs: 60000 });
      await engineReady(page);
      await page.mouse.move(700, 450);
      // One shot of the first window: the newest window (the second) applies theme requests.
      await page.screenshot({ path: 'test-artifacts/e2e/owner--engine-restarted.png' });

      await second.bringToFront();
      await engineReady(second);
      const logs = agentMemoryLogs(server, since);
      const crashes = logs.flatMap((l) =>
        l.text.split('\n').filter((line) => /crash/i.test(line) && Date.parse(line.slice(1, 25)) >= since),
      );
      assert.deepEqual(crashes, [], 'no window logs the restart as a crash');
      const other = logs.find((l) => /is restarting its engine/.test(l.text));
      assert.ok(other, `the other window says the owner restarted its engine: ${logs.map((l) => l.text.slice(-600)).join('\n---\n')}`);
      // The restarting window keeps the store: the other reconnects to it.
      assert.match(other.text, /back after \d+ ms: connected to the window that serves the project's memory now/);
      const back = between(other.text, /is restarting its engine/, /back after/);
      console.log(`      the other window was back ${back} ms after the owner said it restarts`);
      // Its log says what happened, in words (Show Log opens the Output panel on it).
      await runCommand(second, 'Agent Memory: Show Log');
      await second.locator('.part.panel .monaco-editor', { hasText: 'back after' }).first().waitFor({ state: 'visible', timeout: 15000 });
      await second.mouse.move(700, 300);
      await screenshot('other-window-log-after-restart', undefined, second);
      // Restart Engine in the client window restarts its connection only, and says so.
      await runCommand(second, 'Agent Memory: Restart Engine');
      const reconnected = await waitForNotification(second, 'Reconnected', { timeoutMs: 60000 });
      assert.match(
        (await reconnected.innerText()).replace(/\s+/g, ' '),
        /Another window serves this project's memory: its engine was not restarted/,
      );
    } finally {
      await second.close().catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    }
  },
  async 'two folders of one project with other settings: the client is told; after a takeover both windows say the mode changed'({
    page,
    screenshot,
    url,
    workspace,
    server,
  }) {
    // Two clones of one project (the same store); the first window's folder says shadow in its
    // workspace settings, the second's says nothing (off).
    const first = projectFolder(workspace, 'clone-a', 'owner-clones-test');
    const clone = projectFolder(workspace, 'clone-b', 'owner-clones-test');
    await openFolder(page, url, first); // the first window owns the store
    await switchMode(page, 'Shadow'); // saved in the first folder's workspace settings only
    await pipelineRow(page, 'Mode: shadow');
    const second = await page.context().newPage();
    const since = Date.now();
    try {
      await openFolder(second, url, clone);
      // The clone's window is a client: the owner's settings run, and it is told they differ from its own.
      const told = await waitForNotification(second, 'has other settings than this one', { timeoutMs: 30000 });
      assert.match(
        (await told.innerText()).replace(/\s+/g, ' '),
        new RegExp(`\\(folder ${basename(first)}\\) has other settings than this one: the pipeline is in shadow mode there, off here\\.`),
      );
      const mode = await pipelineRow(second, 'Mode: shadow');
      assert.match(await mode.innerText(), new RegExp(`set in ${basename(first)}`));
      await second.mouse.move(700, 450);
      await second.screenshot({ path: 'test-artifacts/e2e/owner--clone-window-told.png' });

      // The first window reloads: the clone's window takes the store over, with its own settings.
      await page.bringToFront();
      await runCommand(page, 'Developer: Reload Window');
      await waitForWorkbench(page);
      await engineReady(page);
      await second.bringToFront();
      const took = agentMemoryLogs(server, since).some((l) => /this window now serves the project's memory/.test(l.text));
      assert.ok(took, 'the clone window took the store over (the reloaded window came back after it)');
      const ownerSays = await waitForNotification(second, 'this window now serves the project', { timeoutMs: 30000 });
      assert.match((await ownerSays.innerText()).replace(/\s+/g, ' '), /the pipeline is now off \(it was in shadow mode\)/);
      await pipelineRow(second, 'Mode: off');
      await second.mouse.move(700, 450);
      await second.screenshot({ path: 'test-artifacts/e2e/owner--clone-window-took-over.png' });
      await page.bringToFront();
      const clientSays = await waitForNotification(page, 'has other settings than this one', { timeoutMs: 30000 });
      assert.match(
        (await clientSays.innerText()).replace(/\s+/g, ' '),
        new RegExp(`\\(folder ${basename(clone)}\\) has other settings than this one: the pipeline is off there, in shadow mode here\\.`),
      );
      await pipelineRow(page, 'Mode: off');
      await page.mouse.move(700, 450);
      // The reloaded window is the newest: it applies theme requests (three shots).
      await screenshot('reloaded-window-told');
      // "Use This Window's Settings": the owner runs this window's settings, both windows show them.
      await clientSays.locator('.monaco-button', { hasText: "Use This Window's Settings" }).first().click();
      const mine = await pipelineRow(page, 'Mode: shadow');
      assert.doesNotMatch(await mine.innerText(), /set in/, "this window's settings run now");
      await second.bringToFront();
      await pipelineRow(second, 'Mode: shadow');
    } finally {
      await second.close().catch(() => {});
      for (const dir of [first, clone]) rmSync(dir, { recursive: true, force: true });
    }
  },
  async "agent.yaml problems are logged once per window; a window that connects later logs none of the owner's fixed ones"({
    page,
    url,
    server,
    workspace,
  }) {
    const folder = projectFolder(workspace, 'yaml', 'owner-yaml-test');
    const yaml = join(folder, 'agent.yaml');
    writeFileSync(yaml, 'memory:\n  default_ttl: soon\n');
    const since = Date.now();
    const mentions = (text) => text.split('\n').filter((l) => /default_ttl/.test(l)).length;
    await openFolder(page, url, folder); // the owner
    await waitForNotification(page, 'agent.yaml has 1 problem', { timeoutMs: 30000 });
    // Saved three times with the problem (each save reloads the owner's configuration), then fixed.
    for (let i = 1; i <= 3; i++) {
      writeFileSync(yaml, `memory:\n  default_ttl: soon${'\n'.repeat(i + 1)}`);
      await page.waitForTimeout(1500);
    }
    writeFileSync(yaml, 'memory:\n  default_ttl: 7d\n');
    await page
      .locator('.statusbar-item', { hasText: /Memory: \d+/ })
      .filter({ hasNot: page.locator('.codicon-warning') })
      .first()
      .waitFor({ timeout: 30000 });
    const second = await page.context().newPage();
    try {
      await openFolder(second, url, folder); // a client, after the fix
      await second.waitForTimeout(2000);
      const logs = agentMemoryLogs(server, since);
      const owner = logs.find((l) => /store owned by this process/.test(l.text));
      const client = logs.find((l) => /connected as a client/.test(l.text));
      assert.ok(owner && client, 'both windows logged');
      assert.equal(mentions(owner.text), 1, `the owner's window logged the problem once:\n${owner.text}`);
      assert.equal(mentions(client.text), 0, `the window that connected after the fix logged none of it:\n${client.text}`);
    } finally {
      await second.close().catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    }
  },
};

export const timeouts = Object.fromEntries(Object.keys(tests).map((name) => [name, TWO_WINDOWS_MS]));
