/**
 * Index files are written and read in a stream (src/core/vector/indexFile.ts): the bytes are
 * exactly those of HnswIndex.serialize() (files written before load unchanged), a sink failure
 * (disk full) leaves the index usable, and hnswlib's part of a file is read
 * straight from it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HnswIndex } from '../../../src/core/vector/hnswIndex';
import { loadIndexFile, saveIndexFile } from '../../../src/core/vector/indexFile';
import { crc32 } from '../../../src/core/store/checksum';
import { CorruptIndexError } from '../../../src/core/vector/errors';
import { tmpDir } from '../../helpers/tmp';
import { clusteredVectors } from './data';

async function sampleIndex(): Promise<{ index: HnswIndex; queries: Float32Array[] }> {
  const { vectors, queries } = clusteredVectors({ n: 1500, dim: 48, clusters: 15, queries: 20, seed: 33 });
  const index = await HnswIndex.create({ dim: 48, initialCapacity: 256 });
  vectors.forEach((v, i) => index.add(i + 1, v));
  for (let l = 1; l <= 1500; l += 7) index.remove(l); // deleted labels and vacant slots travel too
  return { index, queries };
}

test('the streamed file holds exactly serialize()’s bytes, and a file built from serialize() loads the same', async () => {
  const { index, queries } = await sampleIndex();
  const dir = tmpDir('am-vstream-');
  const file = path.join(dir, 'a.hnsw');
  try {
    const info = await saveIndexFile(file, index, { watermark: 42 });
    const bytes = fs.readFileSync(file);
    const payload = index.serialize();
    assert.equal(info.payloadBytes, payload.length);
    assert.ok(Buffer.from(payload).equals(bytes.subarray(64)), 'payload bytes identical');
    assert.equal(bytes.readUInt32LE(48), crc32(payload));

    // A file as the whole-buffer writer produced it: same header, same payload.
    const old = path.join(dir, 'old.hnsw');
    fs.writeFileSync(old, Buffer.concat([bytes.subarray(0, 64), payload]));
    for (const f of [file, old]) {
      const { index: loaded, info: got } = await loadIndexFile(f, { expectDim: 48 });
      try {
        assert.equal(got.watermark, 42);
        assert.equal(loaded.size, index.size);
        for (const q of queries)
          assert.deepEqual(
            loaded.search(q, 10).map((h) => h.label),
            index.search(q, 10).map((h) => h.label),
          );
      } finally {
        loaded.dispose();
      }
    }
  } finally {
    index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an index of several megabytes loads from its file the same (the reads cross the 1 MB read-ahead)', async () => {
  const { vectors, queries } = clusteredVectors({ n: 3000, dim: 256, clusters: 20, queries: 20, seed: 5 });
  const index = await HnswIndex.create({ dim: 256, initialCapacity: 3000 });
  vectors.forEach((v, i) => index.add(i + 1, v));
  const dir = tmpDir('am-vstream-');
  const file = path.join(dir, 'big.hnsw');
  try {
    const info = await saveIndexFile(file, index, { watermark: 7 });
    assert.ok(info.payloadBytes > 3 << 20, `payload ${info.payloadBytes} bytes`);
    const { index: loaded } = await loadIndexFile(file, { expectDim: 256 });
    try {
      assert.equal(loaded.size, index.size);
      for (const q of queries)
        assert.deepEqual(
          loaded.search(q, 10).map((h) => h.label),
          index.search(q, 10).map((h) => h.label),
        );
      for (const label of [1, 1500, 3000]) assert.deepEqual(Array.from(loaded.getVector(label)!), Array.from(index.getVector(label)!));
    } finally {
      loaded.dispose();
    }
  } finally {
    index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a sink that fails mid-way (disk full) throws, and the index keeps working and serializing', async () => {
  const { index, queries } = await sampleIndex();
  try {
    let seen = 0;
    assert.throws(
      () =>
        index.serializeTo((chunk) => {
          seen += chunk.length;
          if (seen > 4096) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        }),
      /ENOSPC/,
    );
    const before = queries.map((q) => index.search(q, 5).map((h) => h.label));
    index.add(99_999, queries[0]!);
    assert.equal(index.search(queries[0]!, 1)[0]!.label, 99_999);
    index.remove(99_999);
    assert.deepEqual(
      queries.map((q) => index.search(q, 5).map((h) => h.label)),
      before,
    );
    const again = await HnswIndex.deserialize(index.serialize());
    try {
      assert.equal(again.size, index.size);
    } finally {
      again.dispose();
    }
  } finally {
    index.dispose();
  }
});

test('a file whose hnswlib part is cut short, or whose payload is altered, is refused', async () => {
  const { index } = await sampleIndex();
  const dir = tmpDir('am-vstream-');
  const file = path.join(dir, 'a.hnsw');
  try {
    await saveIndexFile(file, index, { watermark: 1 });
    const good = fs.readFileSync(file);
    fs.writeFileSync(file, good.subarray(0, good.length - 100));
    await assert.rejects(loadIndexFile(file), CorruptIndexError);
    const flipped = Buffer.from(good);
    flipped[good.length - 10]! ^= 0xff;
    fs.writeFileSync(file, flipped);
    await assert.rejects(loadIndexFile(file), (e: unknown) => e instanceof CorruptIndexError && e.reason === 'payload-checksum');
    fs.writeFileSync(file, good);
    const { index: ok } = await loadIndexFile(file);
    assert.equal(ok.size, index.size);
    ok.dispose();
  } finally {
    index.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
