// UI test of reminders (docs/schedules.md) as a person meets them: "New Reminder…" as a two-step
// input that says what it understood while you type, then a one-shot (made from the CLI, a client
// of this window's engine) run by this window at its time, shown as a notification with Open,
// Snooze and Pause; Open shows the run as a document. Screenshots: test-artifacts/e2e/reminders--*.png.
import assert from 'node:assert/strict';
import { cli, runCommand, waitForNotification } from './workbench.mjs';

export const tests = {
  async 'New Reminder… reads "every Monday at 10" as a cadence and sets the reminder'({ page, screenshot, workspace }) {
    await runCommand(page, 'Agent Memory: New Reminder…');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('Tell me what changed in this project memory');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'When?' }).waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('every Monday at 10');
    const understood = page.locator('.quick-input-widget .quick-input-message', { hasText: 'every Monday at 10:00' });
    await understood.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await understood.innerText(), /every Monday at 10:00 \S+, next /);
    await screenshot('new-reminder-when');
    await input.fill('every 2 minutes');
    const refused = page.locator('.quick-input-widget .quick-input-message', { hasText: '5 minutes' });
    await refused.waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('new-reminder-refused');
    await input.fill('every Monday at 10');
    await understood.waitFor({ state: 'visible', timeout: 15000 });
    await page.keyboard.press('Enter');
    await waitForNotification(page, 'Reminder set: every Monday at 10:00');
    await screenshot('new-reminder-set');
    const list = await cli(workspace, 'schedule', 'list');
    const made = list.items.find((s) => s.goal === 'Tell me what changed in this project memory');
    assert.ok(made, 'the reminder is in the store');
    assert.equal(made.channelId, 'vscode');
    await cli(workspace, 'schedule', 'delete', made.id);
  },

  async 'a reminder runs at its time in this window, notified with Open and Snooze; a recurring one also with Pause; Open shows the run'({
    page,
    screenshot,
    workspace,
  }) {
    await cli(
      workspace,
      'add',
      'Reminders test: the new-checkout feature flag can go once the rollout reaches 100 %.',
      '--title',
      'new-checkout flag',
    );
    const button = (toast, action) => toast.locator('.monaco-button', { hasText: action }).first();
    // A one-shot due in 8 seconds: this window's engine (the store's owner) runs it at its time.
    const at = new Date(Date.now() + 8000).toISOString();
    const once = await cli(workspace, 'schedule', 'add', 'Remove the new-checkout feature flag', '--when', at, '--name', 'flag cleanup');
    const toast = await waitForNotification(page, 'Reminder “flag cleanup” ran', { timeoutMs: 90000 });
    await button(toast, 'Open').waitFor({ state: 'visible' });
    await button(toast, 'Snooze').waitFor({ state: 'visible' });
    assert.equal(await button(toast, 'Pause').count(), 0, 'a done one-shot has nothing to pause');
    const shown = await cli(workspace, 'schedule', 'show', once.id);
    assert.equal(shown.runs.length, 1, 'run once');
    assert.equal(shown.runs[0].notified, true, 'its notice was claimed by this window');
    await toast
      .locator('.codicon-notifications-clear')
      .first()
      .click()
      .catch(() => {});

    // A recurring reminder run now (from the terminal): Open, Snooze and Pause.
    const weekly = await cli(
      workspace,
      'schedule',
      'add',
      'What is left of the checkout rollout?',
      '--when',
      'every Monday at 10',
      '--name',
      'rollout check',
    );
    await cli(workspace, 'schedule', 'run', weekly.id);
    const again = await waitForNotification(page, 'Reminder “rollout check” ran', { timeoutMs: 60000 });
    for (const action of ['Open', 'Snooze', 'Pause']) await button(again, action).waitFor({ state: 'visible' });
    await again.hover();
    await screenshot('run-notification');
    await button(again, 'Open').click();
    const doc = page.locator('.monaco-editor .view-lines', { hasText: 'rollout check' }).first();
    await doc.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await doc.innerText(), /new-checkout/);
    await screenshot('run-document');
    await cli(workspace, 'schedule', 'delete', once.id);
    await cli(workspace, 'schedule', 'delete', weekly.id);
  },
};
