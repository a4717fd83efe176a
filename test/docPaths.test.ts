// The recipes and traces stay true: every file or folder that CONTRIBUTING.md and
// ARCHITECTURE.md name exists, and every test CONTRIBUTING.md quotes after a `›` is in the
// file named before it (ARCHITECTURE.md "Follow a request", CONTRIBUTING.md recipes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

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
/** What precedes a path written as `<commit>:<path>` (git's own syntax), e.g. the traces' "before". */
const AT_COMMIT = /\b[0-9a-f]{7,40}:$/;
/** Paths at a commit the pages name: `fad90e1:src/engine/client.ts`. */
const COMMIT_PATH = /\b([0-9a-f]{7,40}):((?:src|test)\/[\w.-]+(?:\/[\w.-]+)*)/g;

/** Root files the pages name. */
const ROOT_FILE = /(?<![\w./-])((?:[A-Z]+|package|esbuild|tsconfig)\.(?:md|json|mjs))\b/g;

function named(page: string): string[] {
  const text = fs.readFileSync(path.join(root, page), 'utf8');
  const out = new Set<string>();
  for (const m of text.matchAll(PATH)) {
    const p = m[1]!.replace(/[.]$/, '');
    if (/NNNN|<|\*/.test(p)) continue; // a pattern, not a path
    if (AT_COMMIT.test(text.slice(0, m.index))) continue; // `<commit>:<path>`: a file of an older commit (checked below)
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

test('every `<commit>:<path>` ARCHITECTURE.md names existed at that commit', (t) => {
  const text = fs.readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8');
  const named = [...text.matchAll(COMMIT_PATH)].map((m) => ({ commit: m[1]!, file: m[2]! }));
  assert.ok(named.length >= 5, `only ${named.length} paths at a commit found: the scan is broken`);
  const has = (spec: string) => spawnSync('git', ['cat-file', '-e', spec], { cwd: root }).status === 0;
  const commits = [...new Set(named.map((n) => n.commit))];
  // A checkout without that history (a shallow clone, an unpacked source archive) cannot tell.
  if (!commits.every((c) => has(`${c}^{commit}`))) return t.skip(`commit ${commits.join(', ')} is not in this checkout`);
  assert.deepEqual(
    named.filter((n) => !has(`${n.commit}:${n.file}`)).map((n) => `${n.commit}:${n.file}`),
    [],
  );
});

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
