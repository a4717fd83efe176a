// UI tests of encryption at rest as a person meets it in VS Code (docs/encryption.md), with no
// keychain (scripts/e2e.mjs turns it off), so keys are kept in the key file a person chooses — the
// same stand-in the encryption tests use. (1) A store encrypted, its key removed from the key store:
// the window says so with an "Import Recovery Key…" button; the recovery key, typed into the
// password box, opens the store again. (2) Where no keychain answers and no key file was chosen, the
// notice that new stores are written plain is said once at start-up, not on the next start.
// Each test opens a project folder of its own: its own store, and no window of an earlier test owns it.
// Screenshots: test-artifacts/e2e/encryption--*.png.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  SCREENSHOT_THEMES,
  agentMemoryLogsSince,
  cli,
  engineReady,
  openFolder,
  openViewContainer,
  ownProjectFolder,
  runCommand,
  treeRow,
  waitForNotification,
} from './workbench.mjs';

const LIGHT_DARK = [SCREENSHOT_THEMES[0], SCREENSHOT_THEMES.at(-1)];
const PLAIN_NOTICE = 'No system keychain answers on this machine';

/** Files under `dir` whose bytes hold `needle`. */
function holding(dir, needle) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => readFileSync(f).includes(Buffer.from(needle)));
}

/** Waits until a window's Agent Memory log has a line matching `re`, logged since `sinceMs`. */
async function untilLogged(page, server, sinceMs, re, timeoutMs = 60000) {
  const t0 = Date.now();
  while (!agentMemoryLogsSince(server, sinceMs).some((l) => re.test(l))) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`no log line matching ${re} within ${timeoutMs} ms`);
    await page.waitForTimeout(250);
  }
}

/**
 * The next start of the extension: the window is closed and the folder opened in a new one (as the
 * harness starts each test; a reloaded window left the theme switch of the next test undone).
 */
async function startAgain(previous, url, folder) {
  const next = await previous.context().newPage();
  await previous.close();
  await openFolder(next, url, folder);
  return next;
}

export const timeouts = {
  'Import Recovery Key…: a store whose key is gone says so with the button; the recovery key opens it': 240_000,
  'the plain-store notice is said once at start-up, not on the next start': 240_000,
};

export const tests = {
  async 'Import Recovery Key…: a store whose key is gone says so with the button; the recovery key opens it'({
    page,
    screenshot,
    url,
    workspace,
  }) {
    const folder = ownProjectFolder(workspace, 'recovery', 'encryption-recovery-test');
    let keyFile;
    try {
      await openFolder(page, url, folder);
      const phrase = 'vault-otter staging cluster';
      const made = await cli(folder, 'add', `Recovery test: the ${phrase} is rebuilt every Tuesday.`, '--title', 'vault-otter rebuilds');
      // Encrypted with the key in the key file (no keychain here), as "Enable Encryption…" → "Keep the Key in a File" does.
      const on = await cli(folder, 'encryption', 'enable', '--key-file', '--scope', 'project');
      const project = on.stores.find((s) => s.store === 'project');
      assert.ok(project.encrypted, 'the project store is encrypted');
      assert.equal(on.keyFile.inUse, true);
      keyFile = on.keyFile.path;
      assert.deepEqual(holding(project.dir, phrase), [], 'no file of the store holds the memory in the clear');
      const { recoveryKey } = await cli(folder, 'encryption', 'export-recovery-key');
      assert.match(recoveryKey, /^AMRK-/);

      // The key leaves the key store (a new machine, a lost key file); the engine starts again.
      rmSync(keyFile);
      await runCommand(page, 'Agent Memory: Restart Engine');
      const error = await waitForNotification(page, 'The memory store is encrypted and its key is not on this machine', {
        timeoutMs: 60000,
      });
      assert.match(await error.innerText(), /Import its recovery key to open it\./);
      assert.doesNotMatch(await error.innerText(), /store_key_missing|agent-memory encryption|\([0-9a-f]{16}\)/, 'no code, id or CLI line');
      const importButton = error.locator('.monaco-button', { hasText: 'Import Recovery Key…' }).first();
      await importButton.waitFor({ state: 'visible', timeout: 10000 });
      // Nothing was opened as empty: the engine stopped, and the status bar says so.
      await openViewContainer(page, 'Agent Memory');
      await page.locator('.statusbar-item', { hasText: 'Memory: stopped' }).first().waitFor({ state: 'visible', timeout: 20000 });
      await screenshot('key-missing', LIGHT_DARK);

      // The button asks for the recovery key in a password box; a mistyped key is caught there.
      await importButton.click();
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 15000 });
      assert.equal(await input.getAttribute('type'), 'password');
      // Under the box: its prompt, or what is wrong with what was typed.
      const message = page.locator('.quick-input-widget .quick-input-message').first();
      const prompt = 'it starts with AMRK-';
      // Read from the page each time: the quick input draws its message element anew.
      const messageText = () => document.querySelector('.quick-input-widget .quick-input-message')?.textContent ?? '';
      await page.waitForFunction(`(${messageText})().includes('it starts with AMRK-')`, undefined, { timeout: 20000 });
      // One character of the key itself mistyped (the last character also carries two padding bits: an
      // 'A' typed as 'B' there is still the same key), which the key's checksum catches.
      const at = 'AMRK-'.length + 2;
      const mistyped = recoveryKey.slice(0, at) + (recoveryKey[at] === 'A' ? 'B' : 'A') + recoveryKey.slice(at + 1);
      const answered = `((t) => t.trim() && !t.includes('it starts with AMRK-'))((${messageText})())`;
      await input.fill(mistyped);
      for (let attempt = 1; ; attempt++) {
        // The extension host checks each value; on a loaded machine its answer can take seconds.
        const ok = await page.waitForFunction(answered, undefined, { timeout: 10000 }).then(
          () => true,
          () => false,
        );
        if (ok) break;
        assert.ok(attempt < 4, 'a mistyped recovery key gets an answer under the box');
        // No answer yet: change the value once more without emptying the box (a value set before the
        // box listened for changes is not checked; emptying it would bring the prompt back).
        await input.press('End');
        await input.type('x', { delay: 20 });
        await input.press('Backspace');
      }
      console.log(`    a mistyped recovery key: "${(await message.innerText()).trim()}"`);
      await screenshot('recovery-key-mistyped', LIGHT_DARK);
      await input.fill(recoveryKey);
      await page.waitForFunction(
        (p) => document.querySelector('.quick-input-widget .quick-input-message')?.textContent.includes(p),
        prompt,
        {
          timeout: 10000,
        },
      );
      await page.keyboard.press('Enter');

      // No keychain answers: it asks before keeping the key in a file only the user can read.
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 15000 });
      assert.match(await dialog.innerText(), /No system keychain answers here/);
      await screenshot('keep-key-in-file', LIGHT_DARK);
      await dialog.locator('.monaco-button', { hasText: 'Keep the Key in a File' }).first().click();
      await waitForNotification(page, 'The recovery key is kept in the key file; the memory store opens with it now.', {
        timeoutMs: 60000,
      });

      // The store opens with it: the memory is there, in the view and for the CLI.
      await engineReady(page);
      await treeRow(page, 'vault-otter rebuilds').waitFor({ state: 'visible', timeout: 30000 });
      assert.ok(existsSync(keyFile), 'the key is kept in the key file again');
      assert.equal(statSync(keyFile).mode & 0o777, 0o600);
      const got = await cli(folder, 'get', made.memory.id);
      assert.match(got.content, /vault-otter staging cluster is rebuilt every Tuesday/);
      const status = await cli(folder, 'encryption', 'status');
      assert.ok(status.stores.find((s) => s.store === 'project').encrypted, 'still encrypted');
      await page.locator('.monaco-workbench .part.editor').first().hover();
      await screenshot('store-opened', LIGHT_DARK);
    } finally {
      // The UI tests share one store home (and its key file): leave it as it was, plain and without a key file.
      await cli(folder, 'encryption', 'disable', '--scope', 'project').catch(() => {});
      if (keyFile) rmSync(keyFile, { force: true });
      rmSync(folder, { recursive: true, force: true });
    }
  },

  async 'the plain-store notice is said once at start-up, not on the next start'({ page, screenshot, server, url, workspace }) {
    const folder = ownProjectFolder(workspace, 'notice', 'encryption-notice-test');
    let keyFile;
    let win = page;
    try {
      await openFolder(page, url, folder);
      // A start where new stores are encrypted (a key file was chosen) has nothing to say, and
      // forgets that it was said: an earlier test's window may have said it already.
      const on = await cli(folder, 'encryption', 'enable', '--key-file', '--scope', 'project');
      keyFile = on.keyFile.path;
      let since = Date.now();
      win = await startAgain(win, url, folder);
      await untilLogged(win, server, since, /encryption: new stores are encrypted/);

      // No keychain and no key file again: the next start says so, with Enable Encryption….
      await cli(folder, 'encryption', 'disable', '--scope', 'project');
      rmSync(keyFile);
      since = Date.now();
      win = await startAgain(win, url, folder);
      const notice = await waitForNotification(win, PLAIN_NOTICE, { timeoutMs: 60000 });
      assert.match(await notice.innerText(), /so new memory stores are not encrypted and this window's memory is written plain\./);
      await notice.locator('.monaco-button', { hasText: 'Enable Encryption…' }).first().waitFor({ state: 'visible', timeout: 10000 });
      await untilLogged(win, server, since, new RegExp(`encryption: ${PLAIN_NOTICE}.*Keep the Key in a File"\\.$`));
      await screenshot('plain-notice', LIGHT_DARK, win);

      // The start after that: the window decides (its log says so) and shows nothing.
      since = Date.now();
      win = await startAgain(win, url, folder);
      await untilLogged(win, server, since, /encryption: No system keychain answers.*\(said at an earlier start: not shown again\)$/);
      await win.waitForTimeout(1500); // a toast would be on screen by now
      assert.equal(await win.locator('.notifications-toasts .notification-toast', { hasText: PLAIN_NOTICE }).count(), 0, 'not said again');
      await screenshot('next-start-quiet', LIGHT_DARK, win);
    } finally {
      await cli(folder, 'encryption', 'disable', '--scope', 'project').catch(() => {});
      if (keyFile) rmSync(keyFile, { force: true });
      rmSync(folder, { recursive: true, force: true });
      if (win !== page) await win.close().catch(() => {});
    }
  },
};
