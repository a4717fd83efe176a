/**
 * A static query embedder (measured, not the default: bench/locomo/RESULTS.md "A static query
 * embedder"): a table of one 512-d vector per piece of USE-lite's vocabulary (pieces.ts),
 * distilled from USE-lite so that the normalized sum of a text's piece vectors lands near
 * USE-lite's own vector of that text (bench/student/: the corpus, the teacher, the training, none
 * of it LoCoMo). A query costs a tokenization and a few thousand additions — no model, no thread
 * — and its vector is in USE-lite's space, so it searches the vectors the model stored. The table
 * is not shipped: bench/student/train.ts writes it (int8 rows with a float32 scale each).
 *
 * File layout (little-endian): "AMSE" magic, u32 version (1), u32 rows, u32 dimension, then
 * `rows` float32 scales, then rows × dimension int8 values.
 */
import * as fs from 'node:fs';
import { EmbedderError, spaceName, type EmbedKind, type Embedder } from './types';
import { PieceTokenizer, loadPieceVocabulary } from './pieces';

export const STATIC_WEIGHTS_FILE = 'use-lite-static.bin';
const MAGIC = 0x45534d41; // "AMSE"
const VERSION = 1;
const HEADER_BYTES = 16;

export interface StaticTable {
  rows: number;
  dimension: number;
  scales: Float32Array;
  values: Int8Array;
}

/** Writes a table in the file layout above (the training script's output). */
export function encodeStaticTable(table: Float32Array, rows: number, dimension: number): Buffer {
  const buf = Buffer.alloc(HEADER_BYTES + rows * 4 + rows * dimension);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeUInt32LE(VERSION, 4);
  buf.writeUInt32LE(rows, 8);
  buf.writeUInt32LE(dimension, 12);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let d = 0; d < dimension; d++) max = Math.max(max, Math.abs(table[r * dimension + d]!));
    const scale = max / 127 || 1;
    buf.writeFloatLE(scale, HEADER_BYTES + r * 4);
    const at = HEADER_BYTES + rows * 4 + r * dimension;
    for (let d = 0; d < dimension; d++) buf.writeInt8(Math.round(table[r * dimension + d]! / scale), at + d);
  }
  return buf;
}

export function decodeStaticTable(buf: Buffer): StaticTable {
  if (buf.length < HEADER_BYTES || buf.readUInt32LE(0) !== MAGIC) throw new Error('not a static embedding table');
  if (buf.readUInt32LE(4) !== VERSION) throw new Error(`static embedding table version ${buf.readUInt32LE(4)} is not ${VERSION}`);
  const rows = buf.readUInt32LE(8);
  const dimension = buf.readUInt32LE(12);
  if (buf.length !== HEADER_BYTES + rows * 4 + rows * dimension) throw new Error('static embedding table is truncated');
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) scales[r] = buf.readFloatLE(HEADER_BYTES + r * 4);
  const values = new Int8Array(buf.buffer, buf.byteOffset + HEADER_BYTES + rows * 4, rows * dimension);
  return { rows, dimension, scales, values };
}

export interface StaticEmbedderOptions {
  /** The table file (bench/student/train.ts writes it). */
  weightsPath: string;
  /** USE-lite's vocabulary (`vocab.json`). Default: the one shipped with the model. */
  vocabularyPath?: string;
}

/** Embeds with the distilled table, in the caller's thread. Same space and dimension as USE-lite. */
export class StaticEmbedder implements Embedder {
  readonly id = 'builtin:use-lite-static';
  readonly space = spaceName('builtin', 'use-lite', 512);
  readonly dimension = 512;
  private model: { tokenizer: PieceTokenizer; table: StaticTable } | undefined;
  private fatal: EmbedderError | undefined;

  constructor(private readonly opts: StaticEmbedderOptions) {}

  /** Whether the weights and the vocabulary are where they should be (without reading them). */
  missing(): string | undefined {
    const file = this.opts.weightsPath;
    if (!fs.existsSync(file)) return `its table ${file} is missing`;
    return undefined;
  }

  private load(): { tokenizer: PieceTokenizer; table: StaticTable } {
    if (this.model) return this.model;
    if (this.fatal) throw this.fatal;
    try {
      const table = decodeStaticTable(fs.readFileSync(this.opts.weightsPath));
      const tokenizer = new PieceTokenizer(loadPieceVocabulary(this.opts.vocabularyPath));
      if (table.rows !== tokenizer.size || table.dimension !== this.dimension) {
        throw new Error(`its table has ${table.rows} × ${table.dimension}, the vocabulary ${tokenizer.size} pieces`);
      }
      this.model = { tokenizer, table };
      return this.model;
    } catch (err) {
      this.fatal = new EmbedderError(
        `The static query embedder could not be loaded (${(err as Error).message}). Make its table with bench/student/train.ts.`,
        'load-failed',
        this.id,
        undefined,
        { cause: err },
      );
      throw this.fatal;
    }
  }

  /** One text's vector: the normalized sum of its pieces' rows (zeros for a text without pieces). */
  vector(text: string): Float32Array {
    const { tokenizer, table } = this.load();
    const dim = table.dimension;
    const out = new Float32Array(dim);
    for (const id of tokenizer.encode(text.slice(0, 10_000))) {
      const s = table.scales[id]!;
      const at = id * dim;
      for (let d = 0; d < dim; d++) out[d]! += s * table.values[at + d]!;
    }
    let ss = 0;
    for (let d = 0; d < dim; d++) ss += out[d]! * out[d]!;
    if (ss > 0) {
      const inv = 1 / Math.sqrt(ss);
      for (let d = 0; d < dim; d++) out[d]! *= inv;
    }
    return out;
  }

  embed(texts: string[], _kind: EmbedKind): Promise<Float32Array[]> {
    try {
      return Promise.resolve(texts.map((t) => this.vector(t)));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  available(): Promise<boolean> {
    try {
      this.load();
      return Promise.resolve(true);
    } catch {
      return Promise.resolve(false);
    }
  }

  dispose(): void {
    this.model = undefined;
  }
}

/**
 * USE-lite for documents (its worker, loaded when the first document needs it, released when
 * idle) and the static table for queries, into the same space: how the static query path would be
 * used (bench/locomo/configs.ts measures it). When the table cannot be loaded, queries go to
 * USE-lite too.
 */
export class BuiltinEmbedder implements Embedder {
  readonly id = 'builtin:use-lite+static-query';
  constructor(
    readonly documents: Embedder,
    readonly queries: StaticEmbedder,
  ) {
    if (documents.space !== queries.space || documents.dimension !== queries.dimension) {
      throw new Error(`query embedder ${queries.space} does not match ${documents.space}`);
    }
  }

  get space(): string {
    return this.documents.space;
  }
  get dimension(): number {
    return this.documents.dimension;
  }

  async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    if (kind === 'query') {
      try {
        return await this.queries.embed(texts, kind);
      } catch {
        // The table could not be read: the model answers queries as it did before.
      }
    }
    return this.documents.embed(texts, kind);
  }

  available(): Promise<boolean> {
    return this.documents.available();
  }

  dispose(): void {
    this.documents.dispose();
    this.queries.dispose();
  }
}
