// How a memory's row is labelled (src/present/memoryRowText.ts): a document chunk as the Explorer shows a file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pickRow, realTitle, rowText, typeHeading } from '../../src/present/memoryRowText';

test('a document chunk shows its section as the label and its document as the place', () => {
  const title = 'ONBOARDING.md › Releases (3 of 3)';
  assert.deepEqual(rowText({ type: 'document_chunk', title }, title), { label: 'Releases (3 of 3)', place: 'ONBOARDING.md' });
  const nested = 'docs/guide.md › Setup › Linux (2 of 9)';
  assert.deepEqual(rowText({ type: 'document_chunk', title: nested }, nested), {
    label: 'Linux (2 of 9)',
    place: 'docs/guide.md › Setup',
  });
});

test('other memories, and chunks without a section, keep their whole title as the label', () => {
  const t = 'Build › deploy order';
  assert.deepEqual(rowText({ type: 'decision', title: t }, t), { label: t });
  assert.deepEqual(rowText({ type: 'document_chunk', title: 'NOTES.md' }, 'NOTES.md'), { label: 'NOTES.md' });
  // An untitled chunk is labelled by its text, which is never split.
  assert.deepEqual(rowText({ type: 'document_chunk', title: '' }, 'a › b'), { label: 'a › b' });
});

test('a long document name in the place is cut, grapheme-safe', () => {
  const title = `${'a-very-long-folder-name/'.repeat(3)}README.md › Usage`;
  const r = rowText({ type: 'document_chunk', title }, title);
  assert.equal(r.label, 'Usage');
  assert.ok(r.place!.endsWith('…') && [...r.place!].length <= 26, r.place);
});

test('a type reads as words wherever it is named (tree groups, pick lists, suggestion rows)', () => {
  assert.equal(typeHeading('document_chunk'), 'Document chunk');
  assert.equal(typeHeading('code_pattern'), 'Code pattern');
  assert.equal(typeHeading('fact'), 'Fact');
});

test('a pick list row: a title that only repeats the start of the text is not shown twice', () => {
  const text = 'Deploy freeze starts Friday at noon. No merges after that without the release captain.';
  // Saved with its first sentence as title (Save now): the row reads like an untitled memory's.
  assert.deepEqual(pickRow('Deploy freeze starts Friday at noon.', text), {
    label: 'Deploy freeze starts Friday at noon. No merges after that without the release…',
  });
  assert.deepEqual(pickRow('', text), { label: 'Deploy freeze starts Friday at noon. No merges after that without the release…' });
  assert.deepEqual(pickRow('Release freeze', text), { label: 'Release freeze', detail: text });
});

test('a title that only repeats the start of the text is not shown; a real title is', () => {
  assert.equal(realTitle('We use pnpm as the package…', 'We use pnpm as the package manager.'), '');
  assert.equal(realTitle('We  use PNPM', 'we use pnpm\nas the manager'), '');
  assert.equal(realTitle('Package manager decision', 'We use pnpm as the package manager.'), 'Package manager decision');
  assert.equal(realTitle('  ', 'text'), '');
});
