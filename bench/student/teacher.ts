/**
 * The teacher's answers for the student (bench/student/README.md): USE-lite's vector of every
 * training text (bench/student/corpus.ts) and of every piece of its vocabulary alone, written to
 * `.bench/student/` (git-ignored): `texts.json` and `teacher.f32` (N × 512 float32, in order).
 * Resumes where a previous run stopped. `node --import tsx bench/student/teacher.ts`
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { UseLiteEmbedder } from '../../src/core/embed/useLite';
import { studentCorpus } from './corpus';
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

export function teacherTexts(): string[] {
  return [...new Set([...pieceTexts(), ...studentCorpus()])];
}

async function main(): Promise<void> {
  fs.mkdirSync(STUDENT_DIR, { recursive: true });
  const texts = teacherTexts();
  const textsFile = path.join(STUDENT_DIR, 'texts.json');
  const vecFile = path.join(STUDENT_DIR, 'teacher.f32');
  const same = fs.existsSync(textsFile) && fs.readFileSync(textsFile, 'utf8') === JSON.stringify(texts);
  if (!same) {
    fs.writeFileSync(textsFile, JSON.stringify(texts));
    fs.rmSync(vecFile, { force: true });
  }
  const done = fs.existsSync(vecFile) ? Math.floor(fs.statSync(vecFile).size / (512 * 4)) : 0;
  if (done > 0) fs.truncateSync(vecFile, done * 512 * 4);
  const use = new UseLiteEmbedder();
  await use.load();
  const t0 = performance.now();
  for (let i = done; i < texts.length; i += BATCH) {
    const vs = await use.embed(texts.slice(i, i + BATCH), 'document');
    const buf = new Float32Array(vs.length * 512);
    vs.forEach((v, j) => buf.set(v, j * 512));
    fs.appendFileSync(vecFile, Buffer.from(buf.buffer));
    if ((i / BATCH) % 20 === 0) {
      const rate = (i + vs.length - done) / ((performance.now() - t0) / 1000);
      process.stderr.write(`teacher: ${i + vs.length} / ${texts.length} (${rate.toFixed(0)} texts/s)\n`);
    }
  }
  use.dispose();
  process.stderr.write(`teacher: ${texts.length} vectors in ${vecFile}\n`);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
