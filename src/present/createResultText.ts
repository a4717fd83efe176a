/**
 * What a save did, in words: the one wording of a create's result (memory.create) for every
 * surface — the VS Code notifications, `@memory /remember`, the chat save tool, the CLI and the
 * MCP server. A merge says into which memory; a save kept apart from a very similar memory says
 * which one and that a merge suggestion waits (docs/consolidation.md "On write"). No vscode
 * import: the CLI and the MCP server use it too.
 */
import { plural } from '../core/text/plural';
import { truncateLine } from '../core/text/truncate';
import { describeRedacted } from '../core/secrets/detect';
import type { CreateMemoryResult, SimilarMemory } from '../engine/protocol';

export { describeRedacted };

export interface CreateWording {
  /** Name each memory by its id too (the CLI, agents). */
  ids?: boolean;
  /**
   * false: name memories by id only, never by their title or text (tool results, where memory
   * text belongs inside the recall markers). Default true.
   */
  titles?: boolean;
}

/** How many similar memories are named; the rest are counted. */
const NAMED_SIMILAR = 2;
const LABEL_MAX = 80;

export function describeCreate(r: CreateMemoryResult, wording: CreateWording = {}): string {
  const said = describeOutcome(r, wording);
  return r.status === 'skipped' || !r.redacted?.length ? said : `${said} ${describeRedacted(r.redacted)}`;
}

function describeOutcome(r: CreateMemoryResult, wording: CreateWording): string {
  const w = { titles: wording.titles !== false, ids: wording.ids === true || wording.titles === false };
  if (r.status === 'skipped') return skippedText(r, w);
  const label = r.memory.title || r.memory.content;
  if (r.action === 'merged' && r.status === 'duplicate') {
    const how = r.mergedSimilarity === undefined ? '' : `${percent(r.mergedSimilarity)} similar`;
    return `Merged into ${other(w, r.memory.id, label, how)}, which now holds this text too.`;
  }
  if (r.status === 'duplicate') {
    return w.titles
      ? `Already remembered: ${truncateLine(label, LABEL_MAX)}${idTail(w, r.memory.id)}`
      : `Already remembered as memory ${r.memory.id}.`;
  }
  const saved = w.titles ? `Memory saved: ${truncateLine(label, LABEL_MAX)}${idTail(w, r.memory.id)}` : `Memory saved (id ${r.memory.id})`;
  return saved + (similarText(r, w) || (w.titles ? '' : '.'));
}

type Wording = Required<CreateWording>;

function skippedText(r: Extract<CreateMemoryResult, { status: 'skipped' }>, w: Wording): string {
  if (r.reason !== 'redundant') return `Not saved: ${r.detail}`;
  const where =
    r.existingId && (r.existingLabel || !w.titles)
      ? other(w, r.existingId, r.existingLabel ?? '', '')
      : w.ids && r.existingId
        ? `memory ${r.existingId}`
        : 'another memory';
  return `Not saved: most of its words are already in ${where}.`;
}

/** "; similar to “…” (96%). It is kept as its own memory, with a merge suggestion to review." */
function similarText(r: CreateMemoryResult, w: Wording): string {
  const similar: readonly SimilarMemory[] = r.similar ?? [];
  const count = Math.max(similar.length, r.suggestions?.length ?? 0);
  if (!count) return '';
  const named = similar.slice(0, NAMED_SIMILAR).map((s) => other(w, s.id, s.label, percent(s.similarity)));
  const rest = count - named.length;
  const others = rest ? [plural(rest, named.length ? 'other memory' : 'memory', named.length ? 'other memories' : 'memories')] : [];
  const list = [...named, ...others];
  const joined = list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0];
  const suggestions = count === 1 ? 'a merge suggestion' : plural(count, 'merge suggestion');
  return `; similar to ${joined}. It is kept as its own memory, with ${suggestions} to review.`;
}

/** Another memory in a sentence: “Title” (id …, 96%), or memory <id> (96%) without titles. */
function other(w: Wording, id: string, label: string, detail: string): string {
  if (!w.titles) return `memory ${id}${detail ? ` (${detail})` : ''}`;
  const inParens = [...(w.ids ? [`id ${id}`] : []), ...(detail ? [detail] : [])];
  // "in “Use pnpm”." rather than "in “Use pnpm.”.": the sentence around the quote has its own full stop.
  const quoted = truncateLine(label, LABEL_MAX).replace(/(?<!\.)\.$/u, '');
  return `“${quoted}”${inParens.length ? ` (${inParens.join(', ')})` : ''}`;
}

function idTail(w: Wording, id: string): string {
  return w.ids ? ` (id ${id})` : '';
}

function percent(similarity: number): string {
  return `${Math.round(similarity * 100)}%`;
}
