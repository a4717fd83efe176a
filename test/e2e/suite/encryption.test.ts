// Extension-host tests of the encryption commands of the palette (docs/encryption.md), in the
// real VS Code with no keychain (scripts/e2e.mjs turns it off): the status says so, enabling with
// a key file seals every file of the store, the recovery key is saved readable by the user only,
// the engine reopens the encrypted store, and disabling writes it plain again.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { suite, suiteSetup, test } from '../runner';
import type { AgentMemoryApi } from '../../../src/extension/extension';
import type { EncryptionStatus } from '../../../src/engine/protocol';
import { activeApi } from './activate';

const PHRASE = 'pelican-orchard release checklist';

/** Files under `dir` whose bytes hold `needle`. */
function holding(dir: string, needle: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => fs.readFileSync(f).includes(Buffer.from(needle)));
}

suite('Encryption', () => {
  let api: AgentMemoryApi;

  suiteSetup(async () => {
    api = await activeApi();
  });

  test('palette: status without a keychain, enable with a key file, recovery key saved 0600, reopen, disable', async () => {
    const r = await api.engine.request('memory.create', {
      content: `The ${PHRASE} lives in the wiki.`,
      ttlSeconds: null,
      allowNearDuplicate: true,
    });
    assert.equal(r.status, 'created');
    const before = await vscode.commands.executeCommand<EncryptionStatus>('agentMemory.encryptionStatus');
    assert.equal(before.keychain.available, false);
    assert.equal(before.newStores, 'plain');
    const project = before.stores.find((s) => s.store === 'project')!;
    assert.equal(project.encrypted, false);
    assert.ok(holding(project.dir, PHRASE).length > 0, 'plain before');

    const on = await vscode.commands.executeCommand<EncryptionStatus>('agentMemory.enableEncryption', { keyFile: true });
    assert.ok(on.stores.find((s) => s.store === 'project')!.encrypted, 'the project store is encrypted');
    assert.equal(on.keyFile.inUse, true);
    assert.deepEqual(holding(project.dir, PHRASE), [], 'no file of the store holds the memory in the clear');

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'am-e2e-rk-')), 'recovery.txt');
    await vscode.commands.executeCommand('agentMemory.exportRecoveryKey', { file });
    assert.match(fs.readFileSync(file, 'utf8'), /^AMRK-/);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);

    await api.engine.restart();
    const hits = await api.engine.request('search', { query: 'pelican orchard checklist', limit: 5 });
    assert.ok(
      hits.hits.some((h) => r.status === 'created' && h.memory.id === r.memory.id),
      'the encrypted store reopens with its key',
    );

    const off = await vscode.commands.executeCommand<EncryptionStatus>('agentMemory.disableEncryption', { confirmed: true });
    assert.equal(off.stores.find((s) => s.store === 'project')!.encrypted, false);
    assert.ok(holding(project.dir, PHRASE).length > 0, 'plain again');
  });
});
