/**
 * The teacher's answers for the student (bench/student/README.md): USE-lite's vector of every
 * training text (bench/student/corpus.ts) and of every piece of its vocabulary alone, written to
 * `.bench/student/` (git-ignored): `texts.json` and `teacher.f32` (N × 512 float32, in order).
 * Resumes where a previous run stopped. `node --import tsx bench/student/teacher.ts`
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UseLiteEmbedder } from '../../src/core/embed/useLite';
import { DEFAULT_SIZES, LARGE_SIZES, studentCorpus } from './corpus';
import { loadPieceVocabulary } from '../../src/core/embed/pieces';

export const STUDENT_DIR = path.resolve(__dirname, '../../.bench/student');
const BATCH = 64;

/** Every piece of USE-lite's vocabulary as text ("▁house" → "house"), reserved symbols left out. */
export function pieceTexts(): string[] {
  return loadPieceVocabulary()
    .pieces.slice(6)
    .map((p) => p.replace(/\u2581/g, ' ').trim())
    .filter((t) => t.length > 0);
}

/** `STUDENT_CORPUS=large` takes every sentence of the corpus packages (bench/student/README.md). */
export function teacherTexts(): string[] {
  const sizes = process.env.STUDENT_CORPUS === 'large' ? LARGE_SIZES : DEFAULT_SIZES;
  return [...new Set([...pieceTexts(), ...studentCorpus(sizes)])];
}

/** Vectors a previous run already has (`STUDENT_REUSE=<dir>` with its texts.json and teacher.f32), by text. */
function previousVectors(): (text: string) => Float32Array | undefined {
  const dir = process.env.STUDENT_REUSE;
  if (!dir) return () => undefined;
  const texts = JSON.parse(fs.readFileSync(path.join(dir, 'texts.json'), 'utf8')) as string[];
  const buf = fs.readFileSync(path.join(dir, 'teacher.f32'));
  const vecs = new Float32Array(buf.buffer, buf.byteOffset, Math.floor(buf.byteLength / 4 / 512) * 512);
  const rowOf = new Map(texts.slice(0, vecs.length / 512).map((t, i) => [t, i]));
  return (text) => {
    const row = rowOf.get(text);
    return row === undefined ? undefined : vecs.subarray(row * 512, (row + 1) * 512);
  };
}

/** `--part i/n`: this process answers the i-th of n contiguous parts of the texts, into teacher.part<i>.f32. */
function partOf(argv: string[], count: number): { from: number; to: number; file: string } {
  const at = argv.indexOf('--part');
  if (at < 0) return { from: 0, to: count, file: 'teacher.f32' };
  const [i, n] = argv[at + 1]!.split('/').map(Number) as [number, number];
  return { from: Math.floor((i * count) / n), to: Math.floor(((i + 1) * count) / n), file: `teacher.part${i}.f32` };
}

async function main(): Promise<void> {
  fs.mkdirSync(STUDENT_DIR, { recursive: true });
  const texts = teacherTexts();
  const textsFile = path.join(STUDENT_DIR, 'texts.json');
  const part = partOf(process.argv, texts.length);
  const vecFile = path.join(STUDENT_DIR, part.file);
  const same = fs.existsSync(textsFile) && fs.readFileSync(textsFile, 'utf8') === JSON.stringify(texts);
  if (!same) {
    fs.writeFileSync(textsFile, JSON.stringify(texts));
    fs.rmSync(vecFile, { force: true });
  }
  const done = fs.existsSync(vecFile) ? Math.floor(fs.statSync(vecFile).size / (512 * 4)) : 0;
  if (done > 0) fs.truncateSync(vecFile, done * 512 * 4);
  const previous = previousVectors();
  const use = new UseLiteEmbedder();
  await use.load();
  const t0 = performance.now();
  let embedded = 0;
  for (let i = part.from + done; i < part.to; i += BATCH) {
    const batch = texts.slice(i, Math.min(i + BATCH, part.to));
    const known = batch.map(previous);
    const wanted = batch.filter((_, j) => !known[j]);
    const fresh = wanted.length ? await use.embed(wanted, 'document') : [];
    embedded += fresh.length;
    const buf = new Float32Array(batch.length * 512);
    let k = 0;
    batch.forEach((_, j) => buf.set(known[j] ?? fresh[k++]!, j * 512));
    fs.appendFileSync(vecFile, Buffer.from(buf.buffer));
    if (((i - part.from) / BATCH) % 20 === 0) {
      const rate = embedded / ((performance.now() - t0) / 1000);
      process.stderr.write(`teacher: ${i + batch.length - part.from} / ${part.to - part.from} (${rate.toFixed(0)} texts/s)\n`);
    }
  }
  use.dispose();
  process.stderr.write(`teacher: texts ${part.from}..${part.to} in ${vecFile}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
