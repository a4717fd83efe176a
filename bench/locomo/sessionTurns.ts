// From session chunks to LoCoMo turns (the `sessions` config, bench/locomo/sessionsRetriever.ts).
// A conversation is stored as sessions of events, one event per turn; the chunk query answers
// chunks, the metric counts turns. A chunk covers the events of its session, between its
// sequence_start and sequence_end, whose own text produced it (the write path extends a chunk's
// sequence_end when a later event of the session repeats its text, so "Thanks!" said twice is one
// chunk covering both turns, not the turns in between). A chunk's score goes to every turn it
// covers, a turn keeps the best score any of its chunks got, and the list is cut at k turns.
import { extractIndexable } from '../../src/core/sessions/extract';
import { chunkHash, chunkText } from '../../src/core/sessions/chunking';

/** The chunk hashes of each event of one session, keyed by sequence. */
export type EventChunks = Map<number, Set<string>>;

/** The hashes of the chunks the write path makes of this event payload (the same extraction and cutting). */
export function chunkHashesOf(payload: Record<string, unknown>): Set<string> {
  const out = new Set<string>();
  for (const t of extractIndexable(payload).texts) for (const c of chunkText(t)) out.add(chunkHash(c));
  return out;
}

/** What the ranking needs of a chunk hit. */
export interface ChunkRef {
  sessionId: string;
  text: string;
  sequenceStart: number;
  sequenceEnd: number;
  score: number;
}

/** The sequences of the events `hit` covers (see the file comment). */
export function coveredSequences(hit: ChunkRef, events: EventChunks | undefined): number[] {
  const hash = chunkHash(hit.text);
  const out: number[] = [];
  for (let s = hit.sequenceStart; s <= hit.sequenceEnd; s++) if (events?.get(s)?.has(hash)) out.push(s);
  // A chunk no event of its range produced (it should not happen): it stands for its first event.
  if (out.length === 0) out.push(hit.sequenceStart);
  return out;
}

/**
 * Turns ranked by their chunks' scores, best first, at most `k`: `turnOf` names the turn of a
 * session's event (undefined: not a turn, left out). Hits must come best first (as the chunk
 * query answers them); a turn's place is that of its best chunk, equal scores keep the hits' order.
 */
export function rankTurns(
  hits: readonly ChunkRef[],
  events: ReadonlyMap<string, EventChunks>,
  turnOf: (sessionId: string, sequence: number) => string | undefined,
  k: number,
): string[] {
  const best = new Map<string, { score: number; order: number }>();
  let order = 0;
  for (const h of hits) {
    for (const seq of coveredSequences(h, events.get(h.sessionId))) {
      const turn = turnOf(h.sessionId, seq);
      if (turn === undefined) continue;
      const held = best.get(turn);
      if (!held || h.score > held.score) best.set(turn, { score: h.score, order: held?.order ?? order++ });
    }
  }
  return [...best.entries()]
    .sort((a, b) => b[1].score - a[1].score || a[1].order - b[1].order)
    .slice(0, k)
    .map(([turn]) => turn);
}
