// The bearer token of `agent-memory mcp --http` (src/mcp/httpToken.ts): a new one is written
// 0600 into the store folder; a given file must be private and hold one token.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TokenFileError, newToken, readTokenFile, tokenFileName, writeToken } from '../../src/mcp/httpToken';
import { tmpDir } from '../helpers/tmp';

test('a new token is long, different each time, and written readable by its owner only', () => {
  const dir = path.join(tmpDir('am-token-'), 'store');
  const a = newToken();
  assert.ok(a.length >= 40);
  assert.notEqual(a, newToken());
  const file = writeToken(dir, 7391, a);
  assert.equal(path.basename(file), tokenFileName(7391));
  assert.equal(fs.readFileSync(file, 'utf8').trim(), a);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
  assert.equal(readTokenFile(file), a, 'the file it writes is a valid --token-file');
});

test('--token-file: missing, readable by others, empty, several words or too short is refused with the reason', () => {
  const dir = tmpDir('am-token-');
  const file = (name: string, text: string, mode = 0o600) => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, text, { mode });
    fs.chmodSync(f, mode);
    return f;
  };
  assert.throws(
    () => readTokenFile(path.join(dir, 'none')),
    (e) => e instanceof TokenFileError && /cannot be read/.test(e.message),
  );
  assert.throws(() => readTokenFile(file('open', 'a-long-enough-token-value', 0o644)), /chmod 600/);
  assert.throws(() => readTokenFile(file('empty', '\n')), /one token/);
  assert.throws(() => readTokenFile(file('words', 'two long-enough token words')), /one token/);
  assert.throws(() => readTokenFile(file('short', 'short')), /too short/);
  assert.equal(readTokenFile(file('good', '  a-long-enough-token-value\n')), 'a-long-enough-token-value');
});
