/**
 * Chunking of an ingested document (docs/pipeline.md "Documents"). Markdown is cut on its own
 * structure: a new chunk at every `#`/`##` heading, then blocks (paragraphs, lists, code
 * fences) packed up to `size` characters; a chunk never starts mid-sentence and keeps the
 * markdown as written. Each chunk carries the heading it sits under, for its title.
 *
 * A block longer than `size` is split where it is safe: a paragraph between sentences (the
 * next piece repeats the previous piece's last whole sentences, up to `overlap` characters, so
 * the context carries over), a list between items, a code fence between lines (each piece
 * re-opens and closes the fence, so no chunk holds half a fence). Only a single sentence or
 * line longer than `size` is cut at a space. Plain text (not markdown) has no headings or
 * fences: paragraphs and sentences only.
 */

export interface Chunk {
  /** The chunk's text, markdown kept. */
  text: string;
  /** The nearest heading above the chunk's start (markdown), or null. */
  heading: string | null;
  /**
   * Every heading above the chunk's start, outermost first (markdown; [] without): the chunk's
   * search context (docs/recall.md "What a memory is indexed with").
   */
  headings: string[];
}

export interface ChunkOptions {
  size: number;
  overlap: number;
  /** Parse headings, lists and code fences (default true). */
  markdown?: boolean;
}

type BlockKind = 'heading' | 'fence' | 'list' | 'para';

interface Block {
  kind: BlockKind;
  text: string;
  /** Headings: level 1–6 and the heading's text. */
  level?: number;
  title?: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const LIST_ITEM = /^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+/;
// After . ! ? … 。 ！ ？ and any closing quotes ” ’ or brackets (ASCII regexes: esbuild.mjs).
const SENTENCE_END = /(?<=[.!?\u2026\u3002\uff01\uff1f]["'\u201d\u2019)\]]*)\s+(?=\S)/u;

function checkOptions(size: number, overlap: number): void {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive whole number, got ${size}`);
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new RangeError(`chunk overlap must be a whole number from 0 to ${size - 1}, got ${overlap}`);
  }
}

/** The document's chunks, in order; empty when the text is blank. */
export function chunkDocument(text: string, opts: ChunkOptions): Chunk[] {
  const { size, overlap } = opts;
  checkOptions(size, overlap);
  const blocks = parseBlocks(text.replace(/\r\n?/g, '\n'), opts.markdown !== false);
  return packBlocks(blocks, size, overlap);
}

/** The chunks' texts (plain text: paragraphs and sentences). */
export function chunkText(text: string, size: number, overlap: number): string[] {
  return chunkDocument(text, { size, overlap, markdown: false }).map((c) => c.text);
}

/** A chunk's title: "ONBOARDING.md › Releases (2 of 5)"; the count only when there are several chunks. */
export function chunkTitle(docTitle: string | undefined, heading: string | null, index: number, count: number): string | undefined {
  const base = [docTitle?.trim(), heading?.trim()].filter(Boolean).join(' › ');
  if (!base) return count > 1 ? `Part ${index + 1} of ${count}` : undefined;
  return count > 1 ? `${base} (${index + 1} of ${count})` : base;
}

/** Whether a file name is a markdown document (its headings and fences are structure, not text). */
export function isMarkdownName(name: string): boolean {
  return /\.(md|markdown|mdx|mdown|mkd)$/i.test(name);
}

function parseBlocks(text: string, markdown: boolean): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const endPara = () => {
    if (para.length) blocks.push({ kind: markdown && LIST_ITEM.test(para[0]!) ? 'list' : 'para', text: para.join('\n') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\s+$/, '');
    const fence = markdown ? FENCE.exec(line) : null;
    if (fence) {
      endPara();
      const marker = fence[1]!;
      const body = [line];
      for (i++; i < lines.length; i++) {
        body.push(lines[i]!.replace(/\s+$/, ''));
        if (new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines[i]!)) break;
      }
      blocks.push({ kind: 'fence', text: body.join('\n') });
      continue;
    }
    const heading = markdown ? HEADING.exec(line) : null;
    if (heading) {
      endPara();
      blocks.push({ kind: 'heading', text: line.trim(), level: heading[1]!.length, title: heading[2]!.trim() });
      continue;
    }
    if (!line.trim()) endPara();
    else para.push(line);
  }
  endPara();
  return blocks;
}

/** Packs blocks into chunks of at most `size` characters (a single over-long unit aside). */
function packBlocks(blocks: Block[], size: number, overlap: number): Chunk[] {
  const chunks: Chunk[] = [];
  const headings: string[] = []; // by level - 1
  let parts: { text: string; heading: boolean }[] = [];
  let length = 0;
  let chunkHeading: string | null = null;
  let chunkPath: string[] = [];
  const current = () => headings.filter(Boolean).at(-1) ?? null;
  const here = () => {
    chunkHeading = current();
    chunkPath = headings.filter(Boolean);
  };
  const flush = () => {
    // A heading is never left at the end of a chunk without its text: it moves to the next one.
    const carried = parts.at(-1)?.heading ? parts.pop() : undefined;
    if (parts.length) chunks.push({ text: parts.map((p) => p.text).join('\n\n'), heading: chunkHeading, headings: chunkPath });
    parts = carried ? [carried] : [];
    length = carried ? carried.text.length : 0;
    here();
  };
  const add = (text: string, heading = false) => {
    if (parts.length && length + 2 + text.length > size) flush();
    if (!parts.length) here();
    parts.push({ text, heading });
    length += (parts.length > 1 ? 2 : 0) + text.length;
  };
  for (const b of blocks) {
    if (b.kind === 'heading') {
      // A new section (#, ##) starts a new chunk; deeper headings stay with their section when they fit.
      if (b.level! <= 2 && parts.some((p) => !p.heading)) flush();
      headings.length = b.level!;
      headings[b.level! - 1] = b.title!;
      add(b.text, true);
      if (parts.every((p) => p.heading)) here();
      continue;
    }
    for (const piece of b.text.length <= size ? [b.text] : splitBlock(b, size, overlap)) add(piece);
  }
  flush();
  return chunks;
}

function splitBlock(b: Block, size: number, overlap: number): string[] {
  if (b.kind === 'fence') return splitFence(b.text, size);
  if (b.kind === 'list') return pack(listItems(b.text), size, 0, '\n', (item) => splitProse(item, size, overlap));
  return splitProse(b.text, size, overlap);
}

/** Sentences packed up to `size`; each new piece starts with the previous piece's last sentences (≤ overlap). */
function splitProse(text: string, size: number, overlap: number): string[] {
  const sentences = text.split(SENTENCE_END).flatMap((s) => (s.length <= size ? [s] : splitLong(s, size)));
  return pack(sentences, size, overlap, ' ', (s) => [s]);
}

/**
 * Packs units into pieces of at most `size` joined by `sep`; `over` splits a unit that is itself
 * too long. With `overlap`, a new piece begins with the last units of the previous one whose
 * length fits in `overlap`.
 */
function pack(units: string[], size: number, overlap: number, sep: string, over: (u: string) => string[]): string[] {
  const pieces: string[] = [];
  let cur: string[] = [];
  let len = 0;
  for (const unit of units.flatMap((u) => (u.length <= size ? [u] : over(u)))) {
    if (cur.length && len + sep.length + unit.length > size) {
      pieces.push(cur.join(sep));
      const carry: string[] = [];
      let carried = 0;
      for (let i = cur.length - 1; i >= 0 && overlap > 0; i--) {
        const l = cur[i]!.length + sep.length;
        if (carried + l > overlap || carried + l + unit.length > size) break;
        carry.unshift(cur[i]!);
        carried += l;
      }
      cur = carry;
      len = Math.max(0, carried - sep.length);
    }
    cur.push(unit);
    len += (cur.length > 1 ? sep.length : 0) + unit.length;
  }
  if (cur.length) pieces.push(cur.join(sep));
  return pieces;
}

/** A sentence or line longer than `size`: at line breaks, then at the last space before the limit. */
function splitLong(text: string, size: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let rest = line;
    while (rest.length > size) {
      const space = rest.lastIndexOf(' ', size);
      const cut = space > size / 2 ? space : size;
      out.push(rest.slice(0, cut).trimEnd());
      rest = rest.slice(cut).trimStart();
    }
    if (rest) out.push(rest);
  }
  return out;
}

function listItems(text: string): string[] {
  const items: string[] = [];
  for (const line of text.split('\n')) {
    if (LIST_ITEM.test(line) || !items.length) items.push(line);
    else items[items.length - 1] += `\n${line}`;
  }
  return items;
}

/** A long fence in pieces of whole lines, each opened and closed like the original. */
function splitFence(text: string, size: number): string[] {
  const lines = text.split('\n');
  const open = lines[0]!;
  const marker = FENCE.exec(open)![1]!;
  const closed = lines.length > 1 && new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`).test(lines.at(-1)!);
  const body = lines.slice(1, closed ? -1 : undefined);
  const close = marker;
  const room = Math.max(1, size - open.length - close.length - 2);
  return pack(body, room, 0, '\n', (l) => splitLong(l, room)).map((p) => `${open}\n${p}\n${close}`);
}
