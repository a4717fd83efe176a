// Every configuration key of CONFIG_SCHEMA must be read somewhere outside src/core/config: a
// setting shown to users that no code reads is a setting that does nothing.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_SCHEMA } from '../../../src/core/config/schema';

const SRC = path.resolve(__dirname, '../../../src');
const CONFIG_DIR = path.join(SRC, 'core', 'config');

function sources(dir: string, out: string[] = []): string[] {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) {
      if (p !== CONFIG_DIR) sources(p, out);
    } else if (/\.tsx?$/.test(name)) out.push(fs.readFileSync(p, 'utf8'));
  }
  return out;
}

/** Whether `text` reads the key's last segment: `.name`, or destructured as `{ name }` / `{ name: local }`. */
function readsKey(text: string, key: string): boolean {
  const last = key.split('.').at(-1)!.replace(/[^\w]/g, '');
  return new RegExp(`\\.${last}\\b|[{,]\\s*${last}\\s*(?::\\s*\\w+\\s*)?[,}]`).test(text);
}

test('every key of CONFIG_SCHEMA is read outside src/core/config', () => {
  const text = sources(SRC).join('\n');
  const unread = CONFIG_SCHEMA.map((s) => s.path).filter((key) => !readsKey(text, key));
  assert.deepEqual(unread, [], `configuration keys nothing reads (wire them or remove them from the schema): ${unread.join(', ')}`);
});

test('the scan recognises property reads and destructuring, not mere mentions', () => {
  assert.equal(readsKey('const n = cfg.memory.pipelineV2.rerankerTopN;', 'memory.pipelineV2.rerankerTopN'), true);
  assert.equal(readsKey('const { default_limit: def, max_limit: max } = c.search;', 'search.max_limit'), true);
  assert.equal(readsKey('const { enabled } = c;', 'memory.pipelineV2.enabled'), true);
  assert.equal(readsKey("// see rerankerTopN in the docs\nconst x = 'rerankerTopN';", 'memory.pipelineV2.rerankerTopN'), false);
});
