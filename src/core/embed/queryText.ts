/**
 * Preparing a QUERY's text before it is embedded (documents are embedded as written).
 *
 * Measured on LoCoMo with the built-in USE-lite model (figures: bench/RESULTS-design-notes.md):
 * - question marks pull a question towards the stored memories that are questions themselves
 *   ("How have you been?") instead of the statement that answers it: removing them helps;
 * - words found in a large share of the store's memories (more than a tenth by default: a
 *   project's or a person's name that is in every other note) dominate a short query's
 *   embedding while telling the memories apart no better than stop-words do: leaving them out
 *   helps further (on LoCoMo these are mostly the two speakers' names).
 * - the mean of two views — that prepared text and the query as written (question marks removed,
 *   stop-words and names kept) — beat either alone: the views err differently
 *   (`settings.queryRawView`).
 * The full-text leg still sees the whole query either way.
 */
import { removeStopwords } from './stopwords';
import { l2normalize } from './vector';

const QUESTION_MARKS = /[?\u00bf\u037e\u061f\uff1f]/gu;

/** `text` without question marks (`?`, `¿`, Greek `;`, Arabic `؟`, full-width `？`), spaces tidied. */
export function stripQuestionMarks(text: string): string {
  const out = text.replace(QUESTION_MARKS, ' ').replace(/\s+/g, ' ').trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : text;
}

/**
 * `text` without the whitespace-separated tokens for which `isCommon` says true. If nothing with
 * a letter or digit would be left, `text` is returned unchanged (a query still needs a vector).
 */
export function dropCommonWords(text: string, isCommon: (token: string) => boolean): string {
  const kept = text.split(/\s+/).filter((t) => t !== '' && !isCommon(t));
  const out = kept.join(' ');
  return /[\p{L}\p{N}]/u.test(out) ? out : text;
}

export interface QueryEmbedTextOptions {
  /** Remove English stop-words ({@link removeStopwords}). */
  stopwords: boolean;
  /** Remove question marks ({@link stripQuestionMarks}). */
  questionMarks: boolean;
  /** Tokens to leave out (e.g. words in a large share of the store's memories). */
  isCommon?: (token: string) => boolean;
}

/** The text a query is embedded as: stop-words, question marks and common words removed as asked. */
export function prepareQueryEmbedText(query: string, opts: QueryEmbedTextOptions): string {
  let text = opts.stopwords ? removeStopwords(query) : query;
  if (opts.questionMarks) text = stripQuestionMarks(text);
  if (opts.isCommon) text = dropCommonWords(text, opts.isCommon);
  return text;
}

/**
 * The mean of the unit-length versions of `vectors` (all of one dimension), scaled to unit length:
 * the query vector of several views of one query. Zero vectors are skipped; none left → zeros.
 */
export function meanOfUnitVectors(vectors: readonly Float32Array[]): Float32Array {
  const dim = vectors[0]?.length ?? 0;
  const out = new Float32Array(dim);
  for (const v of vectors) {
    if (v.length !== dim) throw new RangeError(`dimension mismatch: ${v.length} vs ${dim}`);
    let ss = 0;
    for (let i = 0; i < dim; i++) ss += v[i]! * v[i]!;
    if (!(ss > 0)) continue;
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < dim; i++) out[i]! += v[i]! * inv;
  }
  return l2normalize(out);
}
