/** The synthetic corpus of the team benchmarks (team.bench.ts, teamCatchUp.ts): texts and pushed changes. */
import { randomUUID } from 'node:crypto';
import { changeIdOf, stateHash } from '../src/core/team/payload';
import type { OutgoingChange, SharedMemory } from '../src/core/team/types';
import { normalizeAndHashContent } from '../src/core/text/normalize';

const WORDS =
  'build deploy cache token schema index vector queue worker lease retry snapshot segment replica shard cursor branch release tag pipeline'.split(
    ' ',
  );

/** The i-th memory text of a member, 18 words of a fixed vocabulary (the same every run). */
export function memoryText(i: number, who: string): string {
  const w: string[] = [];
  let x = (i * 2654435761 + who.length * 7919) >>> 0;
  for (let k = 0; k < 18; k++) {
    x = (x * 1103515245 + 12345) >>> 0;
    w.push(WORDS[x % WORDS.length]!);
  }
  return `${who} ${i}: ${w.join(' ')}.`;
}

/** A memory as another member's machine would push it (new, base 0), written by cy on `machine`. */
export function pushedChange(i: number, machine: string): OutgoingChange {
  const content = memoryText(i, 'cy');
  const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const memory: SharedMemory = {
    id: randomUUID(),
    type: 'general',
    title: '',
    content,
    summary: null,
    contentHash: normalizeAndHashContent(content).contentHash,
    tags: ['bench'],
    importance: 0.5,
    source: null,
    agentSource: 'bench',
    who: 'cy',
    why: null,
    ttlSeconds: null,
    expiresAt: null,
    decisions: [],
    rationale: [],
    metadata: {},
    mergedFrom: [],
    replacedBy: null,
    retentionStatus: 'active',
    deletedAt: null,
    deletedBy: null,
    deleteReason: null,
    createdAt: at,
    updatedAt: at,
  };
  const hash = stateHash(memory);
  return { changeId: changeIdOf(machine, memory.id, 0, hash), memoryId: memory.id, baseSeq: 0, stateHash: hash, memory, author: 'cy' };
}
