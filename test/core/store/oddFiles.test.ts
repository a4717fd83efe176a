/**
 * Odd entries where the store keeps its files (docs/durability.md "Odd files"): a folder named
 * like a snapshot, a file named like a folder. Primary data is never guessed at: the store refuses
 * to open with an error that names the path and says what to do. The vector index folder holds
 * only what can be rebuilt: an odd file there is moved to quarantine/ and the index rebuilt.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Store } from '../../../src/core/store/store';
import { UserFacingError } from '../../../src/core/util/errors';
import { openWritePath, sampleTexts } from '../../fixtures/writePath';
import { readIndexFileInfo } from '../../../src/core/vector/indexFile';
import { tmpDir } from '../../helpers/tmp';

async function storeWithData(): Promise<string> {
  const dir = tmpDir('am-odd-');
  const s = await Store.open({ dir });
  s.transaction((tx) =>
    tx.run(
      `INSERT INTO memories (id, project_id, content, normalized_content, content_hash, doc_hash, created_at, updated_at)
       VALUES ('m1', 'p', 'a note', 'a note', 'h1', 'd1', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    ),
  );
  await s.close();
  return dir;
}

const odd: Array<[string, (dir: string) => void, string, RegExp]> = [
  [
    'snapshot.sqlite is a folder',
    (dir) => {
      fs.rmSync(path.join(dir, 'snapshot.sqlite'));
      fs.mkdirSync(path.join(dir, 'snapshot.sqlite'));
      fs.writeFileSync(path.join(dir, 'snapshot.sqlite', 'notes.txt'), 'kept');
    },
    'snapshot.sqlite',
    /is a folder, where the store keeps a file/,
  ],
  [
    'snapshot.prev.sqlite is a folder',
    (dir) => fs.mkdirSync(path.join(dir, 'snapshot.prev.sqlite')),
    'snapshot.prev.sqlite',
    /is a folder/,
  ],
  [
    'log is a file',
    (dir) => {
      fs.rmSync(path.join(dir, 'log'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'log'), 'not a folder');
    },
    'log',
    /is a file, where the store keeps a folder/,
  ],
  ['quarantine is a file', (dir) => fs.writeFileSync(path.join(dir, 'quarantine'), 'not a folder'), 'quarantine', /is a file/],
];

for (const [label, make, name, kind] of odd) {
  test(`${label}: the store does not open, with an error that names the path and says what to do (not a raw EISDIR)`, async () => {
    const dir = await storeWithData();
    make(dir);
    for (const readOnly of [false, true]) {
      await assert.rejects(Store.open({ dir, readOnly }), (e: unknown) => {
        assert.ok(e instanceof UserFacingError, String(e));
        assert.equal(e.code, 'store_corrupt');
        assert.ok(e.message.includes(path.join(dir, name)), e.message);
        assert.match(e.message, kind);
        assert.match(e.message, /Move it out of the store folder/);
        assert.doesNotMatch(e.message, /EISDIR|ENOTDIR|EEXIST/);
        return true;
      });
    }
    assert.equal(fs.existsSync(path.join(dir, 'store.lock')), false, 'no lock is left behind');
  });
}

test('vectors/ is a file: it is moved to quarantine with a warning and the index is rebuilt and saved; nothing else fails', async () => {
  const dir = tmpDir('am-odd-vec-');
  const w = await openWritePath({ dir });
  for (const t of sampleTexts(20, 3)) await w.ingest.create({ content: t, allowNearDuplicate: true });
  await w.close();
  fs.rmSync(path.join(dir, 'vectors'), { recursive: true, force: true });
  fs.writeFileSync(path.join(dir, 'vectors'), 'something someone put here');
  const w2 = await openWritePath({ dir });
  try {
    await w2.vectors.whenReady();
    const warnings = w2.vectors.warnings.join('\n');
    assert.match(warnings, /vectors was a file, where the vector indexes are kept: it was moved to .*quarantine/);
    assert.equal(w2.vectors.size, 20);
    await w2.vectors.save();
    const info = await readIndexFileInfo(path.join(dir, 'vectors', `${w2.embedder.space}.hnsw`));
    assert.equal(info.count, 20, 'the rebuilt index is saved');
    const kept = fs.readdirSync(path.join(dir, 'quarantine')).filter((n) => n.endsWith('-vectors'));
    assert.equal(kept.length, 1);
    assert.equal(fs.readFileSync(path.join(dir, 'quarantine', kept[0]!), 'utf8'), 'something someone put here');
    assert.doesNotMatch(warnings, /EEXIST|not saved/);
  } finally {
    await w2.close();
  }
});
