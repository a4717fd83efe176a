// The memory document (src/extension/memories/memoryFsFormat.ts): a memory renders as YAML front matter
// plus its text; reading the text back gives the same fields; an edit becomes a patch with only
// the changed fields; a wrong value is an error naming its field. Records come from a real store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  MemoryFieldError,
  memoryDocumentProblems,
  parseMemoryDocument,
  patchFor,
  renderMemory,
} from '../../../src/extension/memories/memoryFsFormat';
import { openMemory } from '../../helpers/memoryFixture';

async function record(input: Parameters<Awaited<ReturnType<typeof openMemory>>['svc']['create']>[0]) {
  const { svc } = await openMemory();
  const r = svc.create(input);
  if (r.status !== 'created') throw new Error(`not created: ${r.status}`);
  return r.memory;
}

test('render → parse is the identity, and an unchanged document is an empty patch', async () => {
  const written = 'Use pnpm, not npm, in this repository.\n\n- the lock file is `pnpm-lock.yaml`\n- CI runs `pnpm i --frozen-lockfile`';
  const m = await record({
    content: written,
    title: 'Use pnpm: not npm',
    type: 'preference',
    tags: ['tooling', 'node'],
    importance: 0.7,
    ttlSeconds: 7 * 86_400,
  });
  const text = renderMemory(m);
  assert.match(text, /^---\n# Version 1 · created 1 Mar 2026, \d\d:00\ntitle: /);
  assert.match(text, /\ntitle: "Use pnpm: not npm"\n/, 'a title with ": " is quoted');
  assert.match(text, /\ntags: \[ tooling, node \]\n/);
  assert.match(text, /\nlifetime: 1 week # expires 8 Mar 2026, \d\d:00\n/);
  // Each use pushes a short-term memory's expiry out: the later date says why.
  const used = renderMemory({ ...m, expiresAt: new Date(Date.parse(m.expiresAt!) + 3.5 * 86_400_000).toISOString() });
  assert.match(used, /\nlifetime: 1 week # expires 1[12] Mar 2026, \d\d:00 \(extended by use\)\n/);
  // The document shows the text as written (line breaks kept), not the collapsed stored content.
  assert.notEqual(m.content, written);
  assert.ok(text.endsWith(`\n---\n\n${written}\n`));
  const fields = parseMemoryDocument(text, m);
  assert.equal(fields.title, m.title);
  assert.equal(fields.content, written);
  assert.deepEqual(fields.tags, ['tooling', 'node']);
  assert.equal(fields.ttlSeconds, 7 * 86_400);
  assert.deepEqual(patchFor(fields, m), {});
});

test('an edited document becomes a patch of the changed fields only', async () => {
  const m = await record({ content: 'Staging listens on port 5433.', tags: ['db'], ttlSeconds: null });
  const edited = renderMemory(m)
    .replace('Staging listens on port 5433.', 'Staging listens on port 5434 since the April move.\nAsk #ops before changing it.')
    .replace('title: ""', 'title: Staging port')
    .replace('tags: [ db ]', 'tags: db, Staging')
    .replace('lifetime: permanent', 'lifetime: 30 days');
  const patch = patchFor(parseMemoryDocument(edited, m), m);
  assert.deepEqual(patch, {
    content: 'Staging listens on port 5434 since the April move.\nAsk #ops before changing it.',
    title: 'Staging port',
    tags: ['db', 'staging'],
    ttlSeconds: 30 * 86_400,
  });
  // Windows line ends and a document without front matter: only the text changes.
  assert.deepEqual(patchFor(parseMemoryDocument('New text for the memory.\r\n', m), m), { content: 'New text for the memory.' });
});

test('invalid values are errors that name the field', async () => {
  const m = await record({ content: 'Releases are cut on Mondays.', ttlSeconds: null });
  const text = renderMemory(m);
  const cases: [string, string, RegExp][] = [
    ['type: general', 'type: recipe', /^type: must be one of /],
    ['importance: 0.5', 'importance: high', /^importance: must be a number from 0 to 1/],
    ['importance: 0.5', 'importance: 1.5', /^importance: /],
    ['scope: project', 'scope: team', /^scope: must be "project" or "global"/],
    ['lifetime: permanent', 'lifetime: forever', /^lifetime: write "permanent" or a duration like "7 days", "12h" or "30m", not "forever"/],
    ['lifetime: permanent', 'lifetime: 0 days', /^lifetime: /],
    ['tags: []', 'tags: { a: 1 }', /^tags: /],
    ['title: ""', 'title: [a, b]', /^title: must be one line of text/],
    ['scope: project', 'scope: project\ncolour: blue', /^colour: is not a field of a memory \(the fields are title, type/],
    ['title: ""', 'title: "unclosed', /^front matter: not valid YAML/],
    ['Releases are cut on Mondays.', '', /^text: the memory text below the front matter is empty/],
  ];
  for (const [from, to, re] of cases) {
    assert.ok(text.includes(from), from);
    assert.throws(
      () => parseMemoryDocument(text.replace(from, to), m),
      (e: unknown) => e instanceof MemoryFieldError && re.test(e.message),
      `${to} → ${re}`,
    );
  }
  assert.throws(() => parseMemoryDocument('---\ntitle: x\nno closing line', m), /front matter: the closing "---" line is missing/);
});

test('lifetimes are read as agent.yaml and the CLI read them: "2m", "1h30m", "2w", whole seconds, words', async () => {
  const m = await record({ content: 'Releases are cut on Mondays.', ttlSeconds: null });
  const text = renderMemory(m);
  const cases: [string, number, string][] = [
    ['2m', 120, '2 minutes'],
    ['1h30m', 5_400, '90 minutes'],
    ['2w', 14 * 86_400, '2 weeks'],
    ['3600', 3_600, '1 hour'],
    ['7 days', 7 * 86_400, '1 week'],
    ['12h', 12 * 3_600, '12 hours'],
  ];
  for (const [written, seconds, shown] of cases) {
    const f = parseMemoryDocument(text.replace('lifetime: permanent', `lifetime: ${written}`), m);
    assert.deepEqual([f.ttlSeconds, f.lifetime], [seconds, shown], written);
  }
});

test('every wrong value is a problem at the place it is written, all of them at once', async () => {
  const m = await record({ content: 'Releases are cut on Mondays.', ttlSeconds: null });
  const text = renderMemory(m)
    .replace('type: general', 'type: recipe')
    .replace('importance: 0.5', 'importance: high')
    .replace('lifetime: permanent', 'lifetime: forever')
    .replace('scope: project', 'scope: project\ncolour: blue');
  const problems = memoryDocumentProblems(text);
  assert.deepEqual(
    problems.map((p) => [p.field, text.slice(p.start, p.end)]),
    [
      ['type', 'recipe'],
      ['importance', 'high'],
      ['colour', 'colour'],
      ['lifetime', 'forever'],
    ],
  );
  assert.ok(problems.every((p) => p instanceof MemoryFieldError));
  assert.deepEqual(memoryDocumentProblems(renderMemory(m)), [], 'a document as rendered has none');
  assert.deepEqual(memoryDocumentProblems('Just text, no front matter.'), []);

  // Where the front matter itself is broken, or the text is missing.
  const broken = memoryDocumentProblems('---\ntitle: "unclosed\n---\n\nText.');
  assert.equal(broken.length, 1);
  assert.equal(broken[0]!.field, 'front matter');
  assert.ok(broken[0]!.start >= 4 && broken[0]!.end > broken[0]!.start, JSON.stringify(broken[0]));
  const unclosed = memoryDocumentProblems('---\ntitle: x\nno closing line');
  assert.deepEqual([unclosed[0]!.field, unclosed[0]!.start, unclosed[0]!.end], ['front matter', 0, 3]);
  const empty = renderMemory(m).replace('Releases are cut on Mondays.', '');
  assert.deepEqual(
    memoryDocumentProblems(empty).map((p) => p.field),
    ['text'],
  );

  // Windows line ends: the places are those of the text as it is (with its \r\n).
  const crlf = text.replace(/\n/g, '\r\n');
  assert.deepEqual(
    memoryDocumentProblems(crlf).map((p) => crlf.slice(p.start, p.end)),
    ['recipe', 'high', 'colour', 'forever'],
  );
});
