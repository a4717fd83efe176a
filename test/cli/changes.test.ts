// @tier process
// `agent-memory events` and `agent-memory webhooks` as real processes (docs/changes.md): the
// feed after a cursor as one JSON object, --follow printing a change made by another process as
// it comes and ending cleanly on Ctrl+C (SIGINT), and the webhooks' list, signing secret, test
// event and deliveries against a real receiver on 127.0.0.1 that checks the signature itself.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { ChangeEvent, ChangePage, WebhookDelivery, WebhooksOverview } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { CLI_TS, ROOT, runCli, type CliRun } from '../helpers/cliProcess';
import { WebhookReceiver } from '../helpers/webhookReceiver';

function json<T>(r: CliRun): T {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout) as T;
}

function workspace(yaml: string) {
  const root = tmpDir('am-cli-changes-');
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), yaml);
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  return { ws, env, cli: (...args: string[]) => runCli([...args, '--workspace', ws], env) };
}

test('events: the feed after a cursor, and --follow prints what another process changes until Ctrl+C', { timeout: 120_000 }, async () => {
  const { ws, env, cli } = workspace('embedding:\n  provider: hash\n');
  const a = json<{ memory: { id: string } }>(await cli('add', 'Integration tests need the docker daemon running locally.', '--json'));
  const b = json<{ memory: { id: string } }>(await cli('add', 'Release tags are signed with the team GPG key.', '--json'));
  json(await cli('delete', a.memory.id, '--json'));

  const all = json<ChangePage>(await cli('events', '--json'));
  assert.deepEqual(
    all.events.map((e) => [e.cursor, e.type, e.memoryId, e.actor]),
    [
      [1, 'memory.created', a.memory.id, 'user'],
      [2, 'memory.created', b.memory.id, 'user'],
      [3, 'memory.deleted', a.memory.id, 'user'],
    ],
  );
  assert.ok(!JSON.stringify(all).includes('docker'), 'no memory text in the feed');
  const after = json<ChangePage>(await cli('events', '--since', '2', '--json'));
  assert.deepEqual(
    after.events.map((e) => e.cursor),
    [3],
  );
  const text = await cli('events', '--limit', '2');
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^1 {2}\S+ {2}created \S+ \(version 1, project, by user\)$/m);
  assert.match(text.stdout, /more changes follow: agent-memory events --since 2/);
  const bad = await cli('events', '--since', 'x');
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since: must be a whole number from 0/);

  // --follow from the newest change: only what comes next.
  const follower = spawn(process.execPath, ['--import', 'tsx', CLI_TS, 'events', '--follow', '--json', '--workspace', ws], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  follower.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  follower.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => follower.on('close', (code) => resolve(code)));
  try {
    // Changes made by other processes until the follower prints one (it may still be starting).
    const deadline = Date.now() + 60_000;
    const made: string[] = [];
    while (!out.includes('\n')) {
      assert.ok(Date.now() < deadline, `the follower printed nothing (stderr: ${err})`);
      made.push(
        json<{ memory: { id: string } }>(await cli('add', `Deploy window number ${made.length + 1} is Tuesday morning.`, '--json')).memory
          .id,
      );
      await new Promise((r) => setTimeout(r, 500));
    }
    const first = JSON.parse(out.split('\n')[0]!) as ChangeEvent;
    assert.equal(first.type, 'memory.created');
    assert.ok(made.includes(first.memoryId), 'a change made by another process, not an older one');
    assert.ok(first.cursor > 3);
  } finally {
    follower.kill('SIGINT');
  }
  assert.equal(await exited, 0, `Ctrl+C ends it cleanly (stderr: ${err})`);
  const printed = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ChangeEvent);
  for (const e of printed) assert.equal(e.type, 'memory.created');
  // Where it stopped, for the next --since: the last line on stderr (a JSON object with --json).
  const stopped = JSON.parse(err.trim().split('\n').at(-1)!) as { cursor: number };
  assert.equal(stopped.cursor, printed.at(-1)!.cursor);
});

test('webhooks: list, signing secret, test event, deliveries and failures', { timeout: 120_000 }, async (t) => {
  const receiver = await WebhookReceiver.start('unknown yet');
  t.after(() => receiver.close());
  const { cli } = workspace(
    ['embedding:', '  provider: hash', 'webhooks:', '  endpoints:', '    - name: ci', `      url: ${receiver.url}`, ''].join('\n'),
  );
  let list = json<WebhooksOverview>(await cli('webhooks', '--json'));
  assert.deepEqual(
    list.webhooks.map((w) => [w.name, w.state]),
    [['ci', 'needs_secret']],
  );
  const listText = await cli('webhooks', 'list');
  assert.match(listText.stdout, /^ci {2}http:\/\/127\.0\.0\.1:\d+\/\S* {2}\(every change; no signing secret yet: nothing is sent;/m);

  const secret = json<{ secret: string; created: boolean }>(await cli('webhooks', 'secret', 'ci', '--json'));
  assert.equal(secret.created, true);
  receiver.secret = secret.secret;
  list = json<WebhooksOverview>(await cli('webhooks', 'list', '--json'));
  assert.equal(list.webhooks[0]!.state, 'active');

  const sent = json<WebhookDelivery>(await cli('webhooks', 'test', 'ci', '--json'));
  assert.equal(sent.status, 'delivered');
  assert.equal(receiver.received.length, 1);
  assert.ok(receiver.received[0]!.verified, 'the receiver checked the signature with the secret printed');
  assert.equal(receiver.received[0]!.body.event.type, 'webhook.test');

  receiver.enqueue({ status: 500, body: 'the receiver is down' });
  const failed = await cli('webhooks', 'test', 'ci');
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /the test event was not delivered: .*answered 500: the receiver is down/);

  const deliveries = json<{ deliveries: WebhookDelivery[] }>(await cli('webhooks', 'deliveries', '--json')).deliveries;
  assert.deepEqual(
    deliveries.map((d) => [d.webhook, d.eventType, d.status]),
    [
      ['ci', 'webhook.test', 'dead'],
      ['ci', 'webhook.test', 'delivered'],
    ],
  );
  const onlyFailed = await cli('webhooks', 'deliveries', '--failed');
  assert.equal(onlyFailed.code, 0, onlyFailed.stderr);
  assert.equal(onlyFailed.stdout.trim().split('\n').length, 1);
  assert.match(onlyFailed.stdout, /ci {2}webhook\.test {2}dead after 1 attempt: .*answered 500/);

  const unknown = await cli('webhooks', 'test', 'nope');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /No webhook named "nope" is configured \(there are: ci\)/);
  const usage = await cli('webhooks', 'frobnicate');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /webhooks: unknown action "frobnicate" \(one of list, deliveries, test, secret, retry\)/);
});
