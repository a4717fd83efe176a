// Shared word tokenizer for the lexical checks (overlap, contradiction).

// A word is a run of letters/digits (plus combining marks), optionally joined by inner
// apostrophes so contractions like "don't" stay one token.
const WORD_RE = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:'[\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*/gu;

/** Lowercased unicode word tokens in order. Typographic apostrophes are folded to `'`. */
export function tokenizeWords(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/[\u2018\u2019\u02bc]/g, "'")
      .match(WORD_RE) ?? []
  );
}
