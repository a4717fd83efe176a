// @tier process
// The secret guard as a person meets it on the command line (docs/secrets.md), as real
// processes. Proof of issue 23: the five kinds of credential added through the CLI — an AWS key,
// a GitHub token, a database URL with its password, an OpenAI key, an SSH private key — are in
// no byte of the store's files (log, snapshots, vectors, quarantine), of an export, or of what
// the CLI and the engine print (--verbose). And `scan-secrets` finds what an unguarded store
// holds and, with --redact, leaves none of it on disk.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SecretScanReport } from '../../src/engine/protocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli } from '../helpers/cliProcess';
import { FIVE_NEEDLES, FIVE_TEXTS } from '../helpers/fakeSecrets';

/** Every file under `dir`, read as latin1 so any text in it is found. */
function filesHolding(dir: string, needles: readonly string[]): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const text = fs.readFileSync(p).toString('latin1');
        for (const n of needles) if (text.includes(n)) hits.push(`${path.relative(dir, p)}: ${n}`);
      }
    }
  };
  walk(dir);
  return hits;
}

function setup(name: string, yaml: string) {
  const root = tmpDir(`am-cli-${name}-`);
  const ws = fakeClone(root, 'repo');
  const home = path.join(root, 'home');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), yaml);
  const printed: string[] = [];
  const cli = async (args: string[], stdin?: string) => {
    const r = await runCli([...args, '--workspace', ws, '--verbose'], { AGENT_MEMORY_HOME: home }, stdin === undefined ? {} : { stdin });
    printed.push(r.stdout, r.stderr);
    assert.equal(r.code, 0, `agent-memory ${args.join(' ')}: exit code (stderr: ${r.stderr})`);
    return r.stdout.trim();
  };
  return { root, ws, home, cli, printed };
}

test(
  'CLI: the five kinds added are redacted and said so; no file of the store, no export and no output holds one',
  { timeout: 240_000 },
  async () => {
    const { root, cli, printed } = setup('secrets', 'embedding:\n  provider: hash\n');
    const said: string[] = [];
    for (const text of FIVE_TEXTS) said.push(await cli(['add', '-'], text));
    assert.deepEqual(
      said.map((s) => s.replace(/^Memory saved: .*?\(id [0-9a-f-]{36}\)\S* /s, '')),
      [
        'Removed before saving: an AWS access key and an AWS secret key, replaced by [redacted: …] so it is never stored.',
        'Removed before saving: a GitHub token, replaced by [redacted: …] so it is never stored.',
        'Removed before saving: a password in a URL, replaced by [redacted: …] so it is never stored.',
        'Removed before saving: an OpenAI key, replaced by [redacted: …] so it is never stored.',
        'Removed before saving: a private key, replaced by [redacted: …] so it is never stored.',
      ],
    );
    // The search list cuts each text; the redacted memory is the one found.
    const found = await cli(['search', 'GitHub token CI bot pushes']);
    assert.match(found, /^1\. The CI bot pushes with the GitHub token \[redacted: GitHub/);
    await cli(['export', path.join(root, 'export.jsonl')]);
    assert.match(fs.readFileSync(path.join(root, 'export.jsonl'), 'utf8'), /\[redacted: private key\]/);
    assert.match(await cli(['scan-secrets']), /^No secrets found in the memories or their history\.$/);
    // Every byte: the store home (stores, logs, snapshots, vectors, quarantine), the export, the workspace.
    assert.deepEqual(filesHolding(root, FIVE_NEEDLES), []);
    const output = printed.join('\n');
    assert.ok(output.length > 0);
    for (const n of FIVE_NEEDLES) assert.ok(!output.includes(n), `printed ${n}`);
  },
);

test(
  'CLI scan-secrets: reports an unguarded store without printing a secret; --redact leaves none on disk',
  { timeout: 240_000 },
  async () => {
    const { root, ws, cli, printed } = setup('scan', 'embedding:\n  provider: hash\nmemory:\n  secret_policy: allow\n');
    for (const text of FIVE_TEXTS) await cli(['add', '-'], text);
    assert.ok(filesHolding(root, FIVE_NEEDLES).length > 0, 'stored verbatim, as older versions did');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const before = printed.length;

    const report = await cli(['scan-secrets']);
    assert.match(
      report,
      /^The project store: found 6 secrets \(AWS access key \(1\), AWS secret key \(1\), GitHub token \(1\), password in a URL \(1\), OpenAI key \(1\), private key \(1\)\) in 5 memories and the history of 5 memories\. Memories: /,
    );
    assert.match(report, /\nRun agent-memory scan-secrets --redact to remove them everywhere\.$/);
    const json = JSON.parse(await cli(['scan-secrets', '--json'])) as SecretScanReport;
    assert.equal(json.redact, false);
    assert.equal(json.stores.find((s) => s.store === 'project')!.memoryIds.length, 5);

    const done = await cli(['scan-secrets', '--redact']);
    assert.match(done, /^The project store: redacted 6 secrets \(.*\) in 5 memories and the history of 5 memories\./);
    assert.match(done, /Their search vectors are being made again from the redacted text\. Old copies removed from disk: \d+ files?\.$/);
    await cli(['export', path.join(root, 'export.jsonl')]);
    assert.deepEqual(filesHolding(root, FIVE_NEEDLES), []);
    const output = printed.slice(before).join('\n');
    for (const n of FIVE_NEEDLES) assert.ok(!output.includes(n), `printed ${n}`);
    assert.match(await cli(['search', 'GitHub token CI bot pushes']), /^1\. The CI bot pushes with the GitHub token \[redacted: GitHub/);
  },
);
