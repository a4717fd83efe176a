/**
 * Trains the static query embedder (src/core/embed/staticEmbedder.ts) from the teacher's answers
 * (bench/student/teacher.ts): one 512-d row per USE-lite piece, started at USE-lite's vector of
 * the piece alone (model2vec's distillation), then trained on whole texts (tokenlearn's idea):
 * the normalized sum of a text's rows should point where USE-lite's vector of the text points
 * (loss 1 − cosine, Adam on the rows a batch touches). 3 % of the texts are held out; the table
 * of the epoch with the best held-out cosine is written, int8, to .bench/student/use-lite-static.bin.
 *   node --import tsx bench/student/train.ts [epochs]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PieceTokenizer, loadPieceVocabulary } from '../../src/core/embed/pieces';
import { STATIC_WEIGHTS_FILE, decodeStaticTable, encodeStaticTable } from '../../src/core/embed/staticEmbedder';
import { Rng } from '../corpus';
import { STUDENT_DIR } from './teacher';

const DIM = 512;
const BATCH = 32;
const LR = 0.002;
const OUT = path.join(STUDENT_DIR, STATIC_WEIGHTS_FILE);

interface Item {
  ids: Int32Array;
  row: number;
}

function load(): { texts: string[]; teacher: Float32Array } {
  const texts = JSON.parse(fs.readFileSync(path.join(STUDENT_DIR, 'texts.json'), 'utf8')) as string[];
  const buf = fs.readFileSync(path.join(STUDENT_DIR, 'teacher.f32'));
  const teacher = new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.byteLength / 4 / DIM) * DIM);
  return { texts: texts.slice(0, teacher.length / DIM), teacher };
}

function initTable(tok: PieceTokenizer, pieces: string[], texts: string[], teacher: Float32Array, rng: Rng): Float32Array {
  const rowOf = new Map(texts.map((t, i) => [t, i]));
  const table = new Float32Array(tok.size * DIM);
  let fromTeacher = 0;
  for (let id = 0; id < tok.size; id++) {
    const row = rowOf.get(pieces[id]!.replace(/\u2581/g, ' ').trim());
    if (row !== undefined && id >= 6) {
      table.set(teacher.subarray(row * DIM, (row + 1) * DIM), id * DIM);
      fromTeacher++;
    } else for (let d = 0; d < DIM; d++) table[id * DIM + d] = (rng.next() - 0.5) * 0.01;
  }
  process.stderr.write(`train: ${fromTeacher} of ${tok.size} rows start from the teacher's vector of the piece\n`);
  return table;
}

/** Normalized sum of the rows of `ids` into `out`; returns the norm before normalizing. */
function forward(table: Float32Array, ids: Int32Array, out: Float32Array): number {
  out.fill(0);
  for (const id of ids) {
    const at = id * DIM;
    for (let d = 0; d < DIM; d++) out[d]! += table[at + d]!;
  }
  let ss = 0;
  for (let d = 0; d < DIM; d++) ss += out[d]! * out[d]!;
  const norm = Math.sqrt(ss) || 1;
  for (let d = 0; d < DIM; d++) out[d]! /= norm;
  return norm;
}

function meanCosine(table: Float32Array, items: Item[], teacher: Float32Array): number {
  const u = new Float32Array(DIM);
  let sum = 0;
  for (const it of items) {
    forward(table, it.ids, u);
    let c = 0;
    for (let d = 0; d < DIM; d++) c += u[d]! * teacher[it.row * DIM + d]!;
    sum += c;
  }
  return sum / items.length;
}

class Adam {
  private readonly m: Float32Array;
  private readonly v: Float32Array;
  private t = 0;
  constructor(size: number) {
    this.m = new Float32Array(size);
    this.v = new Float32Array(size);
  }
  step(table: Float32Array, grads: Map<number, Float32Array>, lr: number): void {
    this.t++;
    const b1 = 0.9;
    const b2 = 0.999;
    const c1 = 1 - b1 ** this.t;
    const c2 = 1 - b2 ** this.t;
    for (const [id, g] of grads) {
      const at = id * DIM;
      for (let d = 0; d < DIM; d++) {
        const k = at + d;
        this.m[k] = b1 * this.m[k]! + (1 - b1) * g[d]!;
        this.v[k] = b2 * this.v[k]! + (1 - b2) * g[d]! * g[d]!;
        table[k]! -= (lr * (this.m[k]! / c1)) / (Math.sqrt(this.v[k]! / c2) + 1e-8);
      }
    }
  }
}

function epoch(table: Float32Array, items: Item[], teacher: Float32Array, adam: Adam, rng: Rng): void {
  const order = items.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const u = new Float32Array(DIM);
  const g = new Float32Array(DIM);
  for (let b = 0; b < order.length; b += BATCH) {
    const grads = new Map<number, Float32Array>();
    for (const k of order.slice(b, b + BATCH)) {
      const it = items[k]!;
      const norm = forward(table, it.ids, u);
      const y = teacher.subarray(it.row * DIM, (it.row + 1) * DIM);
      let c = 0;
      for (let d = 0; d < DIM; d++) c += u[d]! * y[d]!;
      // d(1 − u·y)/ds = −(y − (u·y) u) / |s|, the same for every row of the sum.
      for (let d = 0; d < DIM; d++) g[d] = -(y[d]! - c * u[d]!) / norm / BATCH;
      for (const id of it.ids) {
        let acc = grads.get(id);
        if (!acc) grads.set(id, (acc = new Float32Array(DIM)));
        for (let d = 0; d < DIM; d++) acc[d]! += g[d]!;
      }
    }
    adam.step(table, grads, LR);
  }
}

function main(): void {
  const epochs = Number(process.argv[2] ?? 12);
  const rng = new Rng(17);
  const vocab = loadPieceVocabulary();
  const tok = new PieceTokenizer(vocab);
  const { texts, teacher } = load();
  const table = initTable(tok, vocab.pieces, texts, teacher, rng);
  const items: Item[] = [];
  texts.forEach((t, row) => {
    const ids = Int32Array.from(tok.encode(t));
    if (ids.length) items.push({ ids, row });
  });
  const held = items.filter((_, i) => i % 33 === 0 && items[i]!.ids.length > 1);
  const train = items.filter((_, i) => i % 33 !== 0 || items[i]!.ids.length <= 1);
  process.stderr.write(
    `train: ${train.length} texts, ${held.length} held out; held-out cosine at start ${meanCosine(table, held, teacher).toFixed(4)}\n`,
  );
  const adam = new Adam(table.length);
  let best = { cos: meanCosine(table, held, teacher), table: table.slice(), epoch: 0 };
  for (let e = 1; e <= epochs; e++) {
    const t0 = performance.now();
    epoch(table, train, teacher, adam, rng);
    const cos = meanCosine(table, held, teacher);
    process.stderr.write(
      `train: epoch ${e}: held-out cosine ${cos.toFixed(4)}, train ${meanCosine(table, train.slice(0, 3000), teacher).toFixed(4)} (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
    );
    if (cos > best.cos) best = { cos, table: table.slice(), epoch: e };
  }
  const buf = encodeStaticTable(best.table, tok.size, DIM);
  const q = decodeStaticTable(buf);
  const dequant = new Float32Array(q.rows * DIM);
  for (let i = 0; i < dequant.length; i++) dequant[i] = q.values[i]! * q.scales[Math.floor(i / DIM)]!;
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, buf);
  process.stderr.write(
    `train: epoch ${best.epoch} written to ${OUT} (${(buf.length / 1e6).toFixed(2)} MB); held-out cosine ${best.cos.toFixed(4)}, int8 ${meanCosine(dequant, held, teacher).toFixed(4)}\n`,
  );
}

main();
