// Comments cite documents of this repository (ARCHITECTURE.md, docs/*.md, bench/RESULTS*.md)
// that exist, never documents outside it — in the sources, the tests, the benches, the scripts
// and the pages themselves; the pages' own relative links resolve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..');
/** Every tree whose text cites: sources, tests, benches, scripts and pages. */
const CHECKED = ['src', 'webview', 'test', 'bench', 'scripts', 'docs'];
/** The pages at the root that cite as well. */
const ROOT_PAGES = ['ARCHITECTURE.md', 'README.md', 'CONTRIBUTING.md'];

function files(dir: string, re: RegExp, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) files(p, re, out);
    else if (re.test(e.name)) out.push(p);
  }
  return out;
}

const sources = () => [
  ...CHECKED.flatMap((d) => files(path.join(root, d), /\.(ts|mjs|js|md)$/)),
  ...ROOT_PAGES.map((p) => path.join(root, p)).filter((p) => fs.existsSync(p)),
];
/** This file names the patterns it looks for. */
const SELF = path.relative(root, __filename);
/**
 * The LoCoMo benchmark reads its data (CC BY-NC, never copied in) from a documented default
 * place outside the repository (docs/DEVELOPMENT.md "Benchmarks"): a path to data, not a citation.
 */
const DATA_PATH = /locomo-dev\.json/;

test('no comment cites a document outside the repository', () => {
  const outside = /\bseeds?[- ]00[0-4]|\bseeds\/|\bDESIGN\.md|\.\.\/shared\b|shared\/E2E\.md/i;
  const checked = sources().filter((f) => path.relative(root, f) !== SELF);
  assert.ok(
    CHECKED.every((d) => checked.some((f) => path.relative(root, f).startsWith(`${d}/`))),
    'every tree is scanned',
  );
  const hits = checked.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, where: `${path.relative(root, f)}:${i + 1}` }))
      .filter(({ line }) => outside.test(line) && !DATA_PATH.test(line))
      .map(({ where, line }) => `${where}: ${line.trim()}`),
  );
  assert.deepEqual(hits, []);
});

test('every docs/, ARCHITECTURE.md and bench/RESULTS page a comment cites exists', () => {
  const cited = new Set<string>();
  // Tests name made-up pages as data (a document to ingest, a path to export to): in test/,
  // only comment lines cite.
  const comment = /^\s*(\/\/|\*|\/\*)/;
  for (const f of sources()) {
    const page = /\b((?:docs\/[\w-]+|bench\/(?:locomo\/)?RESULTS[\w-]*)\.md|ARCHITECTURE\.md)/g;
    const inTests = path.relative(root, f).startsWith('test/');
    const text = fs.readFileSync(f, 'utf8');
    const lines = inTests ? text.split('\n').filter((l) => comment.test(l)) : [text];
    for (const line of lines) for (const m of line.matchAll(page)) cited.add(m[1]!);
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
