// Webhook signing secrets (docs/changes.md "The signing secret"): kept in a file only the user
// can read (0600) in a folder only the user can open (0700), written whole; the signature a
// receiver checks is HMAC-SHA256 over "<timestamp>.<body>".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHmac } from 'node:crypto';
import { tmpDir } from '../../helpers/tmp';
import { FileSecretStore, newSigningSecret, signBody, verifySignature } from '../../../src/core/webhooks';

test('secrets are kept in a private file, one per name, and can be replaced and deleted', async () => {
  const file = path.join(tmpDir('am-sec-'), 'secrets', 'webhooks.json');
  const store = new FileSecretStore(file);
  assert.equal(await store.get('ci'), undefined, 'no file yet: no secret');
  await store.set('ci', 'first');
  await store.set('audit', 'other');
  await store.set('ci', 'second');
  assert.equal(await store.get('ci'), 'second');
  assert.equal(await store.get('audit'), 'other');
  if (process.platform !== 'win32') {
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  }
  await store.delete('ci');
  assert.equal(await new FileSecretStore(file).get('ci'), undefined);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['webhooks.json'], 'no temporary file left behind');
  assert.match(store.where, /only you can read/);
  fs.writeFileSync(file, '[1, 2]');
  await assert.rejects(store.get('audit'), /does not hold webhook secrets/);
});

test('the signature is HMAC-SHA256 of "<timestamp>.<body>"; the check refuses a changed body, another secret or an old timestamp', () => {
  const secret = newSigningSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.notEqual(newSigningSecret(), secret);
  const body = '{"id":"d1","event":{"type":"memory.created"}}';
  const sig = signBody(secret, 1_700_000_000, body);
  assert.equal(sig, `sha256=${createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex')}`);
  const headers = { signature: sig, timestamp: '1700000000' };
  assert.equal(verifySignature(secret, headers, body, 1_700_000_100), undefined);
  assert.equal(verifySignature(secret, headers, `${body} `, 1_700_000_100), 'the signature does not match');
  assert.equal(verifySignature(newSigningSecret(), headers, body, 1_700_000_100), 'the signature does not match');
  assert.equal(verifySignature(secret, headers, body, 1_700_000_400), 'the timestamp is too old or in the future');
  assert.equal(verifySignature(secret, { signature: sig, timestamp: undefined }, body, 1_700_000_000), 'no timestamp');
});
