// Webhooks through the engine (docs/changes.md "Webhooks"), against a real receiver on
// 127.0.0.1: a configured webhook sends nothing until its signing secret exists (and says so),
// then every change is delivered and listed; "Send test event"; dead deliveries retried; a
// webhook removed from the configuration has its pending deliveries cancelled; an untrusted
// workspace sends nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryEngine } from '../../../../src/engine/worker/engine';
import { createHandlers } from '../../../../src/engine/worker/handlers';
import type { EngineEvent, EngineMethod, ParamsOf, ResultOf } from '../../../../src/engine/protocol';
import { WebhookReceiver } from '../../../helpers/webhookReceiver';
import { engineDirs } from '../../harness';
import { until } from '../../../helpers/until';

const handlers = createHandlers({ allowDebug: false, exit: () => undefined });
const CALL = { requestId: 1, signal: new AbortController().signal, progress: () => undefined };

function call<M extends EngineMethod>(engine: MemoryEngine, method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
  return Promise.resolve().then(() => handlers[method](engine, params, CALL) as ResultOf<M> | Promise<ResultOf<M>>);
}

function settings(url: string, extra: Record<string, unknown> = {}) {
  return {
    'embedding.provider': 'hash',
    'webhooks.endpoints': [{ name: 'ci', url }],
    'webhooks.retryDelay': 100,
    'webhooks.maxAttempts': 2,
    ...extra,
  };
}

test('nothing is sent before the signing secret exists; then every change is delivered, listed and signed', async (t) => {
  const receiver = await WebhookReceiver.start('not yet known');
  const dirs = engineDirs();
  const events: EngineEvent[] = [];
  const engine = await MemoryEngine.open({ ...dirs, snapshotTickMs: 0, onEvent: (e) => events.push(e), settings: settings(receiver.url) });
  t.after(async () => {
    await engine.close();
    await receiver.close();
  });
  assert.ok(
    engine.startupWarnings.some((w) => /1 webhook has no signing secret yet \(ci\): nothing is sent to it until one exists/.test(w)),
    engine.startupWarnings.join('\n'),
  );
  let list = await call(engine, 'webhooks.list', {});
  assert.deepEqual(
    list.webhooks.map((w) => [w.name, w.state, w.pending]),
    [['ci', 'needs_secret', 0]],
  );
  assert.match(list.secretsKeptIn, /only you can read: .*secrets[/\\]webhooks\.json \(no keychain answers here: /);
  await call(engine, 'memory.create', { content: 'Before the secret: the deploy key rotates every ninety days.' });
  assert.equal((await call(engine, 'webhooks.deliveries', {})).length, 0, 'no delivery is queued for a webhook without a secret');

  // The Webhooks view lists them again when they are set up: at open and once a secret is made.
  assert.deepEqual(
    events.filter((e) => e.type === 'webhooks.changed'),
    [{ type: 'webhooks.changed', count: 1 }],
  );
  const made = await call(engine, 'webhooks.secret', { name: 'ci' });
  assert.equal(made.created, true);
  assert.equal(events.filter((e) => e.type === 'webhooks.changed').length, 2);
  assert.match(made.secret, /^whsec_/);
  assert.equal((await call(engine, 'webhooks.secret', { name: 'ci' })).secret, made.secret, 'asked again: the same secret');
  receiver.secret = made.secret;
  const file = path.join(dirs.storageDir, 'secrets', 'webhooks.json');
  if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.ok(!fs.readdirSync(path.join(dirs.storageDir, 'projects')).includes('secrets'), 'never inside a store folder');

  const m = await call(engine, 'memory.create', { content: 'After the secret: staging certificates renew on the first Monday.' });
  assert.equal(m.status, 'created');
  await until('a delivery', () => events.some((e) => e.type === 'webhooks.delivery' && e.delivery.status === 'delivered'), {
    timeoutMs: 15_000,
    intervalMs: 20,
  });
  assert.equal(receiver.received.length, 1);
  assert.ok(receiver.received[0]!.verified, 'signed with the secret the engine made');
  assert.equal(receiver.received[0]!.body.event.type, 'memory.created');
  assert.equal(receiver.received[0]!.body.event.cursor, 2, 'the change made before the secret has cursor 1 and was not sent');
  list = await call(engine, 'webhooks.list', {});
  assert.deepEqual(
    list.webhooks.map((w) => [w.name, w.state, w.delivered, w.last?.status]),
    [['ci', 'active', 1, 'delivered']],
  );

  const sent = await call(engine, 'webhooks.test', { name: 'ci' });
  assert.equal(sent.status, 'delivered');
  assert.equal(receiver.received[1]!.body.event.type, 'webhook.test');
  await assert.rejects(call(engine, 'webhooks.test', { name: 'nope' }), (e: unknown) => {
    assert.equal((e as { code?: string }).code, 'not_found');
    assert.match((e as Error).message, /No webhook named "nope" is configured \(there are: ci\)/);
    return true;
  });
});

test('dead deliveries are listed as failures and sent again on request; a removed webhook cancels what is pending', async (t) => {
  const receiver = await WebhookReceiver.start('x');
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, settings: settings(receiver.url) });
  t.after(async () => {
    await engine.close();
    await receiver.close();
  });
  receiver.secret = (await call(engine, 'webhooks.secret', { name: 'ci' })).secret;
  receiver.enqueue({ status: 500, body: 'down for maintenance' }, { status: 500, body: 'down for maintenance' });
  await call(engine, 'memory.create', { content: 'The build cache lives on the second SSD of the CI runner.' });
  await until('two attempts', () => receiver.received.length >= 2, { timeoutMs: 15_000, intervalMs: 20 });
  let failed: Awaited<ReturnType<typeof call<'webhooks.deliveries'>>> = [];
  await until(
    'the dead delivery',
    () => {
      void call(engine, 'webhooks.deliveries', { failed: true }).then((f) => (failed = f));
      return failed.length === 1 && failed[0]!.status === 'dead';
    },
    { timeoutMs: 15_000, intervalMs: 20 },
  );
  assert.match(failed[0]!.lastError ?? '', /answered 500: down for maintenance/);
  assert.equal((await call(engine, 'webhooks.list', {})).webhooks[0]!.dead, 1);
  // A failed test event is dead too, but not retried: "retryable" counts what retry sends again.
  receiver.enqueue({ status: 500, body: 'down for maintenance' });
  assert.equal((await call(engine, 'webhooks.test', { name: 'ci' })).status, 'dead');
  assert.deepEqual(
    (await call(engine, 'webhooks.list', {})).webhooks.map((w) => [w.dead, w.retryable]),
    [[2, 1]],
  );

  assert.deepEqual(await call(engine, 'webhooks.retry', {}), { requeued: 1 });
  await until('the retried delivery', () => receiver.delivered.length === 1, { timeoutMs: 15_000, intervalMs: 20 });
  assert.equal(receiver.received[3]!.body.id, receiver.received[0]!.body.id, 'sent again under the same delivery id');

  // A webhook that hangs keeps its delivery pending; removing the webhook cancels it.
  receiver.enqueue({ hang: true });
  await call(engine, 'memory.create', { content: 'Integration tests need the docker daemon running locally.' });
  await until('the hanging attempt', () => receiver.received.length === 5, { timeoutMs: 15_000, intervalMs: 20 });
  await engine.reloadConfig({ 'embedding.provider': 'hash' });
  const all = await call(engine, 'webhooks.deliveries', {});
  assert.equal(all[0]!.status, 'cancelled');
  assert.match(all[0]!.lastError ?? '', /removed from the configuration/);
  assert.deepEqual((await call(engine, 'webhooks.list', {})).webhooks, []);
});

test('an untrusted workspace sends nothing and says why', async (t) => {
  const receiver = await WebhookReceiver.start('x');
  const engine = await MemoryEngine.open({ ...engineDirs(), snapshotTickMs: 0, restricted: true, settings: settings(receiver.url) });
  t.after(async () => {
    await engine.close();
    await receiver.close();
  });
  await call(engine, 'webhooks.secret', { name: 'ci' });
  assert.deepEqual(
    (await call(engine, 'webhooks.list', {})).webhooks.map((w) => w.state),
    ['paused'],
  );
  await assert.rejects(call(engine, 'webhooks.test', { name: 'ci' }), /Webhook ci cannot send yet: this workspace is not trusted/);
  assert.equal(receiver.received.length, 0);
});
