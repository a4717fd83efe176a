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
 */
import type { Store } from '../store/store';
import { padded } from './fullText';
import { needsExactIndex } from './fullTextExact';

/** A term as the index sees it: its tokens, and whether the last one is a prefix. */
interface TokenizedTerm {
  rendered: string;
  tokens: string[];
  prefix: boolean;
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
  const ownColumns = over.own ?? over.columns.length;
  const byTokenizer = { porter: [] as string[], unicode61: [] as string[] };
  for (const t of rendered) byTokenizer[needsExactIndex(t) ? 'unicode61' : 'porter'].push(t);
  for (const tokenizer of ['porter', 'unicode61'] as const) {
    const group = byTokenizer[tokenizer];
    if (group.length === 0) continue;
    const table = store.tokenizerTable(tokenizer);
    const terms = group.map((r) => tokenizeTerm(store, table, r)).filter((t) => t.tokens.length > 0);
    if (terms.length === 0) continue;
    const tokenized = over.columns.map((c) => `(SELECT group_concat(token, ' ') FROM ${table} WHERE input = m.${c}) AS ${c}`).join(', ');
    for (let i = 0; i < rids.length; i += 500) {
      const chunk = padded(rids.slice(i, i + 500));
      const sql = `SELECT m.rid, ${tokenized} FROM ${over.table} m WHERE m.rid IN (${chunk.map(() => '?').join(', ')})`;
      for (const row of store.all(sql, chunk)) {
        const columns = over.columns.map((c) => (typeof row[c] === 'string' ? (row[c] as string).split(' ') : []));
        addHeld(out, Number(row.rid), terms, { own: columns.slice(0, ownColumns), context: columns.slice(ownColumns) });
      }
    }
  }
  return out;
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
function tokenizeTerm(store: Store, table: string, rendered: string): TokenizedTerm {
  const inner = rendered.replace(/^"|"$/g, '');
  const prefix = inner.endsWith('*');
  const text = prefix ? inner.slice(0, -1) : inner;
  const got = store.get<{ t: string | null }>(`SELECT group_concat(token, ' ') AS t FROM ${table} WHERE input = ?`, [text]);
  return { rendered, tokens: got?.t ? got.t.split(' ') : [], prefix };
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
