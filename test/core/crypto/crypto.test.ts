/**
 * The encrypted formats (src/core/crypto): sealed log records and files open only with their key
 * and only where they belong; the recovery key round-trips and catches typos; the keyring finds
 * keys in the recovery variable, the keychain and the opted-in key file (0600).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { DecryptError, newKey } from '../../../src/core/crypto/aead';
import { CHUNK_BYTES, FileCipher, isSealed, sealedSize } from '../../../src/core/crypto/fileCipher';
import { formatRecoveryKey, parseRecoveryKey } from '../../../src/core/crypto/recoveryKey';
import { keyForNewStore, userKey } from '../../../src/core/crypto/userKeys';
import { fileKeyring, keychainKeyring, MemoryKeychain } from '../../helpers/keys';
import { tmpDir } from '../../helpers/tmp';

test('a sealed log record opens with its key and seq, and not with another key or a moved seq', () => {
  const c = new FileCipher(newKey());
  const payload = Buffer.from('the payload of record 7');
  const sealed = c.sealRecord(7, payload);
  assert.equal(sealed.readDoubleLE(0), 7, 'the seq stays in the clear for resync');
  assert.ok(!sealed.includes(payload), 'the payload is not in the clear');
  assert.deepEqual(c.openRecord(sealed), payload);
  assert.throws(() => new FileCipher(newKey()).openRecord(sealed), DecryptError);
  const moved = Buffer.from(sealed);
  moved.writeDoubleLE(8, 0);
  assert.throws(() => c.openRecord(moved), DecryptError, 'a record put at another seq does not open');
  const flipped = Buffer.from(sealed);
  flipped[20]! ^= 1;
  assert.throws(() => c.openRecord(flipped), DecryptError);
});

test('a sealed file: chunks round-trip, and a flipped bit, a cut, extra bytes or another kind fail', () => {
  const c = new FileCipher(newKey());
  const plain = randomBytes(CHUNK_BYTES * 2 + 1234);
  const sealed = c.sealFile('snapshot', plain);
  assert.ok(isSealed(sealed));
  assert.equal(sealed.length, sealedSize('snapshot', plain.length));
  assert.deepEqual(Buffer.from(c.openFile('snapshot', sealed).plain), plain);
  assert.equal(FileCipher.plainLength(sealed, 'snapshot'), plain.length);
  const flip = Buffer.from(sealed);
  flip[CHUNK_BYTES + 100]! ^= 0x10;
  assert.throws(() => c.openFile('snapshot', flip), DecryptError);
  assert.throws(() => c.openFile('snapshot', sealed.subarray(0, sealed.length - 1)), DecryptError);
  assert.throws(() => c.openFile('snapshot', sealed.subarray(0, sealed.length - (plain.length % CHUNK_BYTES) - 28)), /cut short/);
  assert.throws(() => c.openFile('snapshot', Buffer.concat([sealed, Buffer.from([0])])), /unexpected bytes/);
  assert.throws(() => c.openFile('vector-index', sealed), /expected/);
  assert.throws(() => new FileCipher(newKey()).openFile('snapshot', sealed), DecryptError);
  const empty = c.sealFile('quarantine', Buffer.alloc(0));
  assert.equal(c.openFile('quarantine', empty).length, 0);
});

test('a sealed file opens into a given target, and a bit flipped anywhere in a chunk (its last bytes, its tag) fails', () => {
  // A chunk is deciphered into the target piece by piece (aead.ts): every piece and the tag are checked.
  const c = new FileCipher(newKey());
  const plain = randomBytes(CHUNK_BYTES * 2 + 70_000);
  const sealed = c.sealFile('snapshot', plain);
  const target = Buffer.alloc(plain.length + 4096, 0xee);
  const opened = c.openFile('snapshot', sealed, target);
  assert.equal(opened.length, plain.length);
  assert.equal(opened.plain, target, 'decrypted into the target itself, not a copy');
  assert.deepEqual(target.subarray(0, plain.length), plain);
  assert.ok(
    target.subarray(plain.length).every((b) => b === 0xee),
    'nothing written past the plain length',
  );
  const headerBytes = sealedSize('snapshot', 0);
  const chunk1 = headerBytes + CHUNK_BYTES + 28; // where chunk 1's sealed bytes start
  for (const at of [chunk1 + 12 + 65_536 + 3, chunk1 + 12 + CHUNK_BYTES - 1, chunk1 + 12 + CHUNK_BYTES + 5, sealed.length - 1]) {
    const flip = Buffer.from(sealed);
    assert.ok(at < sealed.length);
    flip[at]! ^= 0x01;
    assert.throws(() => c.openFile('snapshot', flip, Buffer.alloc(plain.length)), DecryptError, `flipped byte at ${at}`);
  }
  assert.throws(() => c.openFile('snapshot', sealed, Buffer.alloc(plain.length - 1)), RangeError);
});

test('the recovery key round-trips and names a typo instead of trying a wrong key', () => {
  const key = newKey();
  const text = formatRecoveryKey(key);
  assert.match(text, /^AMRK-([A-Z2-7]{5}-)+[A-Z2-7]{1,5}$/);
  const back = parseRecoveryKey(` ${text.toLowerCase()}\n`);
  assert.ok('key' in back);
  assert.deepEqual(back.key, key);
  const typo = text.slice(0, 10) + (text[10] === 'A' ? 'B' : 'A') + text.slice(11);
  const bad = parseRecoveryKey(typo);
  assert.ok('error' in bad && /mistyped/.test(bad.error));
  // Any one character changed, the last one included (its two unused bits): never the key.
  for (let i = 'AMRK-'.length; i < text.length; i++) {
    if (text[i] === '-') continue;
    for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567') {
      if (c === text[i]) continue;
      const changed = parseRecoveryKey(text.slice(0, i) + c + text.slice(i + 1));
      assert.ok('error' in changed, `${text[i]} → ${c} at ${i} refused`);
    }
  }
  const wrong = parseRecoveryKey('not a key');
  assert.ok('error' in wrong && /AMRK-/.test(wrong.error));
});

test('the key file is made only when chosen, is 0600 in a 0700 folder, and finds its keys again', () => {
  const ring = fileKeyring();
  assert.equal(ring.keychainState().ok, false);
  assert.equal(ring.whereToKeep(false), undefined, 'no keychain and no opt-in: nowhere to keep a key');
  assert.throws(
    () => ring.create(false),
    (e: Error & { code?: string }) => e.code === 'keychain_unavailable' && /key-file/.test(e.message),
  );
  assert.equal(fs.existsSync(ring.keyFile!), false);
  const made = ring.create(true);
  assert.equal(made.source, 'the key file');
  assert.equal(fs.statSync(ring.keyFile!).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(ring.keyFile!)).mode & 0o777, 0o700);
  assert.deepEqual(ring.current()?.key.key, made.key.key);
  assert.deepEqual(ring.find(made.key.id)?.key.key, made.key.key);
  assert.equal(ring.whereToKeep(false), 'key file', 'once chosen, the key file is used again');
});

test('the keychain path: keys are kept in the keychain, found by id; the recovery variable is found first', () => {
  const chain = new MemoryKeychain();
  const ring = keychainKeyring(chain);
  assert.equal(ring.keychainState().ok, true);
  const made = ring.create(false);
  assert.equal(made.source, 'the keychain');
  assert.equal(chain.entries.get('current-user-key'), made.key.id);
  assert.deepEqual(keychainKeyring(chain).find(made.key.id)?.key.key, made.key.key, 'another process finds the same key');
  const other = userKey(newKey());
  const viaEnv = keychainKeyring(chain, { AGENT_MEMORY_RECOVERY_KEY: formatRecoveryKey(other.key) });
  assert.equal(viaEnv.find(other.id)?.source, 'the recovery key in AGENT_MEMORY_RECOVERY_KEY');
  const badEnv = keychainKeyring(chain, { AGENT_MEMORY_RECOVERY_KEY: 'AMRK-XXXX' });
  assert.throws(() => badEnv.find(other.id), /AGENT_MEMORY_RECOVERY_KEY is not a recovery key/);
});

test('a keyring asks the keychain for a key once however many stores it opens, and still finds a key kept later', () => {
  const chain = new MemoryKeychain();
  const made = keychainKeyring(chain).create(false);
  const asked: string[] = [];
  const counting = { get: (a: string) => (asked.push(a), chain.get(a)), set: chain.set.bind(chain), delete: chain.delete.bind(chain) };
  const ring = keychainKeyring(counting);
  for (let i = 0; i < 3; i++) assert.deepEqual(ring.find(made.key.id)?.key.key, made.key.key);
  assert.equal(asked.filter((a) => a === `user-key-${made.key.id}`).length, 1, 'one round trip for the key');
  const later = userKey(newKey());
  assert.equal(ring.find(later.id), undefined);
  chain.set(`user-key-${later.id}`, later.key.toString('base64')); // imported by another process
  assert.deepEqual(ring.find(later.id)?.key.key, later.key, 'a key not found before is looked for again');
});

test('a keychain that does not answer is said so, with why', () => {
  const ring = keychainKeyring({
    get: () => {
      throw new Error('DBus error: no session bus');
    },
    set: () => {
      throw new Error('DBus error: no session bus');
    },
    delete: () => {
      throw new Error('DBus error: no session bus');
    },
  });
  const state = ring.keychainState();
  assert.deepEqual(state, { ok: false, why: 'DBus error: no session bus' });
  assert.match(ring.noKeychainSentence(), /No keychain answers on this machine \(DBus error: no session bus\)/);
});

test('new stores: encrypted where a keychain answers or a key file was chosen, plain (no key made) elsewhere', () => {
  const chain = new MemoryKeychain();
  const viaChain = keyForNewStore(keychainKeyring(chain));
  assert.ok(viaChain, 'a keychain answers: a key');
  assert.equal(chain.entries.get('current-user-key'), viaChain.id, 'made and kept in the keychain');
  assert.equal(keyForNewStore(keychainKeyring(chain))?.id, viaChain.id, 'the next store (or process) gets the same key');

  const dir = tmpDir('am-keys-');
  assert.equal(keyForNewStore(fileKeyring(dir)), undefined, 'no keychain, no key file chosen: plain');
  assert.equal(fs.existsSync(path.join(dir, 'keys')), false, 'and no key file is made behind the person');
  const chosen = fileKeyring(dir).create(true).key;
  assert.equal(keyForNewStore(fileKeyring(dir))?.id, chosen.id, 'once a key file was chosen, new stores use it');
});
