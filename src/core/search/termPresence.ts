/**
 * Which query terms a few given memories (or other rows of text: session chunks) contain, decided the way the full-text index decides a
 * match but without walking the index: each memory's title, content and tags are split by the
 * index's own tokenizer (SQLite's `fts3tokenize`: porter for memories_fts, unicode61 for
 * memories_exact) and the terms are looked for in those tokens. The cost grows with the length
 * of the few texts, not with how many memories hold a word — a second MATCH for a very common
 * word reads its whole doclist (tens of thousands of rows at 100k memories) to find it in ten.
 *
 * Semantics of a rendered term (ftsQuery.ts): `"word"` and `"a phrase"` match consecutive tokens
 * within one column; `"pre*"` matches a token that starts with the prefix's token.
 *
 * Tokenizing is most of the cost, so a row is tokenized only when its raw text could hold a term:
 * each of the term's tokens has an anchor, a piece of text that any word producing that token
 * starts with (`anchorOf`), and a row whose lower-cased text lacks an anchor cannot hold the term.
 * The check never drops a row that holds a term; it may keep one that does not ("tim" of "time" in
 * "timeout"), which tokenizing then settles.
 */
import type { Store } from '../store/store';
import { padded } from './fullText';
import { needsExactIndex } from './fullTextExact';

/** A term as the index sees it: its tokens, and whether the last one is a prefix. */
interface TokenizedTerm {
  rendered: string;
  tokens: string[];
  prefix: boolean;
  /** Pieces of text every holder contains (lower-case ASCII); for unicode61 only valid in ASCII text. */
  anchors: string[];
}

/**
 * Where the texts are: a table with an integer `rid` and its text columns. The first `own` columns
 * (all when absent) are the row's own text; the rest is context it is found by but never shows.
 */
export interface TextColumns {
  table: string;
  columns: readonly string[];
  own?: number;
}

/** The memories' title, content and tags, then their search context (the columns memories_fts indexes). */
export const MEMORY_TEXT: TextColumns = { table: 'memories', columns: ['title', 'content', 'tags', 'search_context'], own: 3 };

/**
 * For each of `rids` holding at least one of `rendered` terms: the rendered terms it holds in its
 * own text (title, content, tags) and those it holds only in its search context. The terms are the
 * safe rendered forms of ftsQuery.buildFtsTerms; each is tokenized by the index that answers it
 * (fullTextExact.needsExactIndex).
 */
export function termsPresent(
  store: Store,
  rendered: readonly string[],
  rids: readonly number[],
  over: TextColumns = MEMORY_TEXT,
): Map<number, { own: Set<string>; context: Set<string> }> {
  const out = new Map<number, { own: Set<string>; context: Set<string> }>();
  if (rendered.length === 0 || rids.length === 0) return out;
  const byTokenizer = { porter: [] as string[], unicode61: [] as string[] };
  for (const t of rendered) byTokenizer[needsExactIndex(t) ? 'unicode61' : 'porter'].push(t);
  for (const tokenizer of ['porter', 'unicode61'] as const) {
    const group = byTokenizer[tokenizer];
    if (group.length === 0) continue;
    const table = store.tokenizerTable(tokenizer);
    const terms = group.map((r) => tokenizeTerm(store, table, r, tokenizer)).filter((t) => t.tokens.length > 0);
    if (terms.length) addTokenized(store, out, { over, table, tokenizer }, terms, rids);
  }
  return out;
}

/**
 * Tokenizes with `tokenizer` the rows of `rids` whose text may hold one of `terms` (file header)
 * and records in `out` the terms each holds. The anchors are checked in SQL, on SQLite's lower()
 * (ASCII only, as the porter tokenizer folds), computed once per row in a subquery (its LIMIT
 * keeps SQLite from folding it into the outer query, which would lower the text once per anchor):
 * rows that fail are neither tokenized nor read.
 */
function addTokenized(
  store: Store,
  out: Map<number, { own: Set<string>; context: Set<string> }>,
  by: { over: TextColumns; table: string; tokenizer: Tokenizer },
  terms: readonly TokenizedTerm[],
  rids: readonly number[],
): void {
  const { over } = by;
  const ownColumns = over.own ?? over.columns.length;
  const tokenized = over.columns.map((c) => `(SELECT group_concat(token, ' ') FROM ${by.table} WHERE input = m.${c}) AS ${c}`).join(', ');
  const may = mayHoldCondition(over, terms, by.tokenizer);
  // The lowered text only where the anchors are checked on it (a term without anchors checks none).
  const lowered = may.where ? `, lower(${over.columns.map((c) => `coalesce(${c}, '')`).join(' || char(10) || ')}) AS lowered` : '';
  for (let i = 0; i < rids.length; i += 500) {
    const chunk = padded(rids.slice(i, i + 500));
    const rows = `SELECT rid, ${over.columns.join(', ')}${lowered} FROM ${over.table} WHERE rid IN (${chunk.map(() => '?').join(', ')}) LIMIT -1`;
    const sql = `SELECT m.rid, ${tokenized} FROM (${rows}) m${may.where}`;
    for (const row of store.all(sql, [...chunk, ...may.params])) {
      const columns = over.columns.map((c) => (typeof row[c] === 'string' ? (row[c] as string).split(' ') : []));
      addHeld(out, Number(row.rid), terms, { own: columns.slice(0, ownColumns), context: columns.slice(ownColumns) });
    }
  }
}

/** ` WHERE …`: the row's lower-cased text (`m.lowered`) holds every anchor of some term; '' when a term has none. */
function mayHoldCondition(over: TextColumns, terms: readonly TokenizedTerm[], tokenizer: Tokenizer): { where: string; params: string[] } {
  if (terms.some((t) => t.anchors.length === 0)) return { where: '', params: [] };
  const params: string[] = [];
  const each = terms.map((t) => {
    params.push(...t.anchors);
    return `(${t.anchors.map(() => 'instr(m.lowered, ?) > 0').join(' AND ')})`;
  });
  // unicode61 folds diacritics ("É" → "e"): its anchors hold only in ASCII text (as many bytes as characters).
  const raw = over.columns.map((c) => `coalesce(m.${c}, '')`).join(' || ');
  const folded = tokenizer === 'unicode61' ? [`length(CAST(${raw} AS BLOB)) <> length(${raw})`] : [];
  return { where: ` WHERE ${[...folded, ...each].join(' OR ')}`, params };
}

type Tokenizer = 'porter' | 'unicode61';

const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The anchor of one token: text that every word the tokenizer turns into it (or, for the last
 * token of a prefix term, into a token starting with it) starts with, in lower-case ASCII.
 * unicode61 does not stem: the token itself. SQLite's porter tokenizer (fts3_porter.c) lower-cases
 * ASCII; a stem keeps all but at most its last letter of the word ("happi" ← "happy", "deploi" ←
 * "deploying"); a word with a digit longer than 6 letters becomes its first and last 3 ("basurl" ←
 * "base64url"), a word longer than 20 its first and last 10. So: 3 letters of a 6-letter token
 * (and of a prefix, which may end inside such a token), else all but the last, at most 10, never
 * past a non-ASCII letter (stems of those are cut by bytes). An empty anchor holds in every text.
 */
function anchorOf(token: string, tokenizer: Tokenizer, prefix: boolean): string {
  const n = token.length;
  const head = tokenizer === 'unicode61' ? token : token.slice(0, n === 6 || prefix ? Math.min(n - 1, 3) : Math.min(n - 1, 10));
  const cut = head.search(NOT_ASCII);
  return cut < 0 ? head : head.slice(0, cut);
}

/** Records in `out` the terms one row holds in its own columns' tokens, else in its context columns'. */
function addHeld(
  out: Map<number, { own: Set<string>; context: Set<string> }>,
  rid: number,
  terms: readonly TokenizedTerm[],
  columns: { own: string[][]; context: string[][] },
): void {
  for (const term of terms) {
    const own = columns.own.some((tokens) => holds(tokens, term));
    if (!own && !columns.context.some((tokens) => holds(tokens, term))) continue;
    const sets = out.get(rid) ?? { own: new Set<string>(), context: new Set<string>() };
    (own ? sets.own : sets.context).add(term.rendered);
    out.set(rid, sets);
  }
}

/** The tokens of a rendered term (`"deploying"` → deploi with porter; `"auth*"` → auth, prefix). */
function tokenizeTerm(store: Store, table: string, rendered: string, tokenizer: Tokenizer): TokenizedTerm {
  const inner = rendered.replace(/^"|"$/g, '');
  const prefix = inner.endsWith('*');
  const text = prefix ? inner.slice(0, -1) : inner;
  const got = store.get<{ t: string | null }>(`SELECT group_concat(token, ' ') AS t FROM ${table} WHERE input = ?`, [text]);
  const tokens = got?.t ? got.t.split(' ') : [];
  const last = tokens.length - 1;
  const anchors = tokens.map((t, i) => anchorOf(t, tokenizer, prefix && i === last)).filter((a) => a !== '');
  return { rendered, tokens, prefix, anchors };
}

/** Whether `tokens` (one column, in order) hold the term's tokens consecutively. */
function holds(tokens: readonly string[], term: TokenizedTerm): boolean {
  const n = term.tokens.length;
  const last = n - 1;
  for (let i = 0; i + n <= tokens.length; i++) {
    let ok = true;
    for (let j = 0; j < n && ok; j++) {
      const token = tokens[i + j]!;
      ok = term.prefix && j === last ? token.startsWith(term.tokens[j]!) : token === term.tokens[j];
    }
    if (ok) return true;
  }
  return false;
}
