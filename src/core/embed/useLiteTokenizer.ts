/**
 * The tokenizer of the built-in USE-lite model: SentencePiece's unigram model over the
 * `vocab.json` shipped with the weights (8,000 pieces with log-probability scores). Text is
 * NFKC-normalised, spaces become "▁" with one in front, and the pieces of highest total score
 * are chosen by dynamic programming (Viterbi) over code points; a code point no piece starts
 * with is the unknown piece (id 0), and runs of unknowns are one token.
 *
 * It gives the same ids as the tokenizer the model was published with (tfjs-models'
 * universal-sentence-encoder, as shipped in @energetic-ai/embeddings) — its tie-breaking and
 * scoring included; test/core/embed/useLiteModel.test.ts compares the two over varied text.
 * Two differences in cost only:
 * - the pieces are found by walking a trie from each position, without copying the rest of
 *   the text at every position (quadratic on a long document);
 * - the model reads only the first {@link USE_LITE_MAX_TOKENS} tokens, so only a start of the
 *   text is segmented. No piece holds "▁" after its first character, so every "▁" starts a
 *   piece and the best segmentation of a start that ends before a "▁" is the start of the best
 *   segmentation of the whole: cutting there changes no token that is kept.
 */

/** The model's input length: tokens past it are dropped (the graph's ClipToMaxLength). */
export const USE_LITE_MAX_TOKENS = 128;

const SEPARATOR = '▁';
/** Ids below this are control symbols, never produced by segmentation. */
const RESERVED = 6;
/** The longest piece, in code points, plus room: a start of this many code points per token always suffices. */
const CODE_POINTS_PER_TOKEN = 16;

/** Code points and more: a trie node's children are keyed by `node * CODE_SPACE + code point`. */
const CODE_SPACE = 0x110000;

export type UseLiteVocabulary = ReadonlyArray<readonly [string, number]>;

export class UseLiteTokenizer {
  /**
   * The pieces as a trie of code points, kept compact: one map of edges for the whole trie
   * (a map per node held ~4 MB in the model's thread; this holds under 1 MB) and each node's
   * piece id in an array (-1: no piece ends there). Node 0 is the root.
   */
  private readonly edges = new Map<number, number>();
  private readonly pieceAt: Int32Array;
  private readonly scores: Float64Array;
  private readonly lengths: Int32Array;
  /** Pieces in the vocabulary (the model's embedding table has two rows more). */
  readonly size: number;

  constructor(vocabulary: UseLiteVocabulary) {
    this.size = vocabulary.length;
    this.scores = new Float64Array(vocabulary.length);
    this.lengths = new Int32Array(vocabulary.length);
    const pieceAt: number[] = [-1];
    vocabulary.forEach(([piece, score], id) => {
      this.scores[id] = score;
      this.lengths[id] = [...piece].length;
      if (id < RESERVED) return;
      let node = 0;
      for (const ch of piece) {
        const key = node * CODE_SPACE + ch.codePointAt(0)!;
        let child = this.edges.get(key);
        if (child === undefined) {
          child = pieceAt.length;
          pieceAt.push(-1);
          this.edges.set(key, child);
        }
        node = child;
      }
      pieceAt[node] = id;
    });
    this.pieceAt = Int32Array.from(pieceAt);
  }

  /** The ids the model reads for `text`: at most `maxTokens` (the model's input length). */
  encode(text: string, maxTokens = USE_LITE_MAX_TOKENS): number[] {
    const normalized = text.normalize('NFKC');
    if (normalized.length === 0) return [];
    const symbols = [...(SEPARATOR + normalized.replace(/ /g, SEPARATOR))];
    // Segment a start of the text that ends before a "▁", longer each time until it gives enough tokens.
    for (let room = maxTokens * CODE_POINTS_PER_TOKEN; ; room *= 2) {
      const end = room >= symbols.length ? symbols.length : symbols.indexOf(SEPARATOR, room);
      if (end === -1 || end === symbols.length) return this.segment(symbols).slice(0, maxTokens);
      const ids = this.segment(symbols.slice(0, end));
      if (ids.length >= maxTokens) return ids.slice(0, maxTokens);
    }
  }

  /** Viterbi over `symbols`, in the published tokenizer's order of comparison. */
  private segment(symbols: string[]): number[] {
    const count = symbols.length;
    // Candidate pieces by end position, each as (start, id); id 0 is the unknown piece of one code point.
    const starts: number[][] = Array.from({ length: count + 1 }, () => []);
    const ids: number[][] = Array.from({ length: count + 1 }, () => []);
    const codes = symbols.map((s) => s.codePointAt(0)!);
    for (let i = 0; i < count; i++) {
      let node = this.edges.get(codes[i]!); // from the root, node 0
      let found = false;
      for (let j = i; node !== undefined && j < count; j++) {
        const id = this.pieceAt[node]!;
        if (id >= 0) {
          starts[j + 1]!.push(i);
          ids[j + 1]!.push(id);
          found = true;
        }
        node = j + 1 < count ? this.edges.get(node * CODE_SPACE + codes[j + 1]!) : undefined;
      }
      if (!found) {
        starts[i + 1]!.push(i);
        ids[i + 1]!.push(0);
      }
    }
    const best = new Float64Array(count + 1);
    const choice = new Int32Array(count + 1);
    for (let end = 1; end <= count; end++) {
      // Candidates by start, ascending, as the published code walks an object's integer keys:
      // they were pushed in that order.
      const from = starts[end]!;
      const pieces = ids[end]!;
      for (let c = 0; c < from.length; c++) {
        const id = pieces[c]!;
        const score = this.scores[id]! + best[from[c]!]!;
        // "0 means not set yet", as published: a later candidate of score 0 or more replaces it.
        if (best[end] === 0 || score >= best[end]!) {
          best[end] = score;
          choice[end] = id;
        }
      }
    }
    const reversed: number[] = [];
    for (let at = count; at > 0; at -= this.lengths[choice[at]!]!) reversed.push(choice[at]!);
    const out: number[] = [];
    let previousUnknown = false;
    for (let i = reversed.length - 1; i >= 0; i--) {
      const id = reversed[i]!;
      if (!(previousUnknown && id === 0)) out.push(id);
      previousUnknown = id === 0;
    }
    return out;
  }
}
