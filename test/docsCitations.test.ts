// Comments cite documents of this repository (ARCHITECTURE.md, docs/*.md, bench/RESULTS*.md)
// that exist, never documents outside it; the pages' own relative links resolve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
/** Every source tree: comments cite the repository's own pages. */
const CHECKED = ['src', 'webview'];

function files(dir: string, re: RegExp, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, re, out);
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

const sources = () => CHECKED.flatMap((d) => files(path.join(root, d), /\.(ts|mjs|js)$/));

test('no comment cites a document outside the repository', () => {
  const outside = /\bseeds? 00[0-4]|\bDESIGN\.md|\.\.\/shared\/|shared\/E2E\.md/i;
  const hits = sources().flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, where: `${path.relative(root, f)}:${i + 1}` }))
      .filter(({ line }) => outside.test(line))
      .map(({ where, line }) => `${where}: ${line.trim()}`),
  );
  // Known exception while task "engine" merges it away (it leaves src/core/memory).
  assert.deepEqual(
    hits.filter((h) => !h.startsWith('src/core/memory/writePath.ts')),
    [],
  );
});

test('every docs/, ARCHITECTURE.md and bench/RESULTS page a comment cites exists', () => {
  const cited = new Set<string>();
  for (const f of sources()) {
    const page = /\b((?:docs\/[\w-]+|bench\/(?:locomo\/)?RESULTS[\w-]*)\.md|ARCHITECTURE\.md)/g;
    for (const m of fs.readFileSync(f, 'utf8').matchAll(page)) cited.add(m[1]!);
  }
  assert.ok(cited.size >= 8, `only ${cited.size} pages cited: the scan is broken`);
  assert.deepEqual(
    [...cited].filter((p) => !fs.existsSync(path.join(root, p))),
    [],
  );
});

test('relative links of ARCHITECTURE.md and docs/*.md resolve', () => {
  const pages = [path.join(root, 'ARCHITECTURE.md'), ...files(path.join(root, 'docs'), /\.md$/)];
  const broken: string[] = [];
  for (const page of pages) {
    for (const m of fs.readFileSync(page, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      if (!fs.existsSync(path.resolve(path.dirname(page), target))) broken.push(`${path.relative(root, page)} -> ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});
