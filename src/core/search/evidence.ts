/**
 * What a search result's relevance is made of (docs/recall.md "Relevance"). Its own file, with no
 * imports, so the engine protocol and the webviews can name it without the search code.
 */
export interface SearchEvidence {
  /** Keyword evidence 0…1: the weighted share of the query's words, date and speaker it matches. */
  keyword: number;
  /** Vector evidence 0…1: its cosine between the embedder's calibrated floor and strong cosines. */
  vector: number;
  /** The knowledge-graph boost (0 when not boosted). */
  graph: number;
  /** It was written on, or its text refers to, a date the query names. */
  date: boolean;
  /** Its speaker is one the query names. */
  speaker: boolean;
  /** Query words found only in its search context (the previous turn, a heading path), not in its own text. */
  context: string[];
  /** The alternate wording of the query (query expansion, docs/recall.md) that found it, when not the query as written. */
  alternate?: string;
}
