// The files an export writes and an import reads, through the real worker thread (the path VS Code's
// Export and Import commands take): an export through a symbolic link replaces the link's target
// and keeps the link, export files are private (0600), a FIFO or a folder is refused at once (the
// engine never blocks on a pipe nor renames over anything but a regular file), and an import
// refuses a folder, a FIFO and binary or non-UTF-8 files with a sentence, strips a byte order
// mark and reads CRLF, CR-only and LF line endings alike.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EngineError } from '../../src/engine/errors';
import type { EngineClient } from '../../src/engine/client/engineClient';
import { JSONL_FORMAT, parseJsonl, looksLikeJsonl } from '../../src/engine/transferFormat';
import { engineDirs, startClient } from './harness';
import { tmpDir } from '../helpers/tmp';

async function withEngine<T>(fn: (c: EngineClient) => Promise<T>): Promise<T> {
  const client = startClient({ ...engineDirs() });
  await client.start();
  try {
    return await fn(client);
  } finally {
    await client.shutdown(4000);
  }
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

function invalid(pattern: RegExp) {
  return (e: unknown) => e instanceof EngineError && e.code === 'invalid_input' && pattern.test(e.message);
}

test('engine export: through a symbolic link to its target, private files, FIFOs and folders refused at once', async () => {
  const dir = tmpDir('am-transfer-files-');
  const other = path.join(dir, 'other');
  fs.mkdirSync(other);
  const target = path.join(other, 'memories.jsonl');
  fs.writeFileSync(target, 'old\n');
  fs.chmodSync(target, 0o644);
  const link = path.join(dir, 'link.jsonl');
  fs.symlinkSync(path.relative(dir, target), link);
  const fifo = path.join(dir, 'pipe.jsonl');
  execFileSync('mkfifo', [fifo]);
  await withEngine(async (c) => {
    await c.request('memory.create', { content: 'Exports are written through links to the file the link names.' });
    const r = await c.request('export', { path: link });
    assert.equal(r.count, 1);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is kept');
    assert.match(fs.readFileSync(target, 'utf8'), /written through links/);
    assert.equal(mode(target), 0o600, 'the replaced target is private');
    assert.deepEqual(fs.readdirSync(other), ['memories.jsonl'], 'the temporary file was made next to the target and renamed');
    const fresh = path.join(dir, 'fresh.json');
    await c.request('export', { path: fresh });
    assert.equal(mode(fresh), 0o600, 'the older JSON format is private too');
    // Refused without opening it: opening a FIFO with no reader would wait for ever (no reader
    // comes), so an answer at all shows it did not wait for one.
    await assert.rejects(c.request('export', { path: fifo }), invalid(/pipe\.jsonl: it is a FIFO, not a file/));
    assert.ok(fs.lstatSync(fifo).isFIFO(), 'the FIFO is left alone');
    await assert.rejects(c.request('export', { path: other }), invalid(/is a folder: give a file name/));
    assert.equal((await c.request('stats', {})).project.memories, 1, 'the engine still answers');
  });
});

test('engine import: a folder, a FIFO, a binary file, UTF-16 and Latin-1 are refused with a sentence', async () => {
  const dir = tmpDir('am-transfer-files-');
  const fifo = path.join(dir, 'pipe.jsonl');
  execFileSync('mkfifo', [fifo]);
  const files = {
    binary: Buffer.from([0x7b, 0x22, 0x00, 0x01, 0xff, 0xfe, 0x00, 0x00]),
    utf16: Buffer.from('\ufeff{"content":"Sixteen bits per character is not what we read."}\n', 'utf16le'),
    latin1: Buffer.from('{"content":"Caf\xe9 au lait is served at nine every day."}\n', 'latin1'),
    empty: Buffer.from('  \n'),
  };
  for (const [name, bytes] of Object.entries(files)) fs.writeFileSync(path.join(dir, `${name}.jsonl`), bytes);
  await withEngine(async (c) => {
    await assert.rejects(c.request('import', { path: dir }), invalid(/is a folder: give a \.jsonl or \.json file/));
    // Refused without opening it: no writer ever comes, so an answer at all shows it did not wait for one.
    await assert.rejects(c.request('import', { path: fifo }), invalid(/is a FIFO, not a file/));
    await assert.rejects(c.request('import', { path: path.join(dir, 'binary.jsonl') }), invalid(/is not a text file/));
    await assert.rejects(c.request('import', { path: path.join(dir, 'utf16.jsonl') }), invalid(/is UTF-16 text: save it as UTF-8/));
    await assert.rejects(c.request('import', { path: path.join(dir, 'latin1.jsonl') }), invalid(/is not UTF-8 text/));
    await assert.rejects(c.request('import', { path: path.join(dir, 'empty.jsonl') }), invalid(/is empty: nothing to import/));
    assert.equal((await c.request('memory.list', {})).total, 0);
  });
});

test('engine import: a byte order mark is stripped; CRLF, CR-only and LF lines are numbered alike', async () => {
  const dir = tmpDir('am-transfer-files-');
  const header = JSON.stringify({ format: JSONL_FORMAT, version: 1, exportedAt: '2026-01-01T00:00:00.000Z', projectId: 'x', count: 2 });
  await withEngine(async (c) => {
    for (const [name, eol] of [
      ['crlf', '\r\n'],
      ['cr', '\r'],
      ['lf', '\n'],
    ] as const) {
      const file = path.join(dir, `${name}.txt`); // no .jsonl name: the header line says what it is
      const lines = [header, JSON.stringify({ content: `Ending ${name}: tags are lower case without spaces.` }), 'nope', ''];
      fs.writeFileSync(file, '\ufeff' + lines.join(eol));
      const r = await c.request('import', { path: file });
      assert.deepEqual(
        { format: r.format, created: r.created, lines: r.errors.map((e) => e.line) },
        { format: 'jsonl', created: 1, lines: [3] },
        name,
      );
    }
  });
  assert.ok(looksLikeJsonl('x.txt', `${header}\r{"content":"a"}`), 'a CR-only header line is recognized');
  assert.deepEqual(
    parseJsonl('{"content":"one line here"}\r{"content":"two lines here"}\r\rbad').items.map((i) => i.line),
    [1, 2, 4],
  );
});
