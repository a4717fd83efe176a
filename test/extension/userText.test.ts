// Every user-facing string in src/extension: counts through plural() (all of src), memory text is shortened with the grapheme-safe
// helpers (src/core/text/truncate.ts), never cut with `.slice(0, n)` (which splits an emoji into
// a lone surrogate); every codicon named in the extension and its package.json exists.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const lines = () =>
  sources(path.join(root, 'src', 'extension')).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, where: `${path.relative(root, f)}:${i + 1}` })),
  );

/** A `.slice(0, n)` on something that holds text (a memory's content, title, a label, a line…). */
const TEXT_CUT =
  /(?:\b(?:content|title|text|preview|label|line|body|message|detail|query|summary|first|one|name|description|newContent|oldContent)|\|\|[^()]*\))\s*\.slice\(0,\s*(?!-)/;

test('the text-cut pattern finds the cuts issue 13 saw and leaves arrays and ISO dates alone', () => {
  for (const bad of ['m.content.slice(0, 60)', '(m.title || m.content).slice(0, 80)', 'line.slice(0, max - 1)', 'body.slice(0, 399)'])
    assert.match(bad, TEXT_CUT, bad);
  for (const ok of [
    'parts.slice(0, -1)',
    'd.toISOString().slice(0, 10)',
    'items.slice(0, max)',
    "list.filter((t) => t !== '').slice(0, 100)",
  ])
    assert.doesNotMatch(ok, TEXT_CUT, ok);
});

test('src/extension cuts no text with .slice(0, n): truncate / truncateLine / truncateFlat instead', () => {
  const hits = lines().filter(({ line }) => TEXT_CUT.test(line));
  assert.deepEqual(
    hits.map((h) => `${h.where}: ${h.line.trim()}`),
    [],
  );
});

/** Icons the workbench itself registers (not in the codicon font's list). */
const WORKBENCH_ICONS = new Set(['search-view-icon']);

function codicons(): Set<string> {
  const css = fs.readFileSync(path.join(root, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css'), 'utf8');
  return new Set([...css.matchAll(/\.codicon-([a-z0-9-]+):before/g)].map((m) => m[1]!));
}

test('every codicon the extension names exists: $(…) in strings and package.json, ThemeIcon ids, the memory type icons', () => {
  const known = codicons();
  assert.ok(known.size > 300 && known.has('github-action'), 'the codicon list was read');
  const used: { name: string; where: string }[] = [];
  for (const { line, where } of lines()) {
    for (const m of line.matchAll(/\$\(([a-z0-9-]+)(?:~[a-z]+)?\)/g)) used.push({ name: m[1]!, where });
    for (const m of line.matchAll(/ThemeIcon\('([a-z0-9-]+)'/g)) used.push({ name: m[1]!, where });
  }
  const tree = fs.readFileSync(path.join(root, 'src', 'extension', 'memories', 'memoryTree.ts'), 'utf8');
  const typeIcons = /const TYPE_ICONS[^{]*\{([^}]*)\}/.exec(tree)?.[1] ?? '';
  for (const m of typeIcons.matchAll(/:\s*'([a-z0-9-]+)'/g)) used.push({ name: m[1]!, where: 'memoryTree.ts TYPE_ICONS' });
  const pkg = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
  for (const m of pkg.matchAll(/\$\(([a-z0-9-]+)(?:~[a-z]+)?\)/g)) used.push({ name: m[1]!, where: 'package.json' });
  assert.ok(used.length > 30, `icons found: ${used.length}`);
  const missing = used.filter((u) => !known.has(u.name) && !WORKBENCH_ICONS.has(u.name));
  assert.deepEqual(
    missing.map((u) => `${u.where}: ${u.name}`),
    [],
  );
});

/**
 * "1 memories": a number put straight before a plural noun in a template. plural() writes counts;
 * NOT_A_BARE_COUNT lists the lines where the number is always two or more, or is no number.
 */
const BARE_COUNT =
  /\$\{[^}]+\} (memories|chunks|jobs|duplicates|errors|entries|versions|suggestions|items|rows|facts|entities|relations|files|warnings|problems|days|hours|minutes|seconds|links|tags)\b/;
const NOT_A_BARE_COUNT = [
  /\$\{this\.types\.join\(', '\)\} jobs/, // a worker's name: "embed, extract jobs"
  /`no \$\{what\} memories`/, // "no deleted memories"
  /\$\{rawFacts\.length\} facts returned/,
  /\$\{rawEntities\.length\} entities returned/,
  /more than \$\{MAX_TAGS\} tags/,
];

test('a count before a plural noun goes through plural() ("1 memory", "2 memories")', () => {
  assert.match('`${n} memories saved`', BARE_COUNT);
  assert.doesNotMatch("`${plural(n, 'memory', 'memories')} saved`", BARE_COUNT);
  const files = [
    ...['extension', 'engine', 'core', 'cli', 'mcp'].flatMap((d) => sources(path.join(root, 'src', d))),
    ...sources(path.join(root, 'webview')),
  ];
  const hits = files.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, where: `${path.relative(root, f)}:${i + 1}` }))
      .filter(({ line }) => !/^\s*(\/\/|\*|\/\*\*)/.test(line) && BARE_COUNT.test(line) && !NOT_A_BARE_COUNT.some((r) => r.test(line))),
  );
  assert.deepEqual(
    hits.map((h) => `${h.where}: ${h.line.trim()}`),
    [],
  );
});

/** "3 job(s)": a count written with "(s)" inside a string or template (comments are not scanned). */
const LAZY_PLURAL = /[`'"][^`'"]*\b[a-z]+\(s\)[^`'"]*[`'"]|\}\s[a-z ]*\b[a-z]+\(s\)/;

test('counts people read use plural() ("1 job", "2 jobs"), never "job(s)"', () => {
  assert.match('`${n} job(s) waiting`', LAZY_PLURAL);
  assert.match("'and ${n} more issue(s) not shown'", LAZY_PLURAL);
  assert.doesNotMatch('return Math.sqrt(s);', LAZY_PLURAL);
  const files = ['extension', 'engine', 'core', 'cli', 'mcp'].flatMap((d) => sources(path.join(root, 'src', d)));
  const hits = files.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, where: `${path.relative(root, f)}:${i + 1}` }))
      .filter(({ line }) => !/^\s*(\/\/|\*|\/\*\*)/.test(line) && !/http\(s\)/.test(line) && LAZY_PLURAL.test(line)),
  );
  assert.deepEqual(
    hits.map((h) => `${h.where}: ${h.line.trim()}`),
    [],
  );
});
