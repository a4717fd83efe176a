// Helpers for the Playwright UI tests (test/e2e/ui/*.ui.mjs), driving the real workbench
// that code-server serves, in Debian's Chromium. Selectors measured on VS Code 1.139.1.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** Waits until the workbench is rendered and the extension host has had time to start. */
export async function waitForWorkbench(page, { timeoutMs = 60000 } = {}) {
  await page.waitForSelector('.monaco-workbench', { timeout: timeoutMs });
  // The status bar appears once the workbench layout is complete.
  await page.waitForSelector('.statusbar', { timeout: timeoutMs });
}

/**
 * Runs a command by its palette title (e.g. "Agent Memory: Show Diagnostics") through F1.
 * The palette lists the commands known when it opens; right after start-up an extension's
 * contributions may not be known yet, so it is reopened until the entry shows up.
 */
export async function runCommand(page, title, { timeoutMs = 30000 } = {}) {
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const t0 = Date.now();
  for (;;) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ state: 'visible', timeout: 3000 });
      await input.fill('>' + title);
      await row.waitFor({ state: 'visible', timeout: 3000 });
      break;
    } catch (e) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`command "${title}" not found in the palette: ${e.message}`, { cause: e });
      // Focus may still be elsewhere right after start-up: click into the editor area.
      await page
        .locator('.monaco-workbench .part.editor')
        .click({ trial: false })
        .catch(() => {});
    }
  }
  await row.click();
  await input.waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
}

/** Puts the cursor on line `n` of the active editor (Go to Line, Ctrl+G). */
export async function goToLine(page, n) {
  await page.keyboard.press('Control+g');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 5000 });
  await input.fill(`:${n}`);
  await page.keyboard.press('Enter');
  // Keys pressed before the box has closed would go into it (seen on a loaded machine).
  await input.waitFor({ state: 'hidden', timeout: 5000 });
}

/** Replaces line `n` of the active editor with `text`, as typed. */
export async function retypeLine(page, n, text) {
  await goToLine(page, n);
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+End');
  await page.keyboard.type(text, { delay: 5 });
}

/**
 * Hides the bottom panel and the secondary side bar when an earlier test left them open (the
 * workbench keeps its layout per workspace across pages): each test starts with the editor area
 * at full size, so panel sizes (graph zoom, the side-by-side diff) do not depend on test order.
 */
export async function resetLayout(page) {
  for (const [part, title] of [
    ['.monaco-workbench .part.panel', 'View: Hide Panel'],
    ['.monaco-workbench .part.auxiliarybar', 'View: Hide Secondary Side Bar'],
  ]) {
    if (!(await page.locator(part).first().isVisible())) continue;
    await runCommand(page, title, { timeoutMs: 10000 });
    await page.locator(part).first().waitFor({ state: 'hidden', timeout: 10000 });
  }
}

/**
 * The first tree row (within `scope`, a page or locator) showing `text`, or whose accessible
 * label holds it: the memory tree cuts long titles on screen and keeps the full title there.
 */
export function treeRow(scope, text) {
  return scope
    .locator('.monaco-list-row', { hasText: text })
    .or(scope.locator(`.monaco-list-row[aria-label*=${JSON.stringify(text)}]`))
    .first();
}

/**
 * Scrolls the list of the view whose header is `header` (a locator) until `target` (one of its
 * rows) is drawn, then waits for it to be visible: a list draws only the rows in view, and
 * earlier tests leave the side bar's views open and the Memories view short. It starts from the
 * top (a list keeps its scroll position across refreshes) and goes down until the drawn rows stop
 * changing (the end), then starts again: the rows may still be arriving. Scrolling changes
 * nothing a later test depends on.
 */
export async function scrollToRow(page, header, target, { timeoutMs = 30000 } = {}) {
  const pane = page.locator('.pane', { has: header });
  const list = pane.locator('.monaco-list').first();
  const drawn = async () => (await pane.locator('.monaco-list-row').allInnerTexts()).join('\n');
  const wheel = async (dy) => {
    await list.hover({ timeout: 5000 }).catch(() => {});
    await page.mouse.wheel(0, dy);
    await page.waitForTimeout(150);
  };
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (await target.isVisible()) return target;
    await wheel(-100000);
    let before = await drawn();
    for (let same = 0; same < 3 && Date.now() - t0 < timeoutMs;) {
      if (await target.isVisible()) return target;
      await wheel(88);
      const now = await drawn();
      same = now === before ? same + 1 : 0;
      before = now;
    }
  }
  await target.waitFor({ state: 'visible', timeout: 1000 });
  return target;
}

/** Resolves with the notification toast that contains `text`. */
export async function waitForNotification(page, text, { timeoutMs = 20000 } = {}) {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
  await toast.waitFor({ state: 'visible', timeout: timeoutMs });
  return toast;
}

/** Clicks an activity-bar entry by the beginning of its title (e.g. "Explorer"). */
export async function openViewContainer(page, title, { timeoutMs = 20000 } = {}) {
  const entry = page.locator(`.activitybar a[aria-label^="${title}"]`).first();
  await entry.waitFor({ state: 'visible', timeout: timeoutMs });
  await entry.click();
}

/**
 * Moves the pointer to the empty editor area and waits until no hover is shown. A hover left by a
 * click (the activity bar's tooltip after openViewContainer) can cover a row; moving onto it keeps
 * it open, so a row's hover() would then land on the tooltip and never reach the row.
 */
export async function clearHovers(page, { timeoutMs = 5000 } = {}) {
  const t0 = Date.now();
  for (let i = 0; ; i++) {
    await page.mouse.move(700 + (i % 2) * 20, 450);
    await page.waitForTimeout(150);
    const hover = await shownHover(page);
    if (!hover) return;
    if (Date.now() - t0 > timeoutMs) throw new Error(`a hover stays shown ${timeoutMs} ms after the pointer left it`);
    // A hover shown while the pointer was elsewhere (the activity bar's, after a theme switch
    // redrew the workbench) waits for the pointer to leave it: pass over it once, then Escape.
    if (i === 8 || i === 16) {
      await page.mouse.move(hover.x, hover.y);
      await page.waitForTimeout(150);
    }
    if (i === 20) await page.keyboard.press('Escape');
  }
}

/** The middle of a shown hover (one with a size and text: VS Code keeps hidden, empty copies), if any. */
function shownHover(page) {
  return page.evaluate(() => {
    const e = [...document.querySelectorAll('.monaco-hover, .workbench-hover, .context-view')].find((h) => {
      const r = h.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && h.innerText.trim() !== '';
    });
    const r = e?.getBoundingClientRect();
    return r ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : undefined;
  });
}

/** Finds a webview's inner frame whose URL or content matches `predicate(frame)`. */
export async function findFrame(page, predicate, { timeoutMs = 20000 } = {}) {
  const t0 = Date.now();
  for (;;) {
    for (const frame of page.frames()) {
      if (await predicate(frame).catch(() => false)) return frame;
    }
    if (Date.now() - t0 > timeoutMs) throw new Error('frame not found');
    await page.waitForTimeout(250);
  }
}

/**
 * "Agent Memory: Add Memory…" from the palette: types the text (step 1), Enter, then "Save now"
 * on the type step (the defaults for the rest), and waits for the "Memory saved" toast.
 */
export async function addMemoryFromPalette(page, text) {
  await runCommand(page, 'Agent Memory: Add Memory…');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10000 });
  await input.fill(text);
  await page.keyboard.press('Enter');
  await clickQuickInputButton(page, 'Save now');
  return waitForNotification(page, 'Memory saved');
}

/** Clicks a button of the open quick input's title bar by the start of its tooltip (e.g. "Save now", "Back"). */
export async function clickQuickInputButton(page, tooltip, { timeoutMs = 10000 } = {}) {
  const button = page
    .locator(
      `.quick-input-widget .quick-input-titlebar .action-label[aria-label^="${tooltip}"], ` +
        `.quick-input-widget .quick-input-header .action-label[aria-label^="${tooltip}"]`,
    )
    .first();
  await button.waitFor({ state: 'visible', timeout: timeoutMs });
  await button.click();
}

/**
 * The themes every UI screenshot is taken in, in the order they are taken. The last one is VS
 * Code's default theme, so the workbench ends a screenshot as it started (when the test did not
 * choose a theme itself). `base` is the workbench's theme class, `kind` the webviews' body
 * attribute data-vscode-theme-kind.
 */
export const SCREENSHOT_THEMES = [
  { suffix: 'light', name: 'Default Light Modern', base: 'vs', kind: 'vscode-light' },
  { suffix: 'hc', name: 'Default High Contrast', base: 'hc-black', kind: 'vscode-high-contrast' },
  { suffix: 'dark', name: 'Default Dark Modern', base: 'vs-dark', kind: 'vscode-dark' },
];

/** VS Code's second high-contrast theme: the accessibility tests audit and photograph it too (`screenshot(name, ALL_THEMES)`). */
export const HC_LIGHT_THEME = { suffix: 'hcl', name: 'Default High Contrast Light', base: 'hc-light', kind: 'vscode-high-contrast-light' };

/** Every theme: high contrast light first, so the default theme stays last. */
export const ALL_THEMES = [HC_LIGHT_THEME, ...SCREENSHOT_THEMES];

// Generous: on a loaded machine the fixture's settings write can lag behind (one run here took over 15 s).
const THEME_SWITCH_TIMEOUT_MS = 30000;
const THEME_REQUEST_AGAIN_MS = 3000;

/**
 * Sets `theme` (themeName '' : VS Code's default) and waits until the workbench and every webview
 * on the page show it. The request goes to the theme-switch fixture extension
 * (test/e2e/fixtures/theme-switch) through `requestFile`; it is repeated when the workbench has
 * not switched after a while (the fixture polls the file's modification time).
 */
async function switchTheme(page, requestFile, theme, themeName = theme.name) {
  const workbenchIs = () =>
    page.evaluate((base) => document.querySelector('.monaco-workbench')?.classList.contains(base) ?? false, theme.base);
  const t0 = Date.now();
  for (;;) {
    writeFileSync(requestFile, themeName + '\n');
    const switched = await page
      .waitForFunction((base) => document.querySelector('.monaco-workbench')?.classList.contains(base) ?? false, theme.base, {
        timeout: THEME_REQUEST_AGAIN_MS,
      })
      .then(() => true)
      .catch(() => false);
    if (switched) break;
    if (Date.now() - t0 > THEME_SWITCH_TIMEOUT_MS) throw new Error(`the workbench did not switch to ${theme.name}`);
  }
  // Webviews get the theme by a message from the workbench: wait for each shown one's body. A
  // webview in a background tab (no size) may get the message only when it is shown again.
  // A late write of an earlier request (another window's extension host, slow under load) can
  // switch the workbench back meanwhile: then the request is made again.
  const t1 = Date.now();
  let requestedAt = Date.now();
  for (;;) {
    const kinds = await Promise.all(
      page
        .frames()
        .map((f) =>
          f
            .evaluate(() => (window.innerWidth > 0 ? (document.body?.getAttribute('data-vscode-theme-kind') ?? null) : null))
            .catch(() => null),
        ),
    );
    const onTheme = await workbenchIs().catch(() => false);
    if (onTheme && kinds.every((k) => k === null || k === theme.kind)) break;
    if (Date.now() - t1 > THEME_SWITCH_TIMEOUT_MS) {
      throw new Error(`webviews did not switch to ${theme.name}: ${kinds.join(', ')} (workbench ${onTheme ? 'switched' : 'not switched'})`);
    }
    if (!onTheme && Date.now() - requestedAt > THEME_REQUEST_AGAIN_MS) {
      writeFileSync(requestFile, themeName + '\n');
      requestedAt = Date.now();
    }
    await page.waitForTimeout(100);
  }
  // One more frame for the new colours to be painted.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/**
 * Saves one screenshot per theme of SCREENSHOT_THEMES as `<pathBase>--<suffix>.png`, switching
 * the theme without a reload (the page state stays as it is); the last one is VS Code's default
 * look and stays set. Returns the files written.
 */
export async function screenshotInThemes(page, { themeRequestFile, pathBase, themes = SCREENSHOT_THEMES }) {
  const files = [];
  for (const theme of themes) {
    await switchTheme(page, themeRequestFile, theme);
    const file = `${pathBase}--${theme.suffix}.png`;
    await page.screenshot({ path: file });
    files.push(file);
  }
  // The last theme taken is VS Code's default look (Default Dark Modern) and stays set: unsetting
  // it left the workbench light in loaded runs (VS Code's choice of a theme for no setting is not
  // ours to wait for).
  return files;
}

/** Runs `fn` with the theme of ALL_THEMES whose suffix is `suffix`, then goes back to the default theme. */
export async function withTheme(page, { themeRequestFile, suffix }, fn) {
  const theme = ALL_THEMES.find((t) => t.suffix === suffix);
  if (!theme) throw new Error(`no screenshot theme "${suffix}"`);
  await switchTheme(page, themeRequestFile, theme);
  try {
    return await fn();
  } finally {
    // Back as screenshotInThemes leaves it: the last theme (VS Code's default look).
    await switchTheme(page, themeRequestFile, SCREENSHOT_THEMES[SCREENSHOT_THEMES.length - 1]);
  }
}

/** The UI instance's store home (scripts/e2e.mjs storeHome('e2e-ui')). */
export const UI_STORE_HOME = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'e2e', 'store-home-e2e-ui');

/** `agent-memory <args> --json` against the workspace's store: a client of the window's engine. */
export async function cli(workspace, ...args) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'cli.js'), ...args, '--workspace', workspace, '--json'],
    { env: { ...process.env, AGENT_MEMORY_HOME: UI_STORE_HOME }, timeout: 60000 },
  );
  return JSON.parse(stdout);
}

/** Deletes every live memory of both stores (UI tests share one store home; a test that needs an empty store calls this). */
export async function deleteAllMemories(workspace) {
  for (const scope of ['project', 'global']) {
    for (;;) {
      const page = await cli(workspace, 'list', '--scope', scope, '--limit', '100');
      if (!page.items.length) break;
      for (const m of page.items) await cli(workspace, 'delete', m.id);
    }
  }
}

/** What the window shows now (a failed test's report): toasts, an open quick input, editor tabs. */
export async function shownInWindow(page) {
  return page.evaluate(() => {
    const text = (sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean);
    return {
      toasts: text('.notifications-toasts .notification-toast'),
      quickInput: text('.quick-input-widget:not([style*="display: none"])'),
      tabs: text('.tabs-container .tab .label-name'),
    };
  });
}

/**
 * A folder `<workspace>-<name>` that is a clone of project `project` (its git origin), so a test
 * that opens it has a store of its own and a fresh workbench layout (VS Code keeps view sizes per
 * folder): windows earlier tests left behind (code-server keeps a closed window's extension host
 * for a while) hold the sample project's store, never this one.
 */
export function ownProjectFolder(workspace, name, project) {
  const dir = `${workspace}-${name}`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, '.git'), { recursive: true });
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, '.git', 'config'), `[remote "origin"]\n\turl = https://github.com/example-org/${project}.git\n`);
  writeFileSync(join(dir, 'README.md'), `# ${project}, ${name}\n`);
  return dir;
}

/** Waits until the window's engine is ready: the status bar item counts memories. */
export async function engineReady(page, { timeoutMs = 60000 } = {}) {
  await page
    .locator('.statusbar-item', { hasText: /Memory: \d+/ })
    .first()
    .waitFor({ state: 'visible', timeout: timeoutMs });
}

/** Opens `folder` in `page` (the harness's URL opens the sample workspace) and waits for its engine. */
export async function openFolder(page, url, folder) {
  await page.goto(url.replace(/folder=[^&]*/, `folder=${encodeURIComponent(folder)}`));
  await waitForWorkbench(page);
  await engineReady(page);
}

/** The lines of every "Agent Memory" output log of the instance (every window's extension host) logged since `sinceMs`. */
export function agentMemoryLogsSince(server, sinceMs) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = join(d, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith('Agent Memory.log') && statSync(f).mtimeMs >= sinceMs) out.push(readFileSync(f, 'utf8'));
    }
  };
  const logs = join(server.userDataDir, 'logs');
  if (existsSync(logs)) walk(logs);
  // Each line starts with its time: [2026-11-28T06:43:32.929Z].
  return out
    .join('\n')
    .split('\n')
    .filter((l) => Date.parse(l.slice(1, 25)) >= sinceMs);
}
