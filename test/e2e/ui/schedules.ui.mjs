// UI test of the Schedules view (docs/schedules.md "Where you meet them") as a person meets it: the
// welcome text with New Reminder… when there is none; a schedule (made from the CLI, a client of
// this window's engine) with its next run in words and its zone; Run Now (inline) runs it, its run
// shows below it and opens as a document; Pause (context menu) says why it is paused, Resume
// (inline) brings the next run back; Edit is the New Reminder steps filled in; Delete asks first.
// And the "Reminders…" picker of the palette. Screenshots: test-artifacts/e2e/schedules--*.png.
import assert from 'node:assert/strict';
import { SCREENSHOT_THEMES, cli, openViewContainer, runCommand, treeRow, waitForNotification } from './workbench.mjs';

/** Light and dark (the view's screenshot is taken in all three themes). */
const LIGHT_DARK = [SCREENSHOT_THEMES[0], SCREENSHOT_THEMES.at(-1)];

async function deleteAllSchedules(workspace) {
  for (const s of (await cli(workspace, 'schedule', 'list')).items) await cli(workspace, 'schedule', 'delete', s.id);
}

/** Opens the Schedules view, expanded (as sessions.ui.mjs opens the Sessions view). */
async function openSchedulesView(page) {
  await openViewContainer(page, 'Agent Memory');
  const header = page.locator('.pane-header', { hasText: /^Schedules/ }).first();
  await header.waitFor({ state: 'visible', timeout: 20000 });
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
  return page.locator('.pane', { has: header }).first();
}

const action = (row, label) => row.locator(`.action-label[aria-label^=${JSON.stringify(label)}]`).first();

async function contextMenu(page, row, item) {
  await row.click({ button: 'right' });
  const entry = page.locator('.context-view .action-item', { hasText: item }).first();
  await entry.waitFor({ state: 'visible', timeout: 10000 });
  await entry.click();
  if (await entry.isVisible().catch(() => false)) await page.keyboard.press('Enter');
}

export const timeouts = {
  'the Schedules view: next run in words and zone; Run Now, its run as a document; Pause, Resume, Edit; Delete asks': 240_000,
};

export const tests = {
  async 'the Schedules view: next run in words and zone; Run Now, its run as a document; Pause, Resume, Edit; Delete asks'({
    page,
    screenshot,
    workspace,
  }) {
    await deleteAllSchedules(workspace); // the UI tests share one store
    const pane = await openSchedulesView(page);
    const welcome = pane.locator('.welcome-view', { hasText: 'No schedules yet' }).first();
    await welcome.waitFor({ state: 'visible', timeout: 20000 });
    const newReminder = welcome.locator('.monaco-button', { hasText: 'New Reminder…' }).first();
    await newReminder.waitFor({ state: 'visible' });
    // That the button is whole when the view first opens is checked on a fresh layout (presence.ui.mjs
    // › "every view … has room"): in this window earlier tests have resized the views.
    await screenshot('empty', LIGHT_DARK);

    await cli(workspace, 'add', 'Schedules view test: the checkout rollout reached 100 % on Friday.', '--title', 'checkout rollout');
    const made = await cli(
      workspace,
      'schedule',
      'add',
      'What is left of the checkout rollout?',
      '--when',
      'every Monday at 10',
      '--timezone',
      'Europe/Berlin',
      '--name',
      'rollout check',
    );
    const row = treeRow(pane, 'rollout check');
    await row.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await row.innerText(), /next .*10:00 Europe\/Berlin/);

    // Run Now (inline): the run is recorded, told in a notification, and listed under the schedule.
    await row.hover();
    await action(row, 'Run Schedule Now').click();
    // One notification (the run's notice, its policy is "always"), with Open, Snooze and Pause.
    const toast = await waitForNotification(page, 'Reminder “rollout check” ran', { timeoutMs: 60000 });
    for (const a of ['Open', 'Snooze', 'Pause'])
      await toast.locator('.monaco-button', { hasText: a }).first().waitFor({ state: 'visible' });
    await page.waitForTimeout(1000); // a second notice would be shown by now
    assert.equal(
      await page.locator('.notifications-toasts .notification-toast', { hasText: 'rollout check' }).count(),
      1,
      'one notice of the run',
    );
    const twistie = row.locator('.monaco-tl-twistie.collapsible').first();
    await twistie.waitFor({ state: 'visible', timeout: 20000 });
    await twistie.click();
    const runRow = treeRow(pane, 'ran just now');
    await runRow.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await runRow.innerText(), /Relevant memories/, 'the run row shows what it said, not its goal again');
    await row.hover();
    await screenshot('view');
    await runRow.locator('.label-name').click();
    const doc = page.locator('.monaco-editor .view-lines', { hasText: 'rollout check' }).first();
    await doc.waitFor({ state: 'visible', timeout: 20000 });
    assert.match(await doc.innerText(), /ran\sjust\snow/); // the editor draws spaces as no-break spaces
    assert.match(await doc.innerText(), /checkout/);
    await screenshot('run-document', LIGHT_DARK);

    // Pause (context menu): the row says it is paused and why; Resume (inline) brings the next run back.
    await contextMenu(page, row, 'Pause Schedule');
    await row.filter({ hasText: 'Paused by a person' }).waitFor({ state: 'visible', timeout: 20000 });
    assert.equal((await cli(workspace, 'schedule', 'list')).items.find((s) => s.id === made.id)?.status, 'paused');
    await row.hover();
    await screenshot('paused', LIGHT_DARK);
    await row.hover();
    await action(row, 'Resume Schedule').click();
    await row.filter({ hasText: /next .*Europe\/Berlin/ }).waitFor({ state: 'visible', timeout: 20000 });

    // Edit (inline): the two steps filled in; a new "when" is read and stored.
    await row.hover();
    await action(row, 'Edit Schedule').click();
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await input.inputValue(), 'What is left of the checkout rollout?');
    await page.keyboard.press('Enter');
    await page.locator('.quick-input-widget', { hasText: 'When?' }).waitFor({ state: 'visible', timeout: 10000 });
    assert.equal(await input.inputValue(), '0 10 * * 1');
    await input.fill('every weekday at 09:00');
    const understood = page.locator('.quick-input-widget .quick-input-message', { hasText: 'every weekday at 09:00 Europe/Berlin' });
    await understood.waitFor({ state: 'visible', timeout: 15000 });
    await screenshot('edit-when', LIGHT_DARK);
    await page.keyboard.press('Enter');
    await row.filter({ hasText: /09:00 Europe\/Berlin/ }).waitFor({ state: 'visible', timeout: 20000 });
    const list = await cli(workspace, 'schedule', 'list');
    assert.equal(list.items.find((s) => s.id === made.id)?.cadence.expr, '0 9 * * 1-5');

    // Delete (inline) asks first: Cancel keeps it, Delete removes it and the welcome text comes back.
    const ask = async () => {
      await row.hover();
      await action(row, 'Delete Schedule').click();
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 10000 });
      assert.match(await dialog.innerText(), /Delete the reminder “rollout check” and its run history\?/);
      return dialog;
    };
    let dialog = await ask();
    await screenshot('delete-asks', LIGHT_DARK);
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).first().click();
    assert.ok(
      (await cli(workspace, 'schedule', 'list')).items.some((s) => s.id === made.id),
      'Cancel deletes nothing',
    );
    dialog = await ask();
    await dialog.locator('.monaco-button', { hasText: 'Delete' }).first().click();
    await welcome.waitFor({ state: 'visible', timeout: 20000 });
    assert.equal((await cli(workspace, 'schedule', 'list')).items.length, 0);
  },

  async 'the Schedules view: the Reminders… picker lists a schedule with its next run and pauses it'({ page, screenshot, workspace }) {
    await deleteAllSchedules(workspace);
    const made = await cli(
      workspace,
      'schedule',
      'add',
      'Check the nightly backup report',
      '--when',
      'every day at 8:30',
      '--timezone',
      'America/New_York',
      '--name',
      'backup report',
    );
    const pane = await openSchedulesView(page);
    const row = treeRow(pane, 'backup report');
    await row.waitFor({ state: 'visible', timeout: 20000 });

    await runCommand(page, 'Agent Memory: Reminders…');
    const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'backup report' }).first();
    await pick.waitFor({ state: 'visible', timeout: 15000 });
    assert.match(await pick.innerText(), /every day at 08:30 America\/New_York, next /);
    await screenshot('reminders-picker', LIGHT_DARK);
    await pick.click();
    const pause = page.locator('.quick-input-list .monaco-list-row', { hasText: /^Pause$/ }).first();
    await pause.waitFor({ state: 'visible', timeout: 10000 });
    const offered = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.deepEqual(
      offered.map((t) => t.trim()),
      ['Run history', 'Run now', 'Edit…', 'Pause', 'Delete'],
    );
    await pause.click();
    await row.filter({ hasText: 'Paused by a person' }).waitFor({ state: 'visible', timeout: 20000 });
    const shown = (await cli(workspace, 'schedule', 'list')).items.find((s) => s.id === made.id);
    assert.equal(shown.status, 'paused');
    await cli(workspace, 'schedule', 'delete', made.id);
  },
};
