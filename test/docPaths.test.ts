// The recipes and traces stay true: every file or folder that CONTRIBUTING.md and
// ARCHITECTURE.md name exists, and every test CONTRIBUTING.md quotes after a `›` is in the
// file named before it (ARCHITECTURE.md "Follow a request", CONTRIBUTING.md recipes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
const PAGES = ['CONTRIBUTING.md', 'ARCHITECTURE.md'];
const TOP = ['src', 'test', 'bench', 'scripts', 'docs', 'migrations', 'webview', 'media', '.ci'];
/**
 * A repository path as the pages write it: a top folder, then path parts (a trailing `/` for a
 * folder); not a pattern such as `RESULTS*.md`.
 */
const PATH = new RegExp(
  `(?<![\\w./-])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\\w.-]+(?:/[\\w.-]+)*/?)(?![\\w*/-]|\\.\\w)`,
  'g',
);
/** Root files the pages name. */
const ROOT_FILE = /(?<![\w./-])((?:[A-Z]+|package|esbuild|tsconfig)\.(?:md|json|mjs))\b/g;

function named(page: string): string[] {
  const text = fs.readFileSync(path.join(root, page), 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(PATH)) {
    const p = m[1]!.replace(/[.]$/, '');
    if (/NNNN|<|\*/.test(p)) continue; // a pattern, not a path
    out.add(p);
  }
  for (const m of text.matchAll(ROOT_FILE)) out.add(m[1]!);
  return [...out];
}

for (const page of PAGES) {
  test(`every file and folder ${page} names exists`, () => {
    const paths = named(page);
    assert.ok(paths.length >= 15, `only ${paths.length} paths found in ${page}: the scan is broken`);
    assert.deepEqual(
      paths.filter((p) => !fs.existsSync(path.join(root, p))),
      [],
    );
  });
}

test('every test CONTRIBUTING.md quotes after a › is in the file it names', () => {
  const text = fs.readFileSync(path.join(root, 'CONTRIBUTING.md'), 'utf8').replace(/\s*\n\s*/g, ' ');
  const quoted = [...text.matchAll(/`(test\/[\w./-]+\.test\.ts)` › "([^"]+)"/g)].map((m) => ({ file: m[1]!, name: m[2]! }));
  assert.ok(quoted.length >= 4, `only ${quoted.length} quoted tests: the scan is broken`);
  const missing = quoted.filter(({ file, name }) => {
    const f = path.join(root, file);
    return (
      !fs.existsSync(f) ||
      !fs
        .readFileSync(f, 'utf8')
        .replace(/\s*\n\s*/g, ' ')
        .includes(name)
    );
  });
  assert.deepEqual(missing, []);
});
