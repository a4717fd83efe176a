/**
 * Hybrid recall (issue 3, DESIGN "Read path"): a full-text leg (BM25 over FTS4) and a vector
 * leg (ANN over the active embedding space), both restricted by the same SQL filters, merged
 * over the UNION of their candidates: every candidate gets both scores where they exist
 * (exact cosine for keyword-only candidates, BM25 for vector-only ones), then normalization,
 * weights, date boost (queryDates.ts), graph boost, min_score, recency tie-break, optional rerank, limit.
 *
 * Degradation, never failure: no embedder / embedding error / space mismatch → full-text only
 * with a warning; a query with no searchable words → vector only; graph boost errors or
 * timeouts → a warning; reranker failure → original order.
 */
import type { Store } from '../store/store';
import type { Row } from '../store/store';
import type { Embedder } from '../embed/types';
import { meanOfUnitVectors, prepareQueryEmbedText } from '../embed/queryText';
import { unusableVectorReason } from '../embed/vector';
import { PREVIEW_CHARS, rowToSummary } from '../memory/rows';
import { GRAPHEME_LOOKAHEAD_UNITS } from '../text/truncate';
import { ValidationError } from '../memory/errors';
import { shownValue } from '../memory/validate';
import { errorMessage } from '../util/errors';
import { buildMemoryFilter, type WhereClause } from './filters';
import { padded, type TextHit } from './fullText';
import { fullTextLeg, type FullTextLeg } from './fullTextExact';
import { liveMeta, type LiveMeta } from './liveMeta';
import { rocchio } from './feedback';
import { buildFtsTerms } from './ftsQuery';
import { CommonTermFilter } from './commonTerms';
import { applyDateBoost, compareRanked, compareScored, effectiveWeights, fuse, type Candidate, type Fused } from './fuse';
import { parseQueryDates, type DateWindow } from './queryDates';
import { DEFAULT_RERANK_CONFIG, rerank, type RerankConfig } from './rerank';
import {
  combineEvidence,
  keywordEvidence,
  matchedLabels,
  NO_MATCH,
  vectorCalibration,
  vectorEvidence,
  type CandidateMatch,
  type VectorCalibration,
} from './relevance';
import { candidateMatches, datedCandidates, planQuery, type QueryPlan } from './rank';
import { TermStats } from './termStats';
import { resolveSearchSettings } from './settings';
import type { HybridSearchDeps, SearchRequest, SearchResponse, SearchResult, SearchSettings, VectorSearcher } from './types';
import { plural } from '../text/plural';

/**
 * The columns of a result row: those rowToSummary reads, plus rid. Not `*`: sql.js reads every
 * column of every row through JS (bench/RESULTS-design-notes.md). A test checks rowToSummary gives
 * the same summary from these columns as from the whole row.
 */
export const HYDRATE_COLUMNS =
  'rid, id, type, scope, title, content, tags, importance, decisions_json, access_count, expires_at, deleted_at, version, created_at, updated_at';

/**
 * HYDRATE_COLUMNS with content cut to what rowToSummary's preview reads: PREVIEW_CHARS units and
 * the grapheme lookahead past the cut. That many code points are at least as many UTF-16 units,
 * so the preview (and whether it is cut) is the same.
 * Copying whole contents out of sql.js made garbage on every search (bench/RESULTS-design-notes.md). A test checks
 * the summaries are equal (long, short, astral and boundary-length contents).
 */
export const SUMMARY_COLUMNS = HYDRATE_COLUMNS.replace(
  ', content,',
  `, substr(content, 1, ${PREVIEW_CHARS + GRAPHEME_LOOKAHEAD_UNITS}) AS content,`,
);

/** Longest query text looked at (the FTS builder and embedders cut further). */
export const MAX_QUERY_CHARS = 10_000;

interface Ranked extends Candidate {
  textScore: number;
  vectorScore: number;
  dateBoost: number;
  graphBoost: number;
  finalScore: number;
  matchType: SearchResult['matchType'];
  /** The min-max hybrid score + graph boost (the order of the `hybrid` ranking; ties under `relevance`). */
  hybridScore: number;
  /** The one relevance (relevance.ts) and its parts; set by HybridSearch.scored. */
  relevance: number;
  keywordEvidence: number;
  vectorEvidence: number;
  match: CandidateMatch;
}

/*
 * Candidates and ranked entries are built field by field, always in the same order (one object
 * shape each), not with `{ ...c, … }`: the spreads were a good part of what a search allocated,
 * i.e. of the young-generation GCs that land in p50 and p99 (bench/RESULTS-design-notes.md).
 */
function keywordCandidate(h: TextHit): Candidate {
  return { rid: h.rid, id: h.id, createdAt: h.createdAt, bm25: h.bm25, similarity: undefined, keywordHit: true, vectorHit: false };
}

function vectorCandidate(h: { rid: number; id: string; createdAt: string; similarity: number }): Candidate {
  return { rid: h.rid, id: h.id, createdAt: h.createdAt, bm25: undefined, similarity: h.similarity, keywordHit: false, vectorHit: true };
}

function datedCandidate(h: { rid: number; id: string; createdAt: string }): Candidate {
  return { rid: h.rid, id: h.id, createdAt: h.createdAt, bm25: undefined, similarity: undefined, keywordHit: false, vectorHit: false };
}

function rankedEntry(c: Fused, graphBoost: number): Ranked {
  return {
    rid: c.rid,
    id: c.id,
    createdAt: c.createdAt,
    bm25: c.bm25,
    similarity: c.similarity,
    keywordHit: c.keywordHit,
    vectorHit: c.vectorHit,
    textScore: c.textScore,
    vectorScore: c.vectorScore,
    dateBoost: c.dateBoost,
    graphBoost,
    finalScore: c.hybridScore + graphBoost,
    matchType: c.matchType,
    hybridScore: c.hybridScore + graphBoost,
    relevance: 0,
    keywordEvidence: 0,
    vectorEvidence: 0,
    match: NO_MATCH,
  };
}

/**
 * A reranked list with the relevance values of its head handed out in decreasing order: the
 * reranker decides the order, and the numbers people see still decrease down the list (the same
 * values, so still on the calibrated scale).
 */
function monotoneRelevance(ranked: Ranked[]): Ranked[] {
  const values = ranked.map((c) => c.relevance).sort((a, b) => b - a);
  ranked.forEach((c, i) => {
    c.relevance = values[i]!;
  });
  return ranked;
}

/** A request's relevance floor (SearchRequest.minRelevance): undefined, or a number from 0 to 1. */
function checkedMinRelevance(v: unknown): number | undefined {
  if (v === undefined || (typeof v === 'number' && v >= 0 && v <= 1)) return v;
  throw new ValidationError('minRelevance', `must be a number from 0 to 1, got ${shownValue(v)}`);
}

/** Relevance first, then the hybrid score (a better BM25 or cosine among equals), then the newer. */
function compareByRelevance(a: Ranked, b: Ranked): number {
  if (a.relevance !== b.relevance) return b.relevance - a.relevance;
  return compareScored(a.hybridScore, a, b.hybridScore, b);
}

/**
 * The BM25 of the candidates of `union` the keyword leg did not score; `earlier`: a previous union
 * for the same text query, whose scores are reused (a miss stays a miss).
 */
function fillTextScores(
  union: Map<number, Candidate>,
  textScores: (rids: number[]) => Map<number, TextHit>,
  earlier?: Map<number, Candidate>,
): void {
  let missing = [...union.values()].filter((c) => c.bm25 === undefined).map((c) => c.rid);
  if (earlier) {
    missing = missing.filter((rid) => {
      const e = earlier.get(rid);
      if (!e) return true;
      if (e.bm25 !== undefined) {
        union.get(rid)!.bm25 = e.bm25;
        union.get(rid)!.keywordHit = true;
      }
      return false;
    });
  }
  if (missing.length === 0) return;
  for (const [rid, h] of textScores(missing)) {
    const c = union.get(rid)!;
    c.bm25 = h.bm25;
    c.keywordHit = true;
  }
}

export class HybridSearch {
  readonly settings: SearchSettings;
  private readonly now: () => Date;
  private readonly rerankConfig: RerankConfig;
  private readonly commonTerms: CommonTermFilter;
  /** meta() verdicts of the current search, keyed by its WhereClause (built per search). */
  private readonly metaSeen = new WeakMap<WhereClause, Map<number, LiveMeta | null>>();
  /** Words in a large share of the store, left out of the embedded query (settings.queryCommonShare). */
  private readonly queryCommonTerms: CommonTermFilter;
  /** Document frequencies and speakers of this store (the weights of a query's words). */
  private readonly stats: TermStats;

  constructor(
    private readonly store: Store,
    private readonly deps: HybridSearchDeps,
  ) {
    if (typeof deps.projectId !== 'string' || !deps.projectId) throw new ValidationError('projectId', 'must be a non-empty string');
    this.settings = resolveSearchSettings(deps.settings);
    this.now = deps.now ?? (() => new Date());
    this.rerankConfig = { ...DEFAULT_RERANK_CONFIG, ...deps.reranker?.config };
    this.stats = new TermStats(store);
    this.commonTerms = new CommonTermFilter(this.stats, { share: this.settings.commonTermShare, minRows: this.settings.commonTermMinRows });
    this.queryCommonTerms = new CommonTermFilter(this.stats, {
      share: this.settings.queryCommonShare,
      minRows: this.settings.queryCommonMinRows,
    });
  }

  /** Checks the request; the limit it will use. */
  private validate(req: SearchRequest): { query: string; limit: number; minScore: number; minRelevance: number | undefined } {
    if (!req || typeof req !== 'object') throw new ValidationError('request', 'must be an object');
    if (typeof req.query !== 'string') throw new ValidationError('query', 'must be a string');
    const { defaultLimit, maxLimit } = this.settings;
    const limit = req.limit ?? defaultLimit;
    if (!Number.isInteger(limit) || limit < 1)
      throw new ValidationError('limit', `must be a whole number from 1 to ${maxLimit}, got ${shownValue(req.limit)}`);
    if (limit > maxLimit)
      throw new ValidationError('limit', `at most ${maxLimit} results per search (search.max_limit), asked for ${limit}`);
    const minScore = req.minScore ?? this.settings.minScore;
    if (typeof minScore !== 'number' || !Number.isFinite(minScore) || minScore < 0) {
      throw new ValidationError('minScore', `must be a number ≥ 0, got ${shownValue(req.minScore)}`);
    }
    return { query: req.query.slice(0, MAX_QUERY_CHARS), limit, minScore, minRelevance: checkedMinRelevance(req.minRelevance) };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    const { query, limit, minScore, minRelevance } = this.validate(req);
    const now = this.now();
    const where = buildMemoryFilter(this.deps.projectId, req, now);
    const warnings: string[] = [];
    const empty = (): SearchResponse => ({
      results: [],
      warnings,
      legs: { keyword: false, vector: false },
      timings: { embedMs: 0, searchMs: 0 },
    });
    if (!/[\p{L}\p{N}]/u.test(query)) {
      warnings.push('The query has no letters or digits to search for.');
      return empty();
    }

    // Query embedding: timed apart, never part of the search latency.
    const t0 = performance.now();
    const { leg: vectorLeg, vector: qvec } = await this.queryVector(query, warnings);
    const embedMs = performance.now() - t0;

    const t1 = performance.now();
    const terms = this.fullTextTerms(query, warnings);
    const legs = { keyword: terms !== null, vector: vectorLeg };
    const k = Math.max(this.settings.minCandidates, Math.ceil(limit * this.settings.candidateMultiplier));
    // Porter-stemmed words and exact identifiers (fullTextExact.ts); pruned top-k where it applies (fullTextRank.ts).
    const text = fullTextLeg(this.store, terms, where, k, this.settings.fullTextPruning);
    const weights = { vector: this.settings.vectorWeight, keyword: this.settings.keywordWeight };
    const plan = this.plan(query, legs, now);
    // Memories of a date the query names are candidates even when neither leg found them.
    const dated = datedCandidates(this.store, where, plan.windows, k);
    let union = this.collect(text, qvec, { where, k, dated, vectorLeg });
    const byRelevance = this.settings.ranking === 'relevance';
    const dates = !byRelevance && this.settings.dateBoost > 0 ? parseQueryDates(query) : [];
    const fuseAll = (u: Map<number, Candidate>) =>
      this.dateBoosted(fuse([...u.values()], weights, this.settings.normalization, legs), dates);
    let fused = fuseAll(union);
    // Feedback only when both legs rank: a vector-only first pass is too imprecise to learn from
    // (with the hash embedder alone it lowered recall on LoCoMo: bench/RESULTS-design-notes.md).
    const hybridRanking = legs.keyword && this.settings.keywordWeight > 0 && this.settings.vectorWeight > 0;
    const fb = qvec !== undefined && hybridRanking ? this.feedbackQuery(qvec, fused) : undefined;
    if (fb) {
      union = this.collect(text, fb, { where, k, earlier: union, dated, vectorLeg });
      fused = fuseAll(union);
    }
    const boosted = this.applyGraphBoost(req, query, fused, warnings);
    // The one relevance (relevance.ts): absolute evidence, the same scale on every query. Below
    // the floor there is no evidence worth showing, whatever the min-max scores say.
    let ranked = this.floored(this.scored(boosted, plan, text), plan, minRelevance)
      .filter((c) => c.finalScore >= minScore)
      .sort(byRelevance ? compareByRelevance : compareRanked);

    if (this.deps.reranker && !req.noRerank && ranked.length > 1) {
      ranked = monotoneRelevance(await this.rerankHead(this.deps.reranker, { query, limit, warnings }, ranked));
    }
    ranked = ranked.slice(0, limit);
    const results = this.hydrated(ranked, plan, req.withContent === true);
    const searchMs = performance.now() - t1;
    // Lifecycle bookkeeping is queued only; its write happens after this response.
    if (results.length) this.deps.access?.record(ranked.map((c) => c.rid));
    return { results, warnings, legs, timings: { embedMs, searchMs } };
  }

  /** What the query asks about and how much each part weighs in this store (rank.ts). */
  private plan(query: string, legs: { keyword: boolean; vector: boolean }, now: Date): QueryPlan {
    const weights = { vector: this.settings.vectorWeight, keyword: this.settings.keywordWeight };
    return planQuery(this.stats, {
      projectId: this.deps.projectId,
      query,
      keyword: legs.keyword,
      cal: legs.vector ? this.calibration() : undefined,
      weights: effectiveWeights(weights, legs),
      now,
    });
  }

  /** Every candidate with its relevance and evidence (relevance.ts); under `relevance` ranking its final score is the relevance. */
  private scored(ranked: Ranked[], plan: QueryPlan, leg: FullTextLeg): Ranked[] {
    const matches = candidateMatches(this.store, plan, ranked, leg);
    const byRelevance = this.settings.ranking === 'relevance';
    for (const c of ranked) {
      c.match = matches.get(c.rid) ?? NO_MATCH;
      c.keywordEvidence = keywordEvidence(plan, c.match);
      c.vectorEvidence = vectorEvidence(plan.cal ? c.similarity : undefined, plan.cal);
      c.relevance = combineEvidence(c.keywordEvidence, c.vectorEvidence, c.graphBoost, plan.weights);
      if (byRelevance) c.finalScore = c.relevance;
    }
    return ranked;
  }

  /**
   * The candidates with at least settings.minRelevance of relevance (minRelevanceUnknown when the
   * store holds none of the query's words: QueryPlan.unknown), or the request's `minRelevance`; all
   * of them with settings.relevanceFloor off.
   */
  private floored(ranked: Ranked[], plan: QueryPlan, requested: number | undefined): Ranked[] {
    if (requested !== undefined) return ranked.filter((c) => c.relevance >= requested);
    if (!this.settings.relevanceFloor) return ranked;
    const min = plan.unknown ? Math.max(this.settings.minRelevance, this.settings.minRelevanceUnknown) : this.settings.minRelevance;
    return ranked.filter((c) => c.relevance >= min);
  }

  /** The results of `ranked` from one read of their rows: whole contents only for a caller that shows them. */
  private hydrated(ranked: Ranked[], plan: QueryPlan, withContent: boolean): SearchResult[] {
    const rows = this.rows(
      ranked.map((c) => c.rid),
      withContent ? HYDRATE_COLUMNS : SUMMARY_COLUMNS,
    );
    return this.results(ranked, rows, plan, withContent);
  }

  /** The results of `ranked` (in order) from their rows, with their matched words, relevance and evidence. */
  private results(ranked: Ranked[], rows: Map<number, Row>, plan: QueryPlan, withContent: boolean): SearchResult[] {
    const results: SearchResult[] = [];
    for (const c of ranked) {
      const row = rows.get(c.rid);
      if (!row) continue; // vanished between the legs and hydration (cannot happen on one thread; cheap to guard)
      const similarity = plan.cal ? c.similarity : undefined;
      results.push({
        rid: c.rid,
        memory: rowToSummary(row),
        ...(withContent ? { content: String(row.content) } : {}),
        vectorScore: c.vectorScore,
        textScore: c.textScore,
        graphBoost: c.graphBoost,
        dateBoost: c.dateBoost,
        finalScore: c.finalScore,
        matchType: c.matchType,
        ...(similarity !== undefined ? { similarity } : {}),
        relevance: c.relevance,
        matchedTerms: matchedLabels(plan.terms, c.match),
        evidence: {
          keyword: c.keywordEvidence,
          vector: c.vectorEvidence,
          graph: c.graphBoost,
          date: c.match.dated,
          speaker: plan.units.some((u) => u.kind === 'speaker' && u.speaker.toLowerCase() === c.match.speaker?.toLowerCase()),
          context: plan.terms.filter((t) => c.match.context.has(t.rendered)).map((t) => t.label),
        },
      });
    }
    return results;
  }

  /** The vector scale of the query embedder (relevance.ts); settings.vectorFloor / vectorStrong override it. */
  private calibration(): VectorCalibration {
    const cal = vectorCalibration(this.deps.embedder?.id);
    const floor = this.settings.vectorFloor ?? cal.floor;
    const strong = Math.max(this.settings.vectorStrong ?? cal.strong, floor + 0.05);
    return { ...cal, floor, strong };
  }

  /** The reranker's order for the head of `ranked` (at least `limit` long); the tail keeps its order. */
  private async rerankHead(
    reranker: NonNullable<HybridSearchDeps['reranker']>,
    q: { query: string; limit: number; warnings: string[] },
    ranked: Ranked[],
  ): Promise<Ranked[]> {
    const headN = Math.max(q.limit, this.rerankConfig.topN);
    const rows = this.rows(
      ranked.slice(0, headN).map((c) => c.rid),
      HYDRATE_COLUMNS,
    );
    const items = ranked
      .slice(0, headN)
      .map((c) => ({ ...c, id: c.id, content: String(rows.get(c.rid)?.content ?? ''), score: c.finalScore }));
    const out = await rerank(q.query, items, reranker.provider, this.rerankConfig);
    if (out.status === 'timeout' || out.status === 'failed')
      q.warnings.push(`Reranking skipped: ${out.error ?? out.status}; original order kept.`);
    return [...out.items, ...ranked.slice(headN)];
  }

  /**
   * The candidate union: the keyword top-k (`textHits`) and the vector top-k of `qvec`, each
   * candidate scored on both legs where it can be (see the file header). `earlier`: a previous
   * union for the same text query, whose BM25 scores are reused instead of asked again.
   * `vectorLeg` with no `qvec`: the leg is on but nothing is indexed (queryVector).
   */
  private collect(
    text: { hits: readonly TextHit[]; scores: ((rids: number[]) => Map<number, TextHit>) | null },
    qvec: Float32Array | undefined,
    pool: {
      where: WhereClause;
      k: number;
      earlier?: Map<number, Candidate>;
      dated: readonly { rid: number; id: string; createdAt: string }[];
      vectorLeg: boolean;
    },
  ): Map<number, Candidate> {
    const { hits: textHits, scores: textScores } = text;
    const { where, k, earlier, dated, vectorLeg } = pool;
    const union = new Map<number, Candidate>();
    for (const h of textHits) {
      union.set(h.rid, keywordCandidate(h));
    }
    // Dated candidates enter unscored: the fills below give them their cosine and BM25.
    for (const d of dated) if (!union.has(d.rid)) union.set(d.rid, datedCandidate(d));
    if (qvec !== undefined) {
      const vectors = this.deps.vectors!;
      for (const h of this.vectorLeg(vectors, qvec, k, where)) {
        const c = union.get(h.rid);
        if (c) {
          c.vectorHit = true;
          c.similarity = h.similarity;
        } else {
          union.set(h.rid, vectorCandidate(h));
        }
      }
      // Union semantics: keyword-only candidates get their exact cosine…
      const missing = this.settings.fillVectorScores ? [...union.values()].filter((c) => c.similarity === undefined).map((c) => c.rid) : [];
      if (missing.length) for (const [rid, sim] of vectors.similarities(qvec, missing)) union.get(rid)!.similarity = sim;
    }
    // …and vector-only candidates their BM25 (they may match beyond the keyword top-k).
    if (textScores !== null && vectorLeg && this.settings.fillTextScores) fillTextScores(union, textScores, earlier);
    return union;
  }

  /**
   * Rocchio feedback on the vector leg: the query vector moved towards the mean of the stored
   * vectors of the best `feedbackDocs` fused results (unit vectors, weight `feedbackWeight`
   * relative to the unit query). Undefined when off or nothing to learn from.
   */
  private feedbackQuery(qvec: Float32Array, fused: ReturnType<typeof fuse>): Float32Array | undefined {
    const n = this.settings.feedbackDocs;
    const beta = this.settings.feedbackWeight;
    const vectors = this.deps.vectors;
    if (!(n > 0) || !(beta > 0) || !vectors?.vectorsOf) return undefined;
    const top = [...fused].sort((a, b) => compareScored(a.hybridScore, a, b.hybridScore, b)).slice(0, n);
    const vecs = vectors.vectorsOf(top.map((c) => c.rid));
    if (vecs.size === 0) return undefined;
    return rocchio(qvec, [...vecs.values()], beta);
  }

  /** The date boost (queryDates.ts): + settings.dateBoost for memories written on a date the query names. */
  private dateBoosted(fused: ReturnType<typeof fuse>, dates: readonly DateWindow[]): ReturnType<typeof fuse> {
    return applyDateBoost(fused, dates, this.settings.dateBoost, this.settings.dateSlackDays * 86_400_000);
  }

  /**
   * Whitespace tokens of `text` whose every full-text term is in at least `queryCommonShare` of
   * the store's memories (document frequencies from capped FTS counts, cached; commonTerms.ts).
   */
  private commonQueryWords(text: string): (token: string) => boolean {
    const termsOf = new Map<string, string[]>();
    for (const token of text.split(/\s+/)) {
      if (token === '' || termsOf.has(token)) continue;
      termsOf.set(token, buildFtsTerms(token) ?? []);
    }
    const all = [...new Set([...termsOf.values()].flat())];
    const { dropped } = this.queryCommonTerms.prune(all);
    if (dropped.length === 0) return () => false;
    const common = new Set(dropped);
    return (token) => {
      const terms = termsOf.get(token) ?? [];
      return terms.length > 0 && terms.every((t) => common.has(t));
    };
  }

  /** The terms of the MATCH expression (OR-ed): safe terms, minus the store's very common ones (commonTerms.ts). */
  private fullTextTerms(query: string, warnings: string[]): string[] | null {
    const terms = buildFtsTerms(query, { pairs: this.settings.phrasePairs });
    if (terms === null) return null;
    const { kept, dropped } = this.commonTerms.prune(terms);
    if (dropped.length) warnings.push(`Very common words left out of the keyword search: ${dropped.join(' ')}`);
    return kept;
  }

  /**
   * Whether the vector leg is on, and the query's vector. With nothing indexed (a new store, or
   * the user store of someone who keeps everything per project) the leg is on but finds nothing,
   * so the query is not embedded for it: the results are the same, without a model call.
   */
  private async queryVector(query: string, warnings: string[]): Promise<{ leg: boolean; vector: Float32Array | undefined }> {
    const { embedder, vectors } = this.deps;
    if (!embedder || !vectors) return { leg: false, vector: undefined };
    if (embedder.space !== vectors.space || embedder.dimension !== vectors.dimension) {
      warnings.push(`Vector search skipped: the query embedder (${embedder.space}) does not match the vector index (${vectors.space}).`);
      return { leg: false, vector: undefined };
    }
    if (vectors.size === 0) return { leg: true, vector: undefined };
    const vector = await this.embedQuery(query, embedder, vectors.dimension, warnings);
    return { leg: vector !== undefined, vector };
  }

  private async embedQuery(query: string, embedder: Embedder, dimension: number, warnings: string[]): Promise<Float32Array | undefined> {
    const s = this.settings;
    let text = prepareQueryEmbedText(query, { stopwords: s.queryStopwords, questionMarks: s.queryStripQuestionMarks });
    if (s.queryCommonShare > 0)
      text = prepareQueryEmbedText(text, { stopwords: false, questionMarks: false, isCommon: this.commonQueryWords(text) });
    // Second view (settings.queryRawView): the query as written, question marks removed.
    const texts = [text];
    if (s.queryRawView) {
      const raw = prepareQueryEmbedText(query, { stopwords: false, questionMarks: s.queryStripQuestionMarks });
      if (raw !== text) texts.push(raw);
    }
    try {
      const vs = await embedder.embed(texts, 'query');
      if (vs.length !== texts.length || vs.some((v) => !v || v.length !== dimension))
        throw new Error(`expected ${plural(texts.length, `${dimension}-d vector`)}`);
      const unusable = vs.map(unusableVectorReason).find((r) => r !== undefined);
      if (unusable) throw new Error(`${embedder.id} returned an unusable vector: it ${unusable}`);
      return vs.length === 1 ? vs[0] : meanOfUnitVectors(vs);
    } catch (e) {
      warnings.push(`Vector search skipped (full-text only): the query could not be embedded: ${errorMessage(e)}`);
      return undefined;
    }
  }

  /**
   * ANN top-k restricted to what the filters allow. HNSW is asked for k first; only when the
   * filters reject some of those does it over-fetch 2×k (checked in SQL, cheap when most
   * memories qualify), and if still too few survive, a filtered search with the allowed rid set
   * (selective filters). Asking for k instead of 2×k when nothing is filtered out costs less
   * (at 100k: hnswlib's ef is max(efSearch, k), so 64 instead of 120), and changes which
   * neighbours an approximate search finds (RESULTS-search.md round 4).
   */
  private vectorLeg(
    vectors: VectorSearcher,
    q: Float32Array,
    k: number,
    where: WhereClause,
  ): { rid: number; id: string; createdAt: string; similarity: number }[] {
    let hits = vectors.search(q, k);
    let meta = this.meta(
      hits.map((h) => h.rid),
      where,
    );
    let kept = hits.filter((h) => meta.has(h.rid));
    if (kept.length < k && hits.length >= k) {
      const over = k * 2;
      hits = vectors.search(q, over);
      meta = this.meta(
        hits.map((h) => h.rid),
        where,
      );
      kept = hits.filter((h) => meta.has(h.rid));
      if (kept.length < k && hits.length >= over) {
        const allowed = new Set(
          this.store.all<{ rid: number }>(`SELECT m.rid AS rid FROM memories m WHERE ${where.sql}`, where.params).map((r) => Number(r.rid)),
        );
        hits = vectors.search(q, k, (rid) => allowed.has(rid));
        meta = this.meta(
          hits.map((h) => h.rid),
          where,
        );
        kept = hits.filter((h) => meta.has(h.rid));
      }
    }
    const out: { rid: number; id: string; createdAt: string; similarity: number }[] = [];
    for (let i = 0; i < kept.length && i < k; i++) {
      const h = kept[i]!;
      const m = meta.get(h.rid)!;
      out.push({ rid: h.rid, id: m.id, createdAt: m.createdAt, similarity: h.similarity });
    }
    return out;
  }

  /**
   * id and created_at of the rids that pass the filters (liveMeta.ts). Verdicts are remembered per
   * `where` (one per search), so the feedback pass only asks for the rids the first did not see.
   */
  private meta(rids: number[], where: WhereClause): Map<number, LiveMeta> {
    let seen = this.metaSeen.get(where);
    if (!seen) this.metaSeen.set(where, (seen = new Map<number, LiveMeta | null>()));
    const ask = rids.filter((rid) => !seen.has(rid));
    const got = liveMeta(this.store, ask, where);
    for (const rid of ask) seen.set(rid, got.get(rid) ?? null);
    const out = new Map<number, LiveMeta>();
    for (const rid of rids) {
      const m = seen.get(rid);
      if (m) out.set(rid, m);
    }
    return out;
  }

  /** The rows of the results: `columns` is HYDRATE_COLUMNS (the reranker, SearchRequest.withContent) or SUMMARY_COLUMNS. */
  private rows(rids: number[], columns: string): Map<number, Row> {
    const out = new Map<number, Row>();
    for (let i = 0; i < rids.length; i += 500) {
      const chunk = padded(rids.slice(i, i + 500));
      for (const r of this.store.all(`SELECT ${columns} FROM memories WHERE rid IN (${chunk.map(() => '?').join(', ')})`, chunk))
        out.set(Number(r.rid), r);
    }
    return out;
  }

  /** Graph boost (docs/pipeline.md "Knowledge graph"): ids from the graph provider get + graphBoostWeight; failures are warnings. */
  private applyGraphBoost(req: SearchRequest, query: string, fused: ReturnType<typeof fuse>, warnings: string[]): Ranked[] {
    const plain = (): Ranked[] => fused.map((c) => rankedEntry(c, 0));
    const provider = this.deps.graphBoost;
    if (!req.graphBoost || !provider || fused.length === 0) return plain();
    let ids: Set<string>;
    try {
      const r = provider(query, Date.now() + this.settings.graphBoostTimeoutMs);
      ids = r.memoryIds instanceof Set ? r.memoryIds : new Set();
      if (r.timedOut) warnings.push(`Graph boost timed out after ${this.settings.graphBoostTimeoutMs} ms; partial boost applied.`);
    } catch (e) {
      warnings.push(`Graph boost skipped: ${errorMessage(e)}`);
      return plain();
    }
    const w = this.settings.graphBoostWeight;
    return fused.map((c) => rankedEntry(c, ids.has(c.id) ? w : 0));
  }
}
