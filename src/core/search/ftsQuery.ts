// Builds a safe FTS4 MATCH expression from arbitrary user text. Every term is emitted as a
// double-quoted phrase made only of letter/digit runs, so no user character can reach the
// FTS query parser as an operator (AND OR NOT NEAR - * ^ : parentheses, column filters).
// The build uses the enhanced query syntax (SQLITE_ENABLE_FTS3_PARENTHESIS), where `OR`
// binds looser than the implicit AND.
import { STOP_WORDS } from '../text/stopwords.js';

export { STOP_WORDS };

export type FtsMode = 'any' | 'all';

export interface FtsQueryOptions {
  /** 'any' (default): terms joined with OR, for recall. 'all': every term must match. */
  mode?: FtsMode;
  /** Cap on emitted terms (words, prefixes and phrases each count one). Default 32. */
  maxTerms?: number;
  /** Stop-words dropped from bare words; `false` keeps every word. Default {@link STOP_WORDS}. */
  stopWords?: ReadonlySet<string> | false;
  /** Shortest stem accepted for a prefix query (`ab*`); shorter ones become plain words. Default 2. */
  minPrefixLength?: number;
  /**
   * Also emit each pair of adjacent non-stop words as a phrase (`"support group"`), after the
   * single terms: documents with the exact pair rank higher (a light sequential-dependence
   * model). Only meaningful with mode 'any'. Default false.
   */
  pairs?: boolean;
}

export const FTS_MAX_TERMS = 32;
/** Longer words (base64 blobs, minified code) are dropped: nobody searches for them by hand. */
export const FTS_MAX_TOKEN_CHARS = 128;
/** Words kept from one user-quoted phrase. */
export const FTS_MAX_PHRASE_WORDS = 16;
/** Input beyond this many characters is ignored; 32 terms never need more. */
const MAX_INPUT_CHARS = 20_000;

export type FtsTerm = { kind: 'word'; text: string } | { kind: 'prefix'; text: string } | { kind: 'phrase'; words: string[] };

// A word: letters/digits plus combining marks, and underscores (at least one letter or digit): the
// porter index keeps `ERR_REQUIRE_ESM` one token (its tokenizer counts `_` as part of a word), so
// the query must too — split into err / require / esm it matched nothing. Never contains `"` or
// `*`, so it is safe inside quotes.
const WORD = /[\p{L}\p{N}_]*[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*/gu;
const WORD_OR_PREFIX = /([\p{L}\p{N}_]*[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*)(\*?)/gu;

/**
 * Splits user text into terms: `"exact phrase"` (balanced double quotes) → phrase,
 * `auth*` → prefix, anything else → words. All lowercased; punctuation and operators vanish.
 */
export function parseFtsTerms(input: string, minPrefixLength = 2): FtsTerm[] {
  if (typeof input !== 'string') return [];
  const text = input
    .slice(0, MAX_INPUT_CHARS)
    .toLowerCase()
    .replace(/[\u201c\u201d\u201e\u00ab\u00bb]/g, '"');
  const parts = text.split('"');
  // An odd number of quotes leaves the last one unbalanced: treat what follows it as plain text.
  const closedUntil = parts.length % 2 === 1 ? parts.length : parts.length - 1;
  const terms: FtsTerm[] = [];
  parts.forEach((part, i) => {
    const quoted = i % 2 === 1 && i < closedUntil;
    if (quoted) {
      const words = (part.match(WORD) ?? []).filter(okLength).slice(0, FTS_MAX_PHRASE_WORDS);
      // A quoted single word is kept as a phrase so it escapes stop-word removal.
      if (words.length > 0) terms.push({ kind: 'phrase', words });
      return;
    }
    for (const m of part.matchAll(WORD_OR_PREFIX)) {
      const word = m[1]!;
      if (!okLength(word)) continue;
      const prefix = m[2] === '*' && Array.from(word).length >= minPrefixLength;
      terms.push(prefix ? { kind: 'prefix', text: word } : { kind: 'word', text: word });
    }
  });
  return terms;
}

/**
 * The MATCH expression for `input`, or null when nothing searchable is left (empty input,
 * only punctuation/emoji): the caller then skips the full-text leg. Stop-words are removed
 * from bare words unless that would leave no term at all.
 */
export function buildFtsQuery(input: string, options: FtsQueryOptions = {}): string | null {
  const terms = buildFtsTerms(input, options);
  return terms === null ? null : joinFtsTerms(terms, options.mode ?? 'any');
}

/** Joins rendered terms as {@link buildFtsQuery} does. */
export function joinFtsTerms(terms: readonly string[], mode: FtsMode = 'any'): string {
  return terms.join(mode === 'all' ? ' ' : ' OR ');
}

/**
 * The rendered terms (`"word"`, `"pre*"`, `"a phrase"`) {@link buildFtsQuery} joins, or null when
 * nothing searchable is left. Each one is a safe MATCH expression on its own.
 */
export function buildFtsTerms(input: string, options: FtsQueryOptions = {}): string[] | null {
  const mode = options.mode ?? 'any';
  const maxTerms = Math.max(1, Math.floor(options.maxTerms ?? FTS_MAX_TERMS));
  const stop = options.stopWords === false ? undefined : (options.stopWords ?? STOP_WORDS);
  const terms = parseFtsTerms(input, options.minPrefixLength ?? 2);
  if (terms.length === 0) return null;

  let kept = stop ? terms.filter((t) => !(t.kind === 'word' && stop.has(t.text))) : terms;
  if (kept.length === 0) kept = terms; // "what is it" → search the stop-words rather than nothing

  if (options.pairs && mode === 'any') kept = [...kept, ...adjacentPairs(terms, stop)];
  return renderDistinct(kept, maxTerms);
}

/** Phrases of two adjacent words, neither a stop-word. */
function adjacentPairs(terms: readonly FtsTerm[], stop: ReadonlySet<string> | undefined): FtsTerm[] {
  const extra: FtsTerm[] = [];
  for (let i = 0; i + 1 < terms.length; i++) {
    const a = terms[i]!;
    const b = terms[i + 1]!;
    if (a.kind === 'word' && b.kind === 'word' && !stop?.has(a.text) && !stop?.has(b.text))
      extra.push({ kind: 'phrase', words: [a.text, b.text] });
  }
  return extra;
}

/** The terms rendered, duplicates dropped, at most `maxTerms`. */
function renderDistinct(kept: readonly FtsTerm[], maxTerms: number): string[] {
  const rendered: string[] = [];
  const seen = new Set<string>();
  for (const t of kept) {
    const r = renderTerm(t);
    if (seen.has(r)) continue;
    seen.add(r);
    rendered.push(r);
    if (rendered.length >= maxTerms) break;
  }
  return rendered;
}

function renderTerm(t: FtsTerm): string {
  switch (t.kind) {
    case 'word':
      return `"${t.text}"`;
    case 'prefix':
      // FTS4 wants the star INSIDE the quotes: "auth*". ("auth"* is FTS5 syntax; FTS4 parses
      // the star as a separate empty term and silently does an exact match.)
      return `"${t.text}*"`;
    case 'phrase':
      return `"${t.words.join(' ')}"`;
  }
}

function okLength(word: string): boolean {
  return word.length <= FTS_MAX_TOKEN_CHARS;
}
