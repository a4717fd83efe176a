// @tier process
/**
 * dist/cli.js (src/cli/entry.ts) as agents spawn it: the small entry that runs the CLI's own bundle
 * (dist/cliMain.js) with a V8 code cache (codeCache.ts), built as esbuild.mjs builds them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { bundleCli } from '../helpers/agentClients';
import { ROOT } from '../helpers/cliProcess';
import { VERSION } from '../../src/cli/version';

test('dist/cli.js runs the CLI from its code cache: the same answers and exit codes, the cache written once', async () => {
  // Built as esbuild.mjs builds them (bundleCli): the small entry (src/cli/entry.ts) and the CLI's own bundle next to it.
  fs.mkdirSync(path.join(ROOT, '.test-tmp'), { recursive: true });
  const out = fs.mkdtempSync(path.join(ROOT, '.test-tmp', 'am-cli-entry-'));
  try {
    await bundleCli(out);
    const cache = path.join(out, 'xdg');
    const run = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [path.join(out, 'cli.js'), ...args], {
        encoding: 'utf8',
        env: { ...process.env, XDG_CACHE_HOME: cache, AGENT_MEMORY_CODE_CACHE: '', ...env },
      });
    const version = `agent-memory ${VERSION}\n`;
    const first = run(['--version']);
    assert.equal(first.stdout, version, first.stderr);
    assert.equal(first.status, 0);
    const cached = () => fs.readdirSync(path.join(cache, 'agent-memory', 'code')).filter((f) => f.startsWith('cliMain.js-'));
    assert.equal(cached().length, 1, 'the top-level cache of dist/cliMain.js is written by the first run');
    const second = run(['--version']);
    assert.equal(second.stdout, version);
    assert.deepEqual(cached().length, 1, 'and taken by the next');
    const wrong = run(['frobnicate']);
    assert.equal(wrong.status, 2, 'a usage error still exits 2');
    assert.match(wrong.stderr, /unknown command "frobnicate"/);
    fs.rmSync(cache, { recursive: true, force: true });
    const off = run(['--version'], { AGENT_MEMORY_CODE_CACHE: '0' });
    assert.equal(off.stdout, version);
    assert.equal(fs.existsSync(cache), false, 'AGENT_MEMORY_CODE_CACHE=0: no cache written');
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
