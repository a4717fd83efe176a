/**
 * English stop-words removed from QUERY text before the built-in model embeds it (measured on
 * our benchmark: question words and fillers pull a query towards other questions instead of
 * towards the stored fact). Negations (`no`, `not`, `nor`, `never`, `without`) are deliberately
 * NOT in the list: dropping them inverts meaning.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are',
  'as', 'at', 'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but',
  'by', 'can', 'could', 'did', 'do', 'does', 'doing', 'down', 'during', 'each', 'few', 'for',
  'from', 'further', 'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself',
  'him', 'himself', 'his', 'how', 'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just',
  'me', 'more', 'most', 'my', 'myself', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our',
  'ours', 'ourselves', 'out', 'over', 'own', 'same', 'she', 'should', 'so', 'some', 'such',
  'than', 'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these',
  'they', 'this', 'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very', 'was', 'we',
  'were', 'what', 'when', 'where', 'which', 'while', 'who', 'whom', 'why', 'will', 'with',
  'would', 'you', 'your', 'yours', 'yourself', 'yourselves',
  // contractions as typed
  "i'm", "i've", "i'd", "i'll", "it's", "that's", "there's", "what's", "you're", "we're",
  "they're", "let's",
]);

const WORD_EDGE = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/**
 * Drops stop-words from `text` (case-insensitive, ignoring surrounding punctuation) and keeps
 * every other whitespace-separated token as written. If nothing would be left, returns `text`
 * unchanged (a query made only of stop-words still needs an embedding).
 */
export function removeStopwords(text: string, stopwords: ReadonlySet<string> = ENGLISH_STOPWORDS): string {
  const kept: string[] = [];
  for (const token of text.split(/\s+/)) {
    if (token === '') continue;
    const bare = token.replace(WORD_EDGE, '').toLowerCase().replace(/\u2019/g, "'");
    if (bare !== '' && stopwords.has(bare)) continue;
    kept.push(token);
  }
  const out = kept.join(' ').trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : text;
}
