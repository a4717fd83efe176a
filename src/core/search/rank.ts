/**
 * Ranking by the one relevance (relevance.ts, docs/recall.md "Relevance"): what a query asks about
 * (its units and their weights in this store), what each candidate matched (its words in its own
 * text or its search context, its date, its speaker), and the candidates in relevance order.
 *
 * The per-query work is a few cached document-frequency counts (termStats.ts); the per-candidate
 * work reads what the keyword leg already knows and, only when the query names a date or a
 * speaker, one statement for the candidates' dates or speakers.
 */
import type { Store } from '../store/store';
import { padded } from './fullText';
import type { FullTextLeg } from './fullTextExact';
import type { WhereClause } from './filters';
import { inDateWindows, overlapsDateWindows, splitQueryDates, type DateWindow } from './queryDates';
import {
  contentTerms,
  matchedTerms,
  NO_MATCH,
  type CandidateMatch,
  type ContentTerm,
  type QueryEvidence,
  type QueryUnit,
  type VectorCalibration,
} from './relevance';
import { idf, type TermStats } from './termStats';
import { parseTimeRefs } from '../text/timeRefs';

/** A named date matches a memory written (or referring to a day) within this many days of it: time zones. */
const DATE_SLACK_MS = 86_400_000;

export interface QueryPlan extends QueryEvidence {
  /** The content terms of the query (without the words of the dates it names). */
  terms: ContentTerm[];
  /** Every date window the query names. */
  windows: DateWindow[];
  /**
   * The query has content words and the store holds none of them anywhere (each one's document
   * frequency is 0), and it names no date or speaker of the store: only meaning can match it.
   */
  unknown: boolean;
}

export interface PlanInput {
  projectId: string;
  query: string;
  /** The keyword leg ran (content words are evidence only then). */
  keyword: boolean;
  cal: VectorCalibration | undefined;
  weights: { keyword: number; vector: number };
  /** The asker's now: relative dates in the query ("last week") are read against it. */
  now: Date;
}

/**
 * The query's units and weights: each content word weighs its idf; a date the query names weighs
 * the idf of the memories written in it (relative dates only when some memory is); a speaker of
 * the store the query names is one more unit, weighing what the name's word does.
 */
export function planQuery(stats: TermStats, p: PlanInput): QueryPlan {
  const absolute = splitQueryDates(p.query);
  const relative = splitQueryDates(absolute.rest, p.now);
  const n = stats.rowCount();
  const units: QueryUnit[] = [];
  let held = 0;
  // A relative date counts only when some memory was written then; else its words stay words.
  const kept = relative.windows.filter((w) => stats.datedCount(p.projectId, w.start, w.end) > 0);
  const terms = p.keyword ? contentTerms(kept.length ? relative.rest : absolute.rest) : [];
  for (const t of terms) {
    const df = stats.documentFrequency(t.rendered);
    if (df > 0) held++;
    units.push({ kind: 'term', label: t.label, rendered: t.rendered, weight: idf(df, n) });
  }
  const windows = [...absolute.windows, ...kept];
  if (windows.length) {
    const dated = Math.max(...windows.map((w) => stats.datedCount(p.projectId, w.start - DATE_SLACK_MS, w.end + DATE_SLACK_MS)));
    units.push({ kind: 'date', label: 'date', windows, weight: idf(dated, n) });
  }
  if (p.keyword) addSpeakers(stats, units);
  const total = units.reduce((s, u) => s + u.weight, 0);
  const unknown = terms.length > 0 && held === 0 && units.every((u) => u.kind === 'term');
  return { units, total, cal: p.cal, weights: p.weights, terms, windows, unknown };
}

/** A query word that names a speaker of the store ("what did Melanie paint?") is matched as that speaker. */
function addSpeakers(stats: TermStats, units: QueryUnit[]): void {
  const speakers = stats.speakers();
  if (speakers.size === 0) return;
  units.forEach((u, i) => {
    const s = u.kind === 'term' ? speakers.get(u.label) : undefined;
    if (u.kind === 'term' && s !== undefined)
      units[i] = { kind: 'speaker', label: u.label, rendered: u.rendered, speaker: s, weight: u.weight };
  });
}

/**
 * Memories inside a window the query names (written then, or referring to a day then), newest
 * first, at most `k`: candidates neither leg may have found ("what happened on 7 May 2023?").
 */
export function datedCandidates(
  store: Store,
  where: WhereClause,
  windows: readonly DateWindow[],
  k: number,
): { rid: number; id: string; createdAt: string }[] {
  if (windows.length === 0 || k <= 0) return [];
  const byCreated: string[] = [];
  const byRefs: string[] = [];
  const params: (string | number)[] = [];
  const refParams: string[] = [];
  for (const w of windows.slice(0, 8)) {
    byCreated.push('(m.created_at >= ? AND m.created_at < ?)');
    params.push(new Date(w.start - DATE_SLACK_MS).toISOString(), new Date(w.end + DATE_SLACK_MS).toISOString());
    byRefs.push("(json_extract(j.value, '$[0]') < ? AND json_extract(j.value, '$[1]') > ?)");
    refParams.push(day(w.end + DATE_SLACK_MS), day(w.start - DATE_SLACK_MS));
  }
  const sql =
    `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at FROM memories m WHERE ${where.sql} AND ` +
    `((${byCreated.join(' OR ')}) OR (m.time_refs <> '[]' AND EXISTS ` +
    `(SELECT 1 FROM json_each(m.time_refs) j WHERE ${byRefs.join(' OR ')}))) ` +
    'ORDER BY m.created_at DESC LIMIT ?';
  return store
    .all(sql, [...where.params, ...params, ...refParams, k])
    .map((r) => ({ rid: Number(r.rid), id: String(r.id), createdAt: String(r.created_at) }));
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * What each candidate matched: its content words (own text / search context), and — only when
 * the query has such units — its date and its speaker.
 */
export function candidateMatches(
  store: Store,
  plan: QueryPlan,
  cands: readonly { rid: number; createdAt: string; bm25?: number }[],
  leg: FullTextLeg,
): Map<number, CandidateMatch> {
  const out = new Map<number, CandidateMatch>();
  const words = matchedTerms(
    store,
    plan.terms,
    cands.filter((c) => c.bm25 !== undefined && c.bm25 > 0).map((c) => c.rid),
    leg,
  );
  const hasDate = plan.units.some((u) => u.kind === 'date');
  const hasSpeaker = plan.units.some((u) => u.kind === 'speaker');
  const extra =
    hasDate || hasSpeaker
      ? rowFields(
          store,
          cands.map((c) => c.rid),
        )
      : new Map<number, RowFields>();
  for (const c of cands) {
    const w = words.get(c.rid);
    const f = extra.get(c.rid);
    const dated = hasDate && isDated(c.createdAt, f, plan.windows);
    if (!w && !dated && !f?.speaker) continue;
    out.set(c.rid, { own: w?.own ?? NO_MATCH.own, context: w?.context ?? NO_MATCH.context, dated, speaker: f?.speaker ?? null });
  }
  return out;
}

interface RowFields {
  refs: string;
  speaker: string | null;
}

/** Written in a window the query names, or its text refers to a day in one. */
function isDated(createdAt: string, f: RowFields | undefined, windows: readonly DateWindow[]): boolean {
  return inDateWindows(createdAt, windows, DATE_SLACK_MS) || overlapsDateWindows(parseTimeRefs(f?.refs), windows, DATE_SLACK_MS);
}

/** time_refs and speaker of the given memories. */
function rowFields(store: Store, rids: readonly number[]): Map<number, RowFields> {
  const out = new Map<number, RowFields>();
  for (let i = 0; i < rids.length; i += 500) {
    const chunk = padded(rids.slice(i, i + 500));
    for (const r of store.all(`SELECT rid, time_refs, speaker FROM memories WHERE rid IN (${chunk.map(() => '?').join(', ')})`, chunk))
      out.set(Number(r.rid), {
        refs: String(r.time_refs ?? '[]'),
        speaker: r.speaker === null || r.speaker === undefined ? null : String(r.speaker),
      });
  }
  return out;
}
