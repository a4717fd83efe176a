// @tier durability
// Kill the owner mid-delivery (docs/changes.md "Delivery"): a real `agent-memory` process owns
// the store and is sending a webhook delivery the receiver holds open when it is killed with
// SIGKILL. The changes were acknowledged to other processes before; the next owner sends every
// one of them, the interrupted one again under the same delivery id (at least once, never
// lost), in the feed's order, each signed with the secret.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WebhookDelivery } from '../../../../src/engine/protocol';
import { tmpDir } from '../../../helpers/tmp';
import { fakeClone } from '../../../helpers/clones';
import { CLI_TS, ROOT, runCli } from '../../../helpers/cliProcess';
import { WebhookReceiver } from '../../../helpers/webhookReceiver';

/** `agent-memory events --follow` keeps an engine open: started first, it owns the store. */
function startOwner(ws: string, env: Record<string, string>): { proc: ChildProcess; owns: Promise<void>; exited: Promise<unknown> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', CLI_TS, 'events', '--follow', '--verbose', '--workspace', ws], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const owns = new Promise<void>((resolve, reject) => {
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      if (err.includes('store owned by this process')) resolve();
      if (err.includes('connected as a client')) reject(new Error(`not the owner: ${err}`));
    });
    proc.on('exit', () => reject(new Error(`the owner ended before it owned the store: ${err}`)));
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return { proc, owns, exited };
}

test('the owner killed mid-delivery: the next owner delivers every change, at least once, in order', { timeout: 240_000 }, async (t) => {
  const receiver = await WebhookReceiver.start('unknown yet');
  t.after(() => receiver.close());
  const root = tmpDir('am-webhook-crash-');
  const ws = fakeClone(root, 'repo');
  const yaml = ['embedding:', '  provider: hash', 'webhooks:', '  endpoints:', '    - name: ci', `      url: ${receiver.url}`];
  // Long enough that the held-open attempt is still under way when the owner is killed.
  fs.writeFileSync(path.join(ws, 'agent.yaml'), [...yaml, '  timeout: 2m', '  retryDelay: 200ms', ''].join('\n'));
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const cli = (...args: string[]) => runCli([...args, '--workspace', ws, '--json'], env);

  const first = startOwner(ws, env);
  t.after(() => first.proc.kill('SIGKILL'));
  await first.owns;
  const made = await cli('webhooks', 'secret', 'ci');
  assert.equal(made.code, 0, made.stderr);
  receiver.secret = (JSON.parse(made.stdout) as { secret: string }).secret;

  receiver.enqueue({ hang: true }); // the first delivery is held open
  const ids: string[] = [];
  for (const text of ['The API gateway times out after 29 seconds.', 'Feature flags live in LaunchDarkly.', 'Use pnpm, never npm.']) {
    const r = await cli('add', text);
    assert.equal(r.code, 0, `acknowledged (stderr: ${r.stderr})`);
    ids.push((JSON.parse(r.stdout) as { memory: { id: string } }).memory.id);
  }
  await receiver.until(() => receiver.received.length >= 1, 60_000);
  const interrupted = receiver.received[0]!;
  assert.equal(interrupted.answered, undefined, 'the first attempt is still open');
  first.proc.kill('SIGKILL');
  await first.exited;

  // The next owner: it sends what the killed one had not recorded as delivered.
  const second = startOwner(ws, env);
  t.after(() => second.proc.kill('SIGKILL'));
  await second.owns;
  await receiver.until(() => new Set(receiver.delivered.map((r) => r.body.id)).size === 3, 120_000);

  const delivered = receiver.delivered;
  assert.deepEqual(
    delivered.map((r) => [r.body.event.cursor, r.body.event.memoryId]),
    ids.map((id, i) => [i + 1, id]),
    'each change delivered, in the order of the feed',
  );
  assert.equal(delivered[0]!.body.id, interrupted.body.id, 'the interrupted delivery is sent again under its id');
  assert.ok(
    receiver.received.every((r) => r.verified),
    'every attempt is signed with the secret',
  );
  const list = await cli('webhooks', 'deliveries');
  assert.equal(list.code, 0, list.stderr);
  const rows = (JSON.parse(list.stdout) as { deliveries: WebhookDelivery[] }).deliveries;
  assert.deepEqual(
    rows.map((d) => [d.cursor, d.status]),
    [
      [3, 'delivered'],
      [2, 'delivered'],
      [1, 'delivered'],
    ],
  );
  second.proc.kill('SIGINT');
  await second.exited;
});
