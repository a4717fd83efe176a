// LoCoMo benchmark data: load, validate, and turn into per-sample documents and scorable
// questions, as the metric of bench/locomo/metric.ts needs them.
//
// The data is CC BY-NC 4.0: it is read from outside the repository (or a path given on the
// command line) and never copied into it.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root (this file lives in `<root>/bench/locomo/`). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * The documented default place of the data (docs/DEVELOPMENT.md "Benchmarks"): `LOCOMO_DATA`
 * when set, else locomo-dev.json in the checkout's sibling folder shared/bench, relative to the
 * repository root (not to the cwd).
 */
export const DEFAULT_LOCOMO_PATH = process.env.LOCOMO_DATA
  ? path.resolve(process.env.LOCOMO_DATA)
  : path.resolve(REPO_ROOT, '..', 'shared', 'bench', 'locomo-dev.json');

/** The question categories that are scored (5 is adversarial and left out). */
export const SCORED_CATEGORIES = [1, 2, 3, 4] as const;
export type Category = (typeof SCORED_CATEGORIES)[number];

/** One dialogue turn as one memory document. */
export interface TurnDoc {
  /** Canonical dia id, e.g. `D3:12`. */
  id: string;
  /** `"<speaker>: <text>"` plus `" [image: <blip_caption>]"` when a caption exists. */
  text: string;
  /** The session's date string as given, e.g. `1:56 pm on 8 May, 2023` (`''` if absent). */
  date: string;
  speaker: string;
  /** Session number n of `session_<n>`. */
  session: number;
}

/** A question that is scored: category 1–4 with at least one evidence id naming a turn. */
export interface ScorableQuestion {
  sampleId: string;
  /** Position in the sample's `qa` array (stable id: `${sampleId}#${index}`). */
  index: number;
  question: string;
  category: Category;
  /** Canonical dia ids of the evidence turns, deduplicated, in first-seen order. */
  evidence: string[];
}

export interface LocomoSample {
  sampleId: string;
  speakers: [string, string];
  /** Turns in session order, then turn order as given. */
  docs: TurnDoc[];
  questions: ScorableQuestion[];
}

export interface LocomoStats {
  samples: number;
  turns: number;
  /** All qa entries in the file. */
  qaTotal: number;
  /** Entries of category 5 (or any category outside 1–4): not scored. */
  qaOtherCategory: number;
  /** Category 1–4 entries left with no evidence naming a turn: not scored. */
  qaNoEvidence: number;
  /** Scored questions. */
  scorable: number;
  /** Evidence tokens that are not `D<session>:<turn>` (e.g. `D:11:26`): dropped. */
  evidenceMalformed: number;
  /** Well-formed evidence ids naming no turn of the sample: dropped. */
  evidenceUnknown: number;
}

export interface LocomoDataset {
  /** Absolute path of the file read (or a label when parsed from memory). */
  source: string;
  samples: LocomoSample[];
  stats: LocomoStats;
}

const DIA_ID_RE = /^D(\d+):(\d+)$/;

/**
 * `D<session>:<turn>` with leading zeros removed (`D03:007` → `D3:7`), or null when the token
 * is not of that form. Session and turn must be positive.
 */
export function canonicalDiaId(token: string): string | null {
  const m = DIA_ID_RE.exec(token.trim());
  if (!m) return null;
  const session = Number(m[1]);
  const turn = Number(m[2]);
  if (!Number.isSafeInteger(session) || !Number.isSafeInteger(turn) || session < 1 || turn < 1) return null;
  return `D${session}:${turn}`;
}

export interface ParsedEvidence {
  /** Canonical ids naming a known turn, deduplicated, first-seen order. */
  ids: string[];
  /** Tokens that are not `D<session>:<turn>`. */
  malformed: string[];
  /** Well-formed canonical ids that name no turn. */
  unknown: string[];
}

/**
 * Parse a question's evidence list: each string is split on `;`, `,` and white space; each
 * token is accepted as `D<session>:<turn>` (leading zeros removed) and kept only if it names
 * a turn in `known`. Non-string entries are ignored as malformed.
 */
export function parseEvidence(evidence: readonly unknown[], known: ReadonlySet<string>): ParsedEvidence {
  const ids: string[] = [];
  const seen = new Set<string>();
  const malformed: string[] = [];
  const unknown: string[] = [];
  for (const entry of evidence) {
    if (typeof entry !== 'string') {
      malformed.push(String(entry));
      continue;
    }
    for (const token of entry.split(/[;,\s]+/)) {
      if (token === '') continue;
      const id = canonicalDiaId(token);
      if (id === null) malformed.push(token);
      else if (!known.has(id)) unknown.push(id);
      else if (!seen.has(id)) {
        seen.add(id);
        ids.push(id);
      }
    }
  }
  return { ids, malformed, unknown };
}

/** The memory text of one turn, per the README. */
export function turnText(speaker: string, text: string, blipCaption?: string | null): string {
  const caption = typeof blipCaption === 'string' ? blipCaption : '';
  return caption !== '' ? `${speaker}: ${text} [image: ${caption}]` : `${speaker}: ${text}`;
}

class LocomoFormatError extends Error {
  override name = 'LocomoFormatError';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(where: string, what: string): never {
  throw new LocomoFormatError(`LoCoMo data: ${where}: ${what}`);
}

function str(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key];
  if (typeof v !== 'string') fail(where, `"${key}" must be a string (got ${v === undefined ? 'nothing' : typeof v})`);
  return v;
}

const SESSION_KEY_RE = /^session_(\d+)$/;

function parseSample(raw: unknown, position: number, stats: LocomoStats): LocomoSample {
  const at = `sample ${position}`;
  if (!isObject(raw)) fail(at, 'must be an object');
  const sampleId = str(raw, 'sample_id', at);
  const where = `sample ${sampleId}`;
  const conv = raw['conversation'];
  if (!isObject(conv)) fail(where, '"conversation" must be an object');
  const speakers: [string, string] = [str(conv, 'speaker_a', `${where} conversation`), str(conv, 'speaker_b', `${where} conversation`)];

  const sessions: number[] = [];
  for (const key of Object.keys(conv)) {
    const m = SESSION_KEY_RE.exec(key);
    if (m) sessions.push(Number(m[1]));
  }
  sessions.sort((a, b) => a - b);
  if (sessions.length === 0) fail(where, 'conversation has no session_<n> lists');

  const docs: TurnDoc[] = [];
  const known = new Set<string>();
  for (const n of sessions) {
    const sw = `${where} session_${n}`;
    const turns = conv[`session_${n}`];
    if (!Array.isArray(turns)) fail(sw, 'must be a list of turns');
    const dateRaw = conv[`session_${n}_date_time`];
    if (dateRaw !== undefined && typeof dateRaw !== 'string') fail(sw, `session_${n}_date_time must be a string`);
    const date = dateRaw ?? '';
    turns.forEach((t, i) => {
      const tw = `${sw} turn ${i}`;
      if (!isObject(t)) fail(tw, 'must be an object');
      const speaker = str(t, 'speaker', tw);
      const rawId = str(t, 'dia_id', tw);
      const text = str(t, 'text', tw);
      const id = canonicalDiaId(rawId);
      if (id === null) fail(tw, `dia_id "${rawId}" is not D<session>:<turn>`);
      if (known.has(id)) fail(tw, `duplicate dia_id ${id}`);
      const caption = t['blip_caption'];
      if (caption !== undefined && caption !== null && typeof caption !== 'string') fail(tw, '"blip_caption" must be a string');
      known.add(id);
      docs.push({ id, text: turnText(speaker, text, caption as string | undefined), date, speaker, session: n });
    });
  }
  stats.turns += docs.length;

  const qa = raw['qa'];
  if (!Array.isArray(qa)) fail(where, '"qa" must be a list');
  const questions: ScorableQuestion[] = [];
  qa.forEach((q, index) => {
    const qw = `${where} qa ${index}`;
    stats.qaTotal++;
    if (!isObject(q)) fail(qw, 'must be an object');
    const question = str(q, 'question', qw);
    const category = q['category'];
    if (typeof category !== 'number' || !Number.isInteger(category)) fail(qw, '"category" must be an integer');
    const evidence = q['evidence'] ?? [];
    if (!Array.isArray(evidence)) fail(qw, '"evidence" must be a list');
    if (!(SCORED_CATEGORIES as readonly number[]).includes(category)) {
      stats.qaOtherCategory++;
      return;
    }
    const parsed = parseEvidence(evidence, known);
    stats.evidenceMalformed += parsed.malformed.length;
    stats.evidenceUnknown += parsed.unknown.length;
    if (parsed.ids.length === 0) {
      stats.qaNoEvidence++;
      return;
    }
    questions.push({ sampleId, index, question, category: category as Category, evidence: parsed.ids });
  });
  stats.scorable += questions.length;
  return { sampleId, speakers, docs, questions };
}

/** Validate and convert already-parsed JSON. Throws a descriptive error on malformed data. */
export function parseLocomo(json: unknown, source = '<memory>'): LocomoDataset {
  if (!Array.isArray(json)) throw new LocomoFormatError(`LoCoMo data: ${source}: top level must be a JSON array of samples`);
  const stats: LocomoStats = {
    samples: 0,
    turns: 0,
    qaTotal: 0,
    qaOtherCategory: 0,
    qaNoEvidence: 0,
    scorable: 0,
    evidenceMalformed: 0,
    evidenceUnknown: 0,
  };
  const samples = json.map((s, i) => parseSample(s, i, stats));
  const ids = new Set<string>();
  for (const s of samples) {
    if (ids.has(s.sampleId)) throw new LocomoFormatError(`LoCoMo data: duplicate sample_id ${s.sampleId}`);
    ids.add(s.sampleId);
  }
  stats.samples = samples.length;
  return { source, samples, stats };
}

/**
 * Read and validate a LoCoMo file. A relative `file` is resolved against the cwd (as any
 * command-line path); with no `file`, {@link DEFAULT_LOCOMO_PATH}.
 */
export function loadLocomo(file?: string): LocomoDataset {
  const abs = file ? path.resolve(file) : DEFAULT_LOCOMO_PATH;
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(`LoCoMo data: cannot read ${abs}${code ? ` (${code})` : ''}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`LoCoMo data: ${abs} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseLocomo(json, abs);
}
