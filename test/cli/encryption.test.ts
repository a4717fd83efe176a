// @tier process
// `agent-memory encryption …` as real processes on a machine where no keychain answers (the test
// runner turns it off): status says so and what to run; enable needs --key-file there and then
// seals every store file; the recovery key opens a copy of the stores under another home; disable
// writes them plain again. docs/encryption.md.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EncryptionStatus, SearchResponse } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';

const PHRASE = 'zanzibar-quokka deploy window';

function ok(r: CliRun): string {
  assert.equal(r.code, 0, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  return r.stdout;
}

function json<T>(r: CliRun): T {
  return JSON.parse(ok(r).trim()) as T;
}

/** Every file under `dir` (the key folder left out) whose bytes hold `needle`. */
function filesHolding(dir: string, needle: string, skip: string): string[] {
  const found: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    if (!e.isFile() || p.startsWith(skip)) continue;
    if (fs.readFileSync(p).includes(Buffer.from(needle))) found.push(p);
  }
  return found;
}

test(
  'encryption from the CLI: no keychain said so, enable with a key file, recovery key on another home, disable',
  { timeout: 300_000 },
  async () => {
    const root = tmpDir('am-cli-enc-');
    const home = path.join(root, 'home');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const env = { AGENT_MEMORY_HOME: home, AGENT_MEMORY_RECOVERY_KEY: '' };
    const cli = (...args: string[]) => runCli([...args, '--workspace', ws], env);

    ok(await cli('add', `The ${PHRASE} is Tuesday at noon.`, '--json'));
    const before = json<EncryptionStatus>(await cli('encryption', 'status', '--json'));
    assert.deepEqual(
      before.stores.map((s) => [s.store, s.encrypted]),
      [
        ['project', false],
        ['global', false],
      ],
    );
    assert.equal(before.keychain.available, false);
    assert.equal(before.newStores, 'plain');
    assert.match(before.note ?? '', /--key-file/, 'status says what to run where no keychain answers');
    assert.match(ok(await cli('encryption', 'status')), /keychain: not answering/);

    // No keychain and no key file chosen: refused with what to do, nothing switched.
    const refused = await cli('encryption', 'enable');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /--key-file.*\[keychain_unavailable\]/);
    assert.ok(filesHolding(home, PHRASE, path.join(home, 'keys')).length > 0, 'still plain after the refusal');

    const on = json<EncryptionStatus>(await cli('encryption', 'enable', '--key-file', '--json'));
    assert.ok(
      on.stores.every((s) => s.encrypted),
      'both stores encrypted',
    );
    assert.equal(on.keyFile.inUse, true);
    assert.equal(fs.statSync(on.keyFile.path!).mode & 0o777, 0o600, 'the key file is private');
    assert.deepEqual(filesHolding(home, PHRASE, path.join(home, 'keys')), [], 'no store file holds the memory in the clear');
    assert.equal(json<SearchResponse>(await cli('search', 'zanzibar quokka', '--json')).hits.length, 1, 'found after enabling');
    ok(await cli('add', 'A second memory written to the encrypted store.', '--json'));
    assert.deepEqual(filesHolding(home, 'written to the encrypted store', path.join(home, 'keys')), []);

    const exported = ok(await cli('encryption', 'export-recovery-key'));
    const recovery = exported.split('\n')[0]!;
    assert.match(recovery, /^AMRK-/);

    // Another machine: the stores copied, no key there. A clear error, never an empty store.
    const other = path.join(root, 'other-home');
    fs.cpSync(home, other, { recursive: true, filter: (src) => !src.startsWith(path.join(home, 'keys')) });
    const env2 = { AGENT_MEMORY_HOME: other, AGENT_MEMORY_RECOVERY_KEY: '' };
    const cli2 = (...args: string[]) => runCli([...args, '--workspace', ws], env2);
    const locked = await cli2('search', 'zanzibar quokka', '--json');
    assert.equal(locked.code, 1);
    assert.equal(locked.stdout, '');
    assert.match(locked.stderr, /import-recovery-key.*\[store_key_missing\]/);
    const typo = await runCli(['encryption', 'import-recovery-key', '--key-file'], env2, {
      stdin: recovery.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')),
    });
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /not a recovery key.*Nothing was kept/);
    ok(await runCli(['encryption', 'import-recovery-key', '--key-file'], env2, { stdin: `${recovery}\n` }));
    assert.equal(json<SearchResponse>(await cli2('search', 'zanzibar quokka', '--json')).hits.length, 1, 'opens with the recovery key');

    const off = json<EncryptionStatus>(await cli('encryption', 'disable', '--json'));
    assert.ok(off.stores.every((s) => !s.encrypted));
    assert.equal(json<SearchResponse>(await cli('search', 'zanzibar quokka', '--json')).hits.length, 1, 'found after disabling');
    assert.ok(filesHolding(home, PHRASE, path.join(home, 'keys')).length > 0, 'plain again');
  },
);
