/** Markdown-aware chunking: sections, whole sentences, unbroken lists and fences, the heading of each chunk. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, chunkText, isMarkdownName } from '../../../src/core/documents/chunk';

const ONBOARDING = `# Onboarding

Welcome to the team. This page is where you start.

## Setup

Install Node 20. Run \`npm ci\` in the repository root. Then run the tests with \`npm test\`; they take about five minutes.

- Clone the repository
- Install the recommended extensions
- Ask for access to the vault

\`\`\`bash
npm ci
npm test
npm run build
\`\`\`

## Releases

We cut a release every second Tuesday. The release manager rotates weekly. Hotfixes go out when needed and need two approvals. Tags are signed.

### Hotfixes

Hotfix branches start from the last tag.
`;

test('a markdown document is cut at its sections, keeping headings, lists and fences as written', () => {
  const chunks = chunkDocument(ONBOARDING, { size: 160, overlap: 60 });
  assert.deepEqual(
    chunks.map((c) => c.heading),
    ['Onboarding', 'Setup', 'Setup', 'Releases', 'Hotfixes'],
  );
  // The heading path above each chunk: its search context once written (docs/recall.md).
  assert.deepEqual(
    chunks.map((c) => c.headings),
    [['Onboarding'], ['Onboarding', 'Setup'], ['Onboarding', 'Setup'], ['Onboarding', 'Releases'], ['Onboarding', 'Releases', 'Hotfixes']],
  );
  assert.ok(chunks[1]!.text.startsWith('## Setup\n\nInstall Node 20.'), 'the heading line is kept, on its own line');
  assert.ok(chunks[2]!.text.includes('- Clone the repository\n- Install the recommended extensions\n- Ask for access to the vault'));
  assert.ok(chunks[2]!.text.includes('```bash\nnpm ci\nnpm test\nnpm run build\n```'), 'the fence is whole');
  for (const c of chunks) assert.ok(c.text.length <= 160, `within the size: ${c.text.length}`);
  // Every word of the document is in some chunk.
  const all = chunks.map((c) => c.text).join('\n');
  for (const word of ONBOARDING.split(/\s+/).filter(Boolean)) assert.ok(all.includes(word), word);
});

test('a whole small document is one chunk under its first heading', () => {
  const chunks = chunkDocument(ONBOARDING, { size: 2000, overlap: 200 });
  assert.equal(chunks.length, 3, 'one chunk per ## section (the # title joins the first)');
  assert.deepEqual(
    chunks.map((c) => c.heading),
    ['Onboarding', 'Setup', 'Releases'],
  );
  assert.ok(chunks[2]!.text.includes('### Hotfixes'), 'a ### heading stays with its section');
});

test('a long paragraph is split between sentences; the next piece repeats the last whole sentence', () => {
  const sentences = Array.from({ length: 12 }, (_, i) => `Sentence number ${i} explains one more step of the release.`);
  const chunks = chunkDocument(sentences.join(' '), { size: 200, overlap: 70 });
  assert.ok(chunks.length > 3);
  for (const [i, c] of chunks.entries()) {
    assert.match(c.text, /^Sentence number \d+ /, `chunk ${i} starts at a sentence`);
    assert.match(c.text, /release\.$/, `chunk ${i} ends at a sentence`);
    assert.ok(c.text.length <= 200);
    if (i > 0) {
      const prevLast = chunks[i - 1]!.text.split(/(?<=\.) /).at(-1)!;
      assert.ok(c.text.startsWith(prevLast), `chunk ${i} carries the previous chunk's last sentence over`);
    }
  }
  assert.equal(chunkDocument('One. Two.', { size: 100, overlap: 0 })[0]!.text, 'One. Two.');
});

test('a long code fence is split between lines, each piece a closed fence; a long list between items', () => {
  const code = ['```ts', ...Array.from({ length: 40 }, (_, i) => `const value${i} = compute(${i});`), '```'].join('\n');
  const pieces = chunkDocument(`## Code\n\n${code}`, { size: 300, overlap: 50 });
  assert.ok(pieces.length > 2);
  for (const p of pieces) {
    const fences = p.text.match(/^```/gm) ?? [];
    assert.equal(fences.length, 2, `balanced fence in ${JSON.stringify(p.text.slice(0, 40))}`);
    assert.ok(p.text.length <= 300);
  }
  const list = Array.from({ length: 30 }, (_, i) => `- item ${i}: check the dashboard before the deploy`).join('\n');
  for (const p of chunkDocument(list, { size: 250, overlap: 40 })) assert.match(p.text, /^- item \d+:/);
});

test('plain text: no headings or fences; a "# comment" stays text; bad settings refused', () => {
  const py = '# build helper\nimport os\n\nprint(os.getcwd())';
  assert.deepEqual(chunkDocument(py, { size: 500, overlap: 0, markdown: false }), [{ text: py, heading: null, headings: [] }]);
  assert.deepEqual(chunkText('short text', 100, 10), ['short text']);
  assert.deepEqual(chunkText('   \n\n  ', 100, 10), []);
  assert.throws(() => chunkText('text', 100, 100), /overlap/);
  assert.throws(() => chunkText('text', 0, 0), /size/);
  assert.ok(isMarkdownName('ONBOARDING.md') && isMarkdownName('notes.markdown') && !isMarkdownName('build.py'));
});

test('a single sentence longer than the size is cut at spaces, nothing lost', () => {
  const words = Array.from({ length: 120 }, (_, i) => `word${i}`).join(' ');
  const chunks = chunkText(words, 200, 40);
  for (const c of chunks) assert.ok(c.length <= 200);
  assert.equal(
    chunks
      .join(' ')
      .split(' ')
      .filter((w) => w.startsWith('word')).length >= 120,
    true,
  );
  assert.ok(chunks.join(' ').includes('word119'));
});
