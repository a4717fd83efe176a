// Pure pieces of the extension surfaces that need no VS Code: the settings contribution is in
// sync with CONFIG_SCHEMA, the webview shell's CSP and escaping, the recall marker, and that
// src/core and src/engine never import 'vscode'.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_SCHEMA } from '../../src/core/config/schema';
import { HOST_SETTINGS, settingsContribution } from '../../src/extension/config/settingsSchema';
import { SETTING_IDS } from '../../src/extension/config/settingsLayout';
import { contentSecurityPolicy, escapeHtml, webviewShell } from '../../src/extension/common/webviewHtml';
import { RECALL_CLOSE, RECALL_OPEN, recallBlock, stripRecall } from '../../src/present/recall';
import type { SearchHit } from '../../src/engine/protocol';

const root = path.resolve(__dirname, '../..');

test('package.json settings are generated from CONFIG_SCHEMA (run `npm run settings` after changing it)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.contributes.configuration, settingsContribution(CONFIG_SCHEMA));
  const keys = pkg.contributes.configuration.flatMap((s: { properties: object }) => Object.keys(s.properties));
  // Each key under its Settings editor id, plus its former id (kept as a renamed setting) where it had one.
  const renamed = CONFIG_SCHEMA.filter((s) => SETTING_IDS[s.path] !== s.path).length;
  assert.equal(keys.length, CONFIG_SCHEMA.length + renamed + Object.keys(HOST_SETTINGS).length);
  assert.ok(keys.includes('agentMemory.webhooks.endpoints'));
  assert.ok(keys.includes('agentMemory.storeHome'));
  assert.ok(keys.every((k: string) => k.startsWith('agentMemory.')));
  assert.ok(keys.includes('agentMemory.search.vectorWeight'));
  assert.ok(keys.includes('agentMemory.search.vector_weight'));
});

test('every contributed command has a handler id used by the extension, and the chat participant and tools are declared', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const sources = fs
    .readdirSync(path.join(root, 'src/extension'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && f !== 'commandIds.ts') // feature folders (src/extension/sessions/) too; not the list of ids itself
    .map((f) => fs.readFileSync(path.join(root, 'src/extension', f), 'utf8'))
    .join('\n');
  for (const c of pkg.contributes.commands as { command: string }[])
    assert.ok(sources.includes(`'${c.command}'`), `${c.command} is registered`);
  assert.deepEqual(
    pkg.contributes.chatParticipants.map((p: { id: string }) => p.id),
    ['agentMemory.memory'],
  );
  assert.deepEqual(
    pkg.contributes.languageModelTools.map((t: { name: string }) => t.name),
    ['agentMemory_search', 'agentMemory_save'],
  );
});

test('webview shell: strict CSP with the nonce, no remote or inline script, escaped attributes', () => {
  const csp = contentSecurityPolicy('https://x.vscode-cdn.net', 'abc123');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc123'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!x\.vscode-cdn\.net)/);
  const html = webviewShell({
    title: '<Search>',
    cspSource: 'vscode-resource:',
    scriptUri: 'a.js"onload="x',
    styleUri: 's.css',
    codiconUri: 'c.css',
    nonce: 'n1',
    body: '<div id="q"></div>',
  });
  assert.match(html, /<title>&#60;Search&#62;<\/title>/);
  assert.match(html, /src="a\.js&#34;onload=&#34;x"/, 'attribute values are escaped');
  assert.equal((html.match(/<script/g) ?? []).length, 1);
  assert.match(html, /<script nonce="n1"/);
  assert.equal(escapeHtml(`<script>alert('x')</script>&`), '&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62;&#38;');
});

test('recalled text is marked, and saving marked text is flagged fromRecall', () => {
  const hit = { memory: { type: 'fact', title: 'Port' }, content: 'Staging DB\non 5433', store: 'global' } as unknown as SearchHit;
  const block = recallBlock([hit]);
  assert.equal(block, `${RECALL_OPEN}\n1. [fact, global] Port: Staging DB on 5433\n${RECALL_CLOSE}`);
  assert.deepEqual(stripRecall(`As I recall: ${block}`), {
    text: 'As I recall: \n1. [fact, global] Port: Staging DB on 5433',
    fromRecall: true,
  });
  assert.deepEqual(stripRecall('plain new knowledge'), { text: 'plain new knowledge', fromRecall: false });
});

test("src/core and src/engine never import 'vscode'", () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, f.name);
      if (f.isDirectory()) walk(p);
      else if (/\.ts$/.test(f.name) && /from ['"]vscode['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(p, 'utf8')))
        offenders.push(path.relative(root, p));
    }
  };
  walk(path.join(root, 'src/core'));
  walk(path.join(root, 'src/engine'));
  assert.deepEqual(offenders, []);
});
