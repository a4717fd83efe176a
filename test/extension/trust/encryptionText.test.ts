// What the encryption commands of the palette say (src/extension/trust/encryptionText.ts): plain
// sentences per store, where the key is kept, and what to do where no keychain answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EncryptionStatus } from '../../../src/engine/protocol';
import {
  encryptionStatusText,
  keyFileQuestion,
  needsKeyFileChoice,
  plainStoresNotice,
  sayPlainStoresOnce,
  switchedText,
} from '../../../src/extension/trust/encryptionText';

const store = (name: 'project' | 'global', encrypted: boolean, ownedHere = true): EncryptionStatus['stores'][number] => ({
  store: name,
  dir: `/home/me/.agent-memory/${name}`,
  encrypted,
  ...(encrypted ? { userKeyId: '0123456789abcdef', since: '2026-11-02T10:00:00.000Z' } : {}),
  ownedHere,
});

test('no keychain and no key file: said so with the reason, and how to get encryption', () => {
  const s: EncryptionStatus = {
    stores: [store('project', false), store('global', false)],
    keychain: { available: false, reason: 'no Secret Service answers: there is no desktop session (D-Bus) here' },
    keyFile: { path: '/home/me/.agent-memory/keys/user-keys.json', inUse: false },
    newStores: 'plain',
  };
  assert.equal(
    encryptionStatusText(s),
    "This project's memory is not encrypted. The global memory is not encrypted. " +
      'No system keychain answers here (no Secret Service answers: there is no desktop session (D-Bus) here). ' +
      'New stores are not encrypted: choose "Keep the Key in a File" when enabling encryption.',
  );
  assert.equal(needsKeyFileChoice(s), true);
  assert.match(
    keyFileQuestion(s),
    /^No system keychain answers here \(no Secret Service.*\)\. The key can be kept in a file only you can read/,
  );
  assert.match(keyFileQuestion(s), /export the recovery key too/);
});

test('encrypted with a key file: the date, the file, no key id; a store another process writes is named', () => {
  const s: EncryptionStatus = {
    stores: [store('project', true), store('global', false, false)],
    keychain: { available: false, reason: 'the keychain is turned off' },
    keyFile: { path: '/home/me/.agent-memory/keys/user-keys.json', inUse: true },
    newStores: 'encrypted',
  };
  const text = encryptionStatusText(s);
  assert.equal(
    text,
    "This project's memory is encrypted (since 2026-11-02). The global memory is not encrypted; another window or agent writes it. " +
      'No system keychain answers here, so the key is kept in a file only you can read: /home/me/.agent-memory/keys/user-keys.json. ' +
      'New stores are encrypted.',
  );
  assert.doesNotMatch(text, /0123456789abcdef/, 'no internal key id');
  assert.equal(needsKeyFileChoice(s), false);
  assert.equal(
    switchedText(s, true),
    'Encryption is on; every memory is still there. The global memory is written by another window or agent: run this there to switch it.',
  );
});

test('with a keychain: the key is there, nothing to choose; disabling says the files are plain again', () => {
  const s: EncryptionStatus = {
    stores: [store('project', false), store('global', false)],
    keychain: { available: true },
    keyFile: { inUse: false },
    newStores: 'encrypted',
  };
  assert.match(encryptionStatusText(s), /The key is kept in the system keychain\. New stores are encrypted\.$/);
  assert.equal(needsKeyFileChoice(s), false);
  assert.equal(switchedText(s, false), 'Encryption is off: the store files are written plain again.');
});

test('the start-up notice: said where new stores are plain because no keychain answers, with the command that changes it', () => {
  const plain: EncryptionStatus = {
    stores: [store('project', false), store('global', false)],
    keychain: { available: false, reason: 'no Secret Service answers: there is no desktop session (D-Bus) here' },
    keyFile: { path: '/home/me/.agent-memory/keys/user-keys.json', inUse: false },
    newStores: 'plain',
  };
  assert.equal(
    plainStoresNotice(plain),
    'No system keychain answers on this machine (no Secret Service answers: there is no desktop session (D-Bus) here), ' +
      "so new memory stores are not encrypted and this window's memory is written plain. " +
      'To encrypt them with the key kept in a file only you can read, run "Agent Memory: Enable Encryption…" and choose "Keep the Key in a File".',
  );
  // Nothing to say where a keychain answers, or where the person chose a key file.
  assert.equal(plainStoresNotice({ ...plain, keychain: { available: true }, newStores: 'encrypted' }), undefined);
  assert.equal(plainStoresNotice({ ...plain, keyFile: { ...plain.keyFile, inUse: true }, newStores: 'encrypted' }), undefined);
});

test('the start-up notice is said once, not on every start; said again when it applies again after it stopped', async () => {
  const kept = new Map<string, unknown>(); // stands in for VS Code's globalState
  const memory = {
    get: (k: string) => kept.get(k),
    update: async (k: string, v: unknown) => void (v === undefined ? kept.delete(k) : kept.set(k, v)),
  };
  const said: string[] = [];
  const say = (t: string) => void said.push(t);
  assert.equal(await sayPlainStoresOnce('no keychain', memory, say), true, 'the first start says it');
  assert.equal(await sayPlainStoresOnce('no keychain', memory, say), false, 'the next start does not');
  assert.equal(await sayPlainStoresOnce('no keychain', memory, say), false);
  assert.deepEqual(said, ['no keychain']);
  assert.equal(await sayPlainStoresOnce(undefined, memory, say), false, 'a keychain answers now: nothing to say, and forgotten');
  assert.equal(await sayPlainStoresOnce('no keychain', memory, say), true, 'it stopped answering again: said again');
  assert.equal(said.length, 2);
});
