// The static query embedder (measured, not the default: bench/locomo/RESULTS.md "A static query
// embedder"): USE-lite's tokenizer without the model, the table file, the normalized sum of a
// text's rows, and the pairing that sends queries through the table and documents through the
// real model. The tables here are made by the test (the distilled one is not shipped).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EmbedderError, UseLiteEmbedder, dot } from '../../../src/core/embed';
import { PieceTokenizer, loadPieceVocabulary } from '../../../src/core/embed/pieces';
import { BuiltinEmbedder, StaticEmbedder, decodeStaticTable, encodeStaticTable } from '../../../src/core/embed/staticEmbedder';
import { tmpDir } from '../../helpers/tmp';

const vocab = loadPieceVocabulary();
const tokenizer = new PieceTokenizer(vocab);
const pieces = (text: string) => tokenizer.encode(text).map((id) => vocab.pieces[id]);
const DIM = 512;

/** A table of 8,000 rows where row k is the unit vector on dimension k mod 512. */
function oneHotTable(): string {
  const table = new Float32Array(tokenizer.size * DIM);
  for (let k = 0; k < tokenizer.size; k++) table[k * DIM + (k % DIM)] = 1;
  const file = path.join(tmpDir('am-static-'), 'table.bin');
  fs.writeFileSync(file, encodeStaticTable(table, tokenizer.size, DIM));
  return file;
}

describe('PieceTokenizer (USE-lite’s vocabulary, no model)', () => {
  test('splits as the model does: "▁" marks a word start, the best-scoring pieces win', () => {
    assert.equal(tokenizer.size, 8000);
    assert.deepEqual(pieces('hello world'), ['▁hell', 'o', '▁world']);
    assert.deepEqual(pieces('The payments service'), ['▁The', '▁payment', 's', '▁service']);
    assert.deepEqual(pieces(''), []);
  });

  test('a character no piece knows is the unknown piece, a run of them one piece', () => {
    assert.deepEqual(pieces('☃☃ x'), ['▁', vocab.pieces[0], '▁x']);
    assert.deepEqual(pieces('naïve'), ['▁na', vocab.pieces[0], 've']);
  });
});

describe('static table file', () => {
  test('int8 rows with a scale each round-trip within a quantization step', () => {
    const rows = 3;
    const dim = 4;
    const table = Float32Array.from([0.5, -0.25, 0, 1, 0, 0, 0, 0, -2, 1, 0.5, 0.125]);
    const t = decodeStaticTable(encodeStaticTable(table, rows, dim));
    assert.deepEqual([t.rows, t.dimension], [rows, dim]);
    for (let i = 0; i < table.length; i++) {
      const back = t.values[i]! * t.scales[Math.floor(i / dim)]!;
      assert.ok(Math.abs(back - table[i]!) <= t.scales[Math.floor(i / dim)]! / 2 + 1e-7, `${i}: ${back} vs ${table[i]}`);
    }
  });

  test('a damaged file is an error that says what is wrong', () => {
    const good = encodeStaticTable(new Float32Array(8), 2, 4);
    assert.throws(() => decodeStaticTable(Buffer.from('nope, not a table')), /not a static embedding table/);
    assert.throws(() => decodeStaticTable(good.subarray(0, good.length - 1)), /truncated/);
  });
});

describe('StaticEmbedder', () => {
  test('a text’s vector is the normalized sum of its pieces’ rows, in USE-lite’s space', async () => {
    const fast = new StaticEmbedder({ weightsPath: oneHotTable() });
    assert.equal(fast.space, new UseLiteEmbedder().space);
    assert.equal(fast.dimension, DIM);
    const text = 'hello hello world';
    const ids = tokenizer.encode(text); // ▁hell o ▁hell o ▁world
    const [v] = await fast.embed([text], 'query');
    const want = new Float32Array(DIM);
    for (const id of ids) want[id % DIM]! += 1;
    const norm = Math.sqrt(dot(want, want));
    for (let d = 0; d < DIM; d++) assert.ok(Math.abs(v![d]! - want[d]! / norm) < 1e-6, `dimension ${d}`);
    assert.ok(Math.abs(dot(v!, v!) - 1) < 1e-5, 'unit length');
  });

  test('a text without pieces gives the zero vector (search then says it could not embed the query)', async () => {
    const [v] = await new StaticEmbedder({ weightsPath: oneHotTable() }).embed([''], 'query');
    assert.equal(dot(v!, v!), 0);
  });

  test('a missing or damaged table is said, and the error says how to make one', async () => {
    const dir = tmpDir('am-static-');
    const none = new StaticEmbedder({ weightsPath: path.join(dir, 'none.bin') });
    assert.match(none.missing() ?? '', /none\.bin is missing/);
    fs.writeFileSync(path.join(dir, 'small.bin'), encodeStaticTable(new Float32Array(2 * DIM), 2, DIM));
    const small = new StaticEmbedder({ weightsPath: path.join(dir, 'small.bin') });
    assert.equal(small.missing(), undefined);
    assert.equal(await small.available(), false);
    await assert.rejects(small.embed(['x'], 'query'), (err: unknown) => {
      assert.ok(err instanceof EmbedderError);
      assert.equal(err.code, 'load-failed');
      assert.match(err.message, /2 × 512, the vocabulary 8000 pieces.*bench\/student\/train\.ts/);
      return true;
    });
  });
});

describe('BuiltinEmbedder: queries through the table, documents through the model', () => {
  test('a query never starts the model; a document does, in the same space', async () => {
    const use = new UseLiteEmbedder();
    const builtin = new BuiltinEmbedder(use, new StaticEmbedder({ weightsPath: oneHotTable() }));
    try {
      assert.equal(builtin.space, use.space);
      const [q] = await builtin.embed(['which package manager do we use'], 'query');
      assert.equal(q!.length, DIM);
      assert.equal(use.running, false, 'the model was not loaded for a query');
      const [d] = await builtin.embed(['We use pnpm as the package manager.'], 'document');
      assert.equal(use.running, true);
      const [m] = await use.embed(['We use pnpm as the package manager.'], 'document');
      assert.ok(dot(d!, m!) > 0.9999, 'the model’s own document vector');
    } finally {
      builtin.dispose();
    }
  });

  test('without a usable table the model answers queries, as it did before', async () => {
    const dir = tmpDir('am-static-');
    const broken = path.join(dir, 'broken.bin');
    fs.writeFileSync(broken, 'not a table');
    const use = new UseLiteEmbedder();
    const builtin = new BuiltinEmbedder(use, new StaticEmbedder({ weightsPath: broken }));
    try {
      const [q] = await builtin.embed(['which package manager do we use'], 'query');
      const [m] = await use.embed(['which package manager do we use'], 'query');
      assert.ok(dot(q!, m!) > 0.9999, 'the model’s own query vector');
    } finally {
      builtin.dispose();
    }
  });
});
