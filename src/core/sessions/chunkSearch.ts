/**
 * The hybrid query over session chunks (docs/sessions.md "Searching sessions"): a full-text leg
 * (BM25 over chunks_fts) and a vector leg (the chunk index of the active space, or a query
 * embedding the caller computed), both under the same SQL filters — one session, and tags, every
 * requested tag present in the chunk's tags — merged over the union of their candidates: each leg
 * min-max normalised, `vectorWeight · vector + ftsWeight · text` (0.7 / 0.3 by default), ties to
 * the more recent chunk (sequence_end). The relevance floor and the relevance people see are
 * memory recall's (src/core/search/relevance.ts): a chunk needs a keyword match on a word that is
 * not a stop-word or a cosine at the embedder's calibrated floor, else it is dropped.
 */
import type { Store } from '../store/store';
import type { Embedder } from '../embed/types';
import { meanOfUnitVectors, prepareQueryEmbedText } from '../embed/queryText';
import { unusableVectorReason } from '../embed/vector';
import { errorMessage } from '../util/errors';
import { shownValue } from '../util/shownValue';
import { ValidationError } from '../memory/errors';
import { ensureBm25 } from '../search/bm25';
import { buildFtsTerms, joinFtsTerms } from '../search/ftsQuery';
import { padded } from '../search/fullText';
import { fuse, type Candidate, type Fused } from '../search/fuse';
import {
  combineEvidence,
  contentTerms,
  vectorCalibration,
  vectorEvidence,
  vectorOnlyFloor,
  type ContentTerm,
  type VectorCalibration,
} from '../search/relevance';
import { termsPresent, type TextColumns } from '../search/termPresence';
import type { VectorStore } from '../vectorstore/vectorStore';
import { CHUNK_TEXT_WEIGHT, CHUNK_VECTOR_WEIGHT, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from './limits';
import { noteTags } from './notes';
import { checkSessionId } from './state';
import { rankChunkText } from './chunkTextRank';
import type { ChunkHit } from './types';

export type { ChunkHit };

export interface ChunkQuery {
  query: string;
  /** Only this session's chunks. */
  sessionId?: string;
  /** Only chunks holding every one of these tags. */
  tags?: string[];
  /** A query vector computed by the caller (in the active space); the query is not embedded then. */
  queryEmbedding?: readonly number[] | Float32Array;
  topK?: number;
  vectorWeight?: number;
  ftsWeight?: number;
}

export interface ChunkSearchResult {
  hits: ChunkHit[];
  legs: { keyword: boolean; vector: boolean };
  warnings: string[];
}

export interface ChunkSearchDeps {
  store: Store;
  /** The embedder and chunk index of the active space (absent: keyword only). */
  pair?: { embedder: Embedder; vectors: VectorStore };
  /** Off only for measurements. */
  relevanceFloor?: boolean;
}

const CHUNK_TEXT: TextColumns = { table: 'chunks', columns: ['chunk_text'] };
const MAX_QUERY_CHARS = 10_000;

interface Where {
  sql: string;
  params: (string | number)[];
}

interface ChunkCandidate extends Candidate {
  sequenceEnd: number;
}

/** The chunk index and the query vector of one search. */
interface VectorQuery {
  vectors: VectorStore;
  q: Float32Array;
}

export async function searchChunks(deps: ChunkSearchDeps, q: ChunkQuery): Promise<ChunkSearchResult> {
  const req = checkQuery(q);
  const warnings: string[] = [];
  const terms = buildFtsTerms(req.query);
  // A vector weight of 0 asks for the full-text ranking alone: no query embedding, no vector leg.
  const qvec = req.vectorWeight > 0 ? await queryVector(deps.pair, req, warnings) : undefined;
  const legs = { keyword: terms !== null, vector: qvec !== undefined };
  const union = collect(deps, req, terms, qvec);
  const fused = fuse([...union.values()], { vector: req.vectorWeight, keyword: req.ftsWeight }, 'minmax', legs);
  const content = terms === null ? [] : contentTerms(req.query);
  const cal: VectorCalibration | undefined = qvec !== undefined ? vectorCalibration(deps.pair?.embedder.id) : undefined;
  const floored = deps.relevanceFloor === false ? fused : fused.filter((c) => clearsFloor(c, content.length > 0, cal));
  const seqEnd = (rid: number) => union.get(rid)!.sequenceEnd;
  floored.sort((a, b) => b.hybridScore - a.hybridScore || seqEnd(b.rid) - seqEnd(a.rid) || b.rid - a.rid);
  return { hits: toHits(deps.store, floored.slice(0, req.topK), content, cal), legs, warnings };
}

/** The candidate union of both legs, each candidate scored on both where it can be. */
function collect(
  deps: ChunkSearchDeps,
  req: CheckedQuery,
  terms: string[] | null,
  qvec: Float32Array | undefined,
): Map<number, ChunkCandidate> {
  const where = whereOf(req.sessionId, req.tags);
  const k = Math.max(30, req.topK * 3);
  const union = new Map<number, ChunkCandidate>();
  const expr = terms === null ? null : joinFtsTerms(terms);
  if (expr !== null) for (const h of keywordLeg(deps.store, { expr, phrases: terms!.length }, where, k)) union.set(h.rid, h);
  if (qvec === undefined || !deps.pair) return union;
  for (const h of vectorLeg(deps.store, { vectors: deps.pair.vectors, q: qvec }, where, k)) {
    const c = union.get(h.rid);
    if (!c) union.set(h.rid, h);
    else {
      c.similarity = h.similarity;
      c.vectorHit = true;
    }
  }
  if (expr !== null) fillScores(deps.store, { vectors: deps.pair.vectors, q: qvec }, expr, union);
  return union;
}

/** The results in order, with their rows, matched words and relevance. */
function toHits(store: Store, top: Fused[], content: ContentTerm[], cal: VectorCalibration | undefined): ChunkHit[] {
  const rows = hydrate(
    store,
    top.map((c) => c.rid),
  );
  const present = termsPresent(
    store,
    content.map((t) => t.rendered),
    top.filter((c) => c.bm25 !== undefined).map((c) => c.rid),
    CHUNK_TEXT,
  );
  const hits: ChunkHit[] = [];
  for (const c of top) {
    const row = rows.get(c.rid);
    if (!row) continue;
    const held = present.get(c.rid);
    const matched = content.filter((t) => held?.own.has(t.rendered)).map((t) => t.label);
    const similarity = cal ? c.similarity : undefined;
    hits.push({
      ...row,
      score: c.hybridScore,
      relevance: chunkRelevance(matched.length, content.length, similarity, cal),
      vectorScore: c.vectorScore,
      textScore: c.textScore,
      ...(similarity !== undefined ? { similarity } : {}),
      matchType: c.matchType,
      matchedTerms: matched,
    });
  }
  return hits;
}

/**
 * Whether a chunk clears the floor: a keyword match on a word that is not a stop-word, or a cosine
 * memory recall would show by meaning alone (relevance.ts vectorOnlyFloor). Chunks are not weighed
 * by how informative each word is in the store (memory recall's termStats.ts) yet.
 */
function clearsFloor(c: { bm25?: number; similarity?: number }, keywordCounts: boolean, cal: VectorCalibration | undefined): boolean {
  if (keywordCounts && c.bm25 !== undefined && c.bm25 > 0) return true;
  return cal !== undefined && c.similarity !== undefined && c.similarity >= vectorOnlyFloor(cal);
}

/** Keyword evidence 0.5 + 0.5 × the share of the query's content words matched, combined as memory recall combines. */
function chunkRelevance(matched: number, total: number, similarity: number | undefined, cal: VectorCalibration | undefined): number {
  const k = matched > 0 && total > 0 ? 0.5 + (0.5 * Math.min(matched, total)) / total : 0;
  return combineEvidence(k, vectorEvidence(similarity, cal), 0, { keyword: 1, vector: 1 });
}

interface CheckedQuery {
  query: string;
  sessionId?: string;
  tags: string[];
  queryEmbedding?: Float32Array;
  topK: number;
  vectorWeight: number;
  ftsWeight: number;
}

function checkQuery(q: ChunkQuery): CheckedQuery {
  if (!q || typeof q !== 'object') throw new ValidationError('query', 'must be an object with a query');
  if (typeof q.query !== 'string') throw new ValidationError('query', `must be a string, got ${shownValue(q.query)}`);
  const topK = q.topK ?? SEARCH_DEFAULT_LIMIT;
  if (!Number.isInteger(topK) || topK < 1 || topK > SEARCH_MAX_LIMIT)
    throw new ValidationError('topK', `must be a whole number from 1 to ${SEARCH_MAX_LIMIT}, got ${shownValue(q.topK)}`);
  const vectorWeight = weight(q.vectorWeight, CHUNK_VECTOR_WEIGHT, 'vectorWeight');
  const ftsWeight = weight(q.ftsWeight, CHUNK_TEXT_WEIGHT, 'ftsWeight');
  if (vectorWeight + ftsWeight <= 0) throw new ValidationError('vectorWeight', 'and ftsWeight must not both be 0');
  const queryEmbedding = q.queryEmbedding === undefined ? undefined : checkEmbedding(q.queryEmbedding);
  return {
    query: q.query.slice(0, MAX_QUERY_CHARS),
    ...(q.sessionId !== undefined ? { sessionId: checkSessionId(q.sessionId) } : {}),
    tags: noteTags(q.tags),
    ...(queryEmbedding ? { queryEmbedding } : {}),
    topK,
    vectorWeight,
    ftsWeight,
  };
}

function checkEmbedding(v: unknown): Float32Array {
  if (!(v instanceof Float32Array) && (!Array.isArray(v) || v.some((x) => typeof x !== 'number')))
    throw new ValidationError('queryEmbedding', 'must be a list of numbers');
  const out = Float32Array.from(v as ArrayLike<number>);
  const bad = unusableVectorReason(out);
  if (bad) throw new ValidationError('queryEmbedding', `is not usable: it ${bad}`);
  return out;
}

function weight(v: number | undefined, def: number, field: string): number {
  if (v === undefined) return def;
  if (typeof v !== 'number' || !(v >= 0 && v <= 1)) throw new ValidationError(field, `must be a number from 0 to 1, got ${shownValue(v)}`);
  return v;
}

function whereOf(sessionId: string | undefined, tags: string[]): Where {
  const parts: string[] = [];
  const params: (string | number)[] = [];
  if (sessionId !== undefined) {
    parts.push('c.session_id = ?');
    params.push(sessionId);
  }
  if (tags.length) {
    parts.push(`(SELECT count(*) FROM chunk_tags t WHERE t.rid = c.rid AND t.tag IN (${tags.map(() => '?').join(', ')})) = ?`);
    params.push(...tags, tags.length);
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params };
}

/** The query vector: the caller's (checked against the index), or the query embedded (stop-words out, mean with the raw view). */
async function queryVector(pair: ChunkSearchDeps['pair'], req: CheckedQuery, warnings: string[]): Promise<Float32Array | undefined> {
  if (!pair) return undefined;
  if (req.queryEmbedding) {
    if (req.queryEmbedding.length !== pair.vectors.dimension)
      throw new ValidationError(
        'queryEmbedding',
        `has ${req.queryEmbedding.length} dimensions; the session index (${pair.vectors.space}) has ${pair.vectors.dimension}`,
      );
    return req.queryEmbedding;
  }
  if (!/[\p{L}\p{N}]/u.test(req.query)) return undefined;
  // No chunk has a vector (no session yet, or none embedded yet): the vector leg can find nothing,
  // so the query is not embedded for it — recall_memories asks for sessions on every call.
  if (pair.vectors.size === 0) return undefined;
  const texts = [prepareQueryEmbedText(req.query, { stopwords: true, questionMarks: true })];
  const raw = prepareQueryEmbedText(req.query, { stopwords: false, questionMarks: true });
  if (raw !== texts[0]) texts.push(raw);
  try {
    const vs = await pair.embedder.embed(texts, 'query');
    if (vs.length !== texts.length || vs.some((v) => v.length !== pair.vectors.dimension)) throw new Error('unexpected vectors');
    const bad = vs.map(unusableVectorReason).find((r) => r !== undefined);
    if (bad) throw new Error(`an unusable vector: it ${bad}`);
    return vs.length === 1 ? vs[0] : meanOfUnitVectors(vs);
  } catch (e) {
    warnings.push(`Vector search of sessions skipped (full-text only): the query could not be embedded: ${errorMessage(e)}`);
    return undefined;
  }
}

function candidate(rid: number, sequenceEnd: number, bm25: number | undefined, similarity: number | undefined): ChunkCandidate {
  return {
    rid,
    id: '',
    createdAt: '',
    sequenceEnd,
    bm25,
    similarity,
    keywordHit: bm25 !== undefined,
    vectorHit: similarity !== undefined,
  };
}

/**
 * Best `k` chunks matching `expr` under `where`: the pruned exact ranking (chunkTextRank.ts), or,
 * where it does not apply, ranked over the FTS table alone first (k×4), then joined and filtered;
 * when the filters leave fewer than k, the one-pass query with the filters inside answers (the
 * same result either way).
 */
function keywordLeg(store: Store, { expr, phrases }: { expr: string; phrases: number }, where: Where, k: number): ChunkCandidate[] {
  ensureBm25(store);
  const pruned = prunedKeywordLeg(store, expr, phrases, where, k);
  if (pruned) return pruned;
  const first = k * 4;
  const twoPass =
    `SELECT c.rid AS rid, c.sequence_end AS seq, r.score AS score FROM (SELECT docid, bm25(matchinfo(chunks_fts, 'pcnalx')) AS score ` +
    `FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score ASC LIMIT ?) AS r CROSS JOIN chunks c ON c.rid = r.docid ` +
    `WHERE ${where.sql} ORDER BY r.score ASC, c.sequence_end DESC, c.rid DESC LIMIT ?`;
  let rows = store.all<{ rid: number; seq: number; score: number }>(twoPass, [expr, first, ...where.params, k]);
  if (rows.length < k && where.sql !== '1') {
    rows = store.all(
      `SELECT c.rid AS rid, c.sequence_end AS seq, bm25(matchinfo(chunks_fts, 'pcnalx')) AS score FROM chunks_fts ` +
        `CROSS JOIN chunks c ON c.rid = chunks_fts.docid WHERE chunks_fts MATCH ? AND ${where.sql} ` +
        `ORDER BY score ASC, c.sequence_end DESC, c.rid DESC LIMIT ?`,
      [expr, ...where.params, k],
    );
  }
  return rows.map((r) => candidate(Number(r.rid), Number(r.seq), -Number(r.score), undefined));
}

/** The pruned ranking's answer; null when it does not apply or the store breaks its expectations (then bm25() in SQL answers). */
function prunedKeywordLeg(store: Store, expr: string, phrases: number, where: Where, k: number): ChunkCandidate[] | null {
  try {
    return rankChunkText(store, expr, phrases, where, k)?.map((h) => candidate(h.rid, h.seq, h.bm25, undefined)) ?? null;
  } catch {
    return null;
  }
}

/** The vector top-k under the filters: unfiltered first, the allowed set inside the walk when the filters reject too many. */
function vectorLeg(store: Store, { vectors, q }: VectorQuery, where: Where, k: number): ChunkCandidate[] {
  let hits = vectors.search(q, k);
  let seq = allowed(
    store,
    hits.map((h) => h.rid),
    where,
  );
  if (where.sql !== '1' && hits.filter((h) => seq.has(h.rid)).length < k && hits.length >= k) {
    const ok = new Set(
      store.all<{ rid: number }>(`SELECT c.rid AS rid FROM chunks c WHERE ${where.sql}`, where.params).map((r) => Number(r.rid)),
    );
    hits = vectors.search(q, k, (rid) => ok.has(rid));
    seq = allowed(
      store,
      hits.map((h) => h.rid),
      where,
    );
  }
  const out: ChunkCandidate[] = [];
  for (const h of hits) {
    const s = seq.get(h.rid);
    if (s !== undefined) out.push(candidate(h.rid, s, undefined, h.similarity));
  }
  return out;
}

/** sequence_end of the rids that pass the filters. */
function allowed(store: Store, rids: number[], where: Where): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < rids.length; i += 500) {
    const part = padded(rids.slice(i, i + 500));
    for (const r of store.all<{ rid: number; seq: number }>(
      `SELECT c.rid AS rid, c.sequence_end AS seq FROM chunks c WHERE c.rid IN (${part.map(() => '?').join(', ')}) AND ${where.sql}`,
      [...part, ...where.params],
    ))
      out.set(Number(r.rid), Number(r.seq));
  }
  return out;
}

/** Union semantics: keyword-only candidates get their cosine, vector-only ones their BM25. */
function fillScores(store: Store, { vectors, q }: VectorQuery, expr: string, union: Map<number, ChunkCandidate>): void {
  const noSim = [...union.values()].filter((c) => c.similarity === undefined).map((c) => c.rid);
  if (noSim.length) for (const [rid, sim] of vectors.similarities(q, noSim)) union.get(rid)!.similarity = sim;
  const noText = [...union.values()].filter((c) => c.bm25 === undefined).map((c) => c.rid);
  for (let i = 0; i < noText.length; i += 500) {
    const part = padded(noText.slice(i, i + 500));
    const rows = store.all<{ rid: number; score: number }>(
      `SELECT docid AS rid, bm25(matchinfo(chunks_fts, 'pcnalx')) AS score FROM chunks_fts WHERE chunks_fts MATCH ? AND docid IN (${part.map(() => '?').join(', ')})`,
      [expr, ...part],
    );
    for (const r of rows) {
      const c = union.get(Number(r.rid));
      if (!c) continue;
      c.bm25 = -Number(r.score);
      c.keywordHit = true;
    }
  }
}

type HitRow = Pick<
  ChunkHit,
  'chunkId' | 'rid' | 'sessionId' | 'agent' | 'text' | 'sequenceStart' | 'sequenceEnd' | 'role' | 'noteId' | 'tags' | 'sessionUpdatedAt'
>;

function hydrate(store: Store, rids: number[]): Map<number, HitRow> {
  const out = new Map<number, HitRow>();
  for (let i = 0; i < rids.length; i += 500) {
    const part = padded(rids.slice(i, i + 500));
    const rows = store.all<Record<string, string | number | null>>(
      `SELECT c.rid, c.chunk_id, c.session_id, c.chunk_text, c.sequence_start, c.sequence_end, c.metadata_json, s.agent_identity, s.updated_at
         FROM chunks c JOIN sessions s ON s.session_id = c.session_id WHERE c.rid IN (${part.map(() => '?').join(', ')})`,
      part,
    );
    for (const r of rows) {
      const meta = parseMeta(String(r.metadata_json));
      out.set(Number(r.rid), {
        chunkId: String(r.chunk_id),
        rid: Number(r.rid),
        sessionId: String(r.session_id),
        agent: r.agent_identity === null ? null : String(r.agent_identity),
        text: String(r.chunk_text),
        sequenceStart: Number(r.sequence_start),
        sequenceEnd: Number(r.sequence_end),
        ...(typeof meta.role === 'string' ? { role: meta.role } : {}),
        ...(typeof meta.note_id === 'string' ? { noteId: meta.note_id } : {}),
        tags: Array.isArray(meta.tags) ? meta.tags.map(String) : [],
        sessionUpdatedAt: String(r.updated_at),
      });
    }
  }
  return out;
}

function parseMeta(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
