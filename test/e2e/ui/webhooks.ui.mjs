// UI test of the Webhooks view (docs/changes.md "In VS Code") with a real local receiver that
// checks every signature: the view appears once agent.yaml configures a webhook, says that nothing
// is sent before its signing secret exists, Copy Signing Secret makes one (after asking), Send
// Test Event reaches the receiver, a change is delivered and listed, a failure shows in the view
// and Retry Failed Deliveries sends it again under the same delivery id; the view goes away with
// the configuration. Screenshots: test-artifacts/e2e/webhooks--*.png.
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, openViewContainer, treeRow, waitForNotification } from './workbench.mjs';

/** A webhook receiver on 127.0.0.1: answers each request with the next queued status (200 when none), checks signatures. */
async function startReceiver() {
  const r = { secret: '', answers: [], received: [] };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const ts = String(req.headers['x-agent-memory-timestamp'] ?? '');
      const given = Buffer.from(String(req.headers['x-agent-memory-signature'] ?? ''));
      const expected = Buffer.from(`sha256=${createHmac('sha256', r.secret).update(`${ts}.${body}`).digest('hex')}`);
      const verified = given.length === expected.length && timingSafeEqual(given, expected);
      const status = r.answers.shift() ?? 200;
      r.received.push({ id: req.headers['x-agent-memory-delivery'], body: JSON.parse(body), verified, status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver down for maintenance');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${server.address().port}/agent-memory`;
  r.close = () => new Promise((resolve) => server.close(resolve));
  return r;
}

const pane = (page) => page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^\s*webhooks/i }) }).first();

async function until(page, predicate, what, timeoutMs = 30000) {
  const t0 = Date.now();
  while (!(await predicate())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(250);
  }
}

/** Collapses the Agent Memory container's other views (so the Webhooks view has room); returns a function that expands them again. */
async function focusWebhooksView(page) {
  const headers = page.locator('.pane-header[aria-expanded="true"]').filter({ hasNotText: /^\s*webhooks/i });
  const collapsed = [];
  for (const title of await headers.allInnerTexts()) {
    const name = title.split('\n')[0].trim();
    const header = page.locator('.pane-header[aria-expanded="true"]', { hasText: name }).first();
    if (!name || !(await header.isVisible())) continue;
    await header.click();
    collapsed.push(name);
  }
  return async () => {
    for (const name of collapsed) {
      const header = page.locator('.pane-header[aria-expanded="false"]', { hasText: name }).first();
      if (await header.isVisible()) await header.click();
    }
  };
}

/** Clicks the inline action of `row` whose label starts with `label` (actions show on hover). */
async function inlineAction(row, label) {
  await row.hover();
  await row.locator(`.action-label[aria-label^="${label}"]`).click();
}

export const timeouts = { 'the Webhooks view shows state, deliveries and failures; its actions test, make the secret and retry': 180_000 };

export const tests = {
  async 'the Webhooks view shows state, deliveries and failures; its actions test, make the secret and retry'({
    page,
    screenshot,
    workspace,
  }) {
    const receiver = await startReceiver();
    const agentYaml = join(workspace, 'agent.yaml');
    const before = existsSync(agentYaml) ? readFileSync(agentYaml, 'utf8') : undefined;
    let restoreLayout = async () => {};
    // One attempt, then dead: a failure shows at once.
    writeFileSync(agentYaml, `webhooks:\n  endpoints:\n    - name: team-bot\n      url: ${receiver.url}\n  maxAttempts: 1\n`);
    try {
      await openViewContainer(page, 'Agent Memory');
      const view = pane(page);
      await view.waitFor({ state: 'visible', timeout: 30000 }); // shown once a webhook is configured
      const header = view.locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
      restoreLayout = await focusWebhooksView(page);
      const hook = treeRow(view, 'team-bot');
      await hook.waitFor({ state: 'visible', timeout: 20000 });
      assert.match(await hook.innerText(), /no secret: nothing is sent/);
      await hook.click(); // expands: the row that says what to do
      await treeRow(view, 'Nothing is sent until it has a signing secret').waitFor({ state: 'visible', timeout: 10000 });
      await screenshot('needs-secret');

      // Copy Signing Secret asks first: making it starts sending to the URL.
      await inlineAction(hook, 'Copy Webhook Signing Secret');
      const dialog = page.locator('.monaco-dialog-box').first();
      await dialog.waitFor({ state: 'visible', timeout: 10000 });
      assert.match(
        await dialog.innerText(),
        new RegExp(`team-bot has no signing secret yet, so nothing is sent to it\\. Make one and copy it\\?`),
      );
      assert.ok((await dialog.innerText()).includes(receiver.url), 'the question names where changes will go');
      await screenshot('make-secret-question');
      await dialog.locator('.monaco-button', { hasText: 'Make and Copy Secret' }).click();
      const made = await waitForNotification(page, 'Made a signing secret for team-bot and copied it');
      // The keychain is off in the e2e runs (AGENT_MEMORY_KEYCHAIN=off): the notification says where it is instead.
      assert.match(await made.innerText(), /kept in a file only you can read: .*webhooks\.json \(no keychain answers here/);
      // The same secret, asked again (the CLI is a client of this window's engine): the view made it.
      const secret = await cli(workspace, 'webhooks', 'secret', 'team-bot');
      assert.equal(secret.created, false);
      receiver.secret = secret.secret;
      await until(page, async () => /\d+ delivered/.test(await hook.innerText()), 'the webhook to be active');

      // Send Test Event reaches the receiver, signed.
      await inlineAction(hook, 'Send Webhook Test Event');
      await waitForNotification(page, 'The test event reached team-bot (it answered 200).');
      assert.equal(receiver.received.length, 1);
      assert.equal(receiver.received[0].body.event.type, 'webhook.test');
      assert.ok(receiver.received[0].verified, 'the receiver checked the signature with the copied secret');
      await treeRow(view, 'Test event').waitFor({ state: 'visible', timeout: 20000 });

      // A change is delivered and listed under the webhook (the view follows webhooks.delivery).
      await cli(workspace, 'add', 'Webhooks UI test: the release train leaves every second Thursday.');
      await until(page, () => receiver.received.length === 2, 'the change to be delivered');
      assert.equal(receiver.received[1].body.event.type, 'memory.created');
      assert.ok(receiver.received[1].verified);
      const created = treeRow(view, 'Memory created (change');
      await created.waitFor({ state: 'visible', timeout: 20000 });
      await until(page, async () => /delivered/.test(await created.innerText()), 'the delivered row');

      // The container's badge adds up its views' badges (earlier tests may have left a suggestion
      // or a review waiting): the failure adds one to what it shows now.
      const entry = page.locator('.activitybar .action-item', { has: page.locator('a[aria-label^="Agent Memory"]') }).first();
      const badge = entry.locator('.badge-content').first();
      const badgeCount = async () => ((await badge.isVisible()) ? Number((await badge.innerText()).trim()) || 0 : 0);
      const before = await badgeCount();

      // The receiver fails: the delivery dies after its one attempt and shows as a failure.
      receiver.answers.push(500);
      await cli(workspace, 'add', 'Webhooks UI test: the staging database is refreshed from production on Sundays.');
      await until(page, () => receiver.received.length === 3, 'the failing attempt');
      const failedRow = view.locator('.monaco-list-row', { hasText: 'failed after 1 attempt' }).first();
      await failedRow.waitFor({ state: 'visible', timeout: 20000 });
      await until(page, async () => /1 failed/.test(await hook.innerText()), 'the failure on the webhook row');
      // The failure shows as a badge too, on the Agent Memory entry of the activity bar (the view may be collapsed).
      await until(page, async () => (await badgeCount()) === before + 1, 'the badge of the failed delivery');
      await failedRow.hover(); // title actions show while the pointer is over the view
      // The view's title offers Retry only while something failed.
      await view
        .locator('.pane-header .action-label[aria-label^="Retry Failed Webhook Deliveries"]')
        .waitFor({ state: 'visible', timeout: 10000 });
      await screenshot('failed-delivery');

      // Retry Failed Deliveries sends it again, under the same delivery id.
      await inlineAction(hook, 'Retry Failed Webhook Deliveries');
      await waitForNotification(page, '1 failed delivery to team-bot will be sent again now.');
      await until(page, () => receiver.received.length === 4, 'the retried delivery');
      assert.equal(receiver.received[3].id, receiver.received[2].id, 'the same delivery id: the receiver can drop repeats');
      assert.equal(receiver.received[3].status, 200);
      await until(page, async () => !/failed/.test(await hook.innerText()), 'the failure to clear');
      await failedRow.waitFor({ state: 'detached', timeout: 20000 });
      await until(page, async () => (await badgeCount()) === before, 'the badge to go with the failure');
      // The receiver answers before the owner records the answer: the row says "1 waiting" until then.
      await until(page, async () => /3 delivered/.test(await hook.innerText()), 'the retried delivery to be recorded');
      assert.match(await hook.innerText(), /^team-bot\s*3 delivered$/);
      await view
        .locator('.pane-header .action-label[aria-label^="Retry Failed Webhook Deliveries"]')
        .waitFor({ state: 'hidden', timeout: 10000 });
      await hook.hover();
      await screenshot('retried');
    } finally {
      await restoreLayout().catch(() => {});
      if (before === undefined) rmSync(agentYaml, { force: true });
      else writeFileSync(agentYaml, before);
      await receiver.close();
    }
    // Without webhooks configured, the view goes away.
    await pane(page).waitFor({ state: 'hidden', timeout: 30000 });
  },
};
