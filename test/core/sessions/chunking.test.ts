// Chunks of an event's text (src/core/sessions/chunking.ts) and the text an event gives the index
// (extract.ts): content strings and parts, tool calls' arguments, binary data left out and said so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkText, normalizeChunkText } from '../../../src/core/sessions/chunking';
import { binaryReason, extractIndexable } from '../../../src/core/sessions/extract';
import { CHUNK_MAX_CHARS, CHUNK_OVERLAP_CHARS } from '../../../src/core/sessions/limits';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

test('a short text is one chunk, normalized; white space only gives none', () => {
  assert.deepEqual(chunkText('  Hello\n\n  world\t!  '), ['Hello world !']);
  assert.deepEqual(chunkText(' \n\t '), []);
  assert.equal(normalizeChunkText('e\u0301\u0000x'), 'é x');
});

test('long text: chunks of at most 640 characters, each sharing about 96 with the one before, covering every word', () => {
  const text = words(600); // ≈ 4,300 characters
  const chunks = chunkText(text);
  assert.ok(chunks.length >= 7, `${chunks.length} chunks`);
  for (const c of chunks) assert.ok(c.length <= CHUNK_MAX_CHARS, `a chunk of ${c.length} characters`);
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1]!;
    // The next chunk starts inside the last CHUNK_OVERLAP_CHARS characters of the previous one.
    const head = chunks[i]!.slice(0, 20);
    const at = prev.lastIndexOf(head);
    assert.ok(at >= 0 && prev.length - at <= CHUNK_OVERLAP_CHARS, `chunk ${i} overlaps the previous one by ${prev.length - at}`);
    assert.ok(prev.length - at >= CHUNK_OVERLAP_CHARS / 2, `overlap of ${prev.length - at}`);
  }
  const seen = new Set(chunks.flatMap((c) => c.split(' ')));
  for (let i = 0; i < 600; i++) assert.ok(seen.has(`word${i}`), `word${i} is in a chunk`);
});

test('a text without spaces is cut at 640 characters, never inside a surrogate pair', () => {
  const text = '😀'.repeat(1000); // 2,000 UTF-16 units
  const chunks = chunkText(text);
  for (const c of chunks) {
    assert.ok(c.length <= CHUNK_MAX_CHARS);
    assert.ok(!/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(c), 'no half of an emoji at either end');
  }
  assert.equal(chunks[0]!.length, CHUNK_MAX_CHARS);
});

test('message content as a string, as Anthropic parts, and OpenAI tool calls: every text, tool names first', () => {
  assert.deepEqual(extractIndexable({ role: 'user', content: 'How do we deploy?' }), {
    role: 'user',
    texts: ['How do we deploy?'],
    skipped: [],
  });
  const parts = extractIndexable({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', name: 'Bash', input: { command: 'npm run deploy -- --dry-run', description: 'dry run' } },
      { type: 'tool_result', content: [{ type: 'text', text: 'deployed 3 services' }] },
      { type: 'image', source: { data: 'xx' } },
    ],
  });
  assert.deepEqual(parts.texts, ['Let me look.', 'Bash: npm run deploy -- --dry-run', 'dry run', 'deployed 3 services']);
  assert.deepEqual(parts.skipped, ['an attached image (not text)']);
  const openAi = extractIndexable({
    role: 'assistant',
    content: null,
    tool_calls: [{ function: { name: 'search_docs', arguments: '{"query":"retry policy","limit":5}' } }],
  });
  assert.deepEqual(openAi.texts, ['search_docs: retry policy']);
  const unparsable = extractIndexable({ role: 'assistant', tool_calls: [{ function: { name: 'x', arguments: 'not json at all' } }] });
  assert.deepEqual(unparsable.texts, ['not json at all']);
});

test('binary in tool arguments is stored, not indexed, and the skip says what it was', () => {
  const base64 = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251)).toString('base64');
  const x = extractIndexable({
    role: 'assistant',
    content: [{ type: 'tool_use', name: 'Write', input: { file_path: '/tmp/logo.png', content: base64 } }],
  });
  assert.deepEqual(x.texts, ['Write: /tmp/logo.png']);
  assert.equal(x.skipped.length, 1);
  assert.match(x.skipped[0]!, /^the arguments of Write: encoded data of 4 KB, not indexed$/);
  assert.match(binaryReason('\u0000\u0001\u0002PK\u0003\u0004 binary')!, /^binary data of \d+ bytes$/);
  assert.match(binaryReason('data:image/png;base64,AAAA')!, /^a data URL/);
  assert.equal(binaryReason('A sentence with a long-ish identifier sha256:abcdef0123456789 in it.'), undefined);
});
