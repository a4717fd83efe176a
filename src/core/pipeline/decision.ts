/**
 * Decision stage (docs/pipeline.md "Decisions"): for each extracted fact, the top-5 candidate memories from an
 * injected search function, then ADD / UPDATE / DELETE / NONE from the LLM. No candidates →
 * ADD without an LLM call. Validation drops proposals whose target id is not among the
 * candidates (hallucinated) or whose reason is empty. Named "shadow" because it writes
 * nothing: applying proposals is the worker's concern.
 */
import type { LlmProvider } from '../llm/types';
import type { ExtractedFact } from './extraction';
import { parseLlmJson } from '../llm/parseJson';

export const DECISION_ACTIONS = ['ADD', 'UPDATE', 'DELETE', 'NONE'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];
export const CANDIDATE_LIMIT = 5;
export const NO_CANDIDATES_REASON = 'No similar memory exists; the fact is new.';

export interface Candidate {
  id: string;
  type: string;
  content: string;
  /** Combined relevance in [0, 1]. */
  score: number;
}

/** Hybrid (or FTS-only) search over existing memories, best first. Injected by the host. */
export type FindCandidates = (text: string, limit: number) => Promise<Candidate[]>;

export interface Proposal {
  action: DecisionAction;
  fact: ExtractedFact;
  /** UPDATE/DELETE: the candidate it applies to. */
  targetId?: string;
  targetContent?: string;
  confidence: number;
  reason: string;
  /** Candidate ids and scores the decision saw (audit). */
  candidates: { id: string; score: number }[];
  /** False when ADD was proposed without asking the model (no candidates). */
  usedLlm: boolean;
}

export const DECISION_SCHEMA = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: [...DECISION_ACTIONS] },
    targetId: { type: 'string' },
    confidence: { type: 'number' },
    reason: { type: 'string' },
  },
  required: ['action', 'confidence', 'reason'],
} as const;

export function buildDecisionPrompt(fact: ExtractedFact, candidates: Candidate[]): string {
  const list = candidates
    .map((c, i) => `${i + 1}. id=${c.id} type=${c.type}\n   ${c.content.replace(/\s+/g, ' ').slice(0, 1000)}`)
    .join('\n');
  return `You maintain a project's long-term memory. A new fact was extracted; existing memories that may overlap are listed.
Decide ONE action and return ONLY a JSON object: {"action": "ADD"|"UPDATE"|"DELETE"|"NONE", "targetId": string, "confidence": number 0..1, "reason": string}

- ADD: the fact is new information not covered by any listed memory.
- UPDATE: the fact refines or corrects one listed memory; targetId = that memory's id. The fact's text replaces it.
- DELETE: the fact shows one listed memory is now false or obsolete; targetId = that memory's id.
- NONE: the fact is already covered; nothing to do.
targetId is required for UPDATE and DELETE and must be one of the ids below. reason: one short sentence, never empty.

Example: fact "The API server uses Fastify." with memory id=m1 "The API server uses Express." →
{"action": "UPDATE", "targetId": "m1", "confidence": 0.8, "reason": "The server moved from Express to Fastify."}

New fact (${fact.type}): ${fact.content}

Existing memories:
${list}

Answer:`;
}

/** Validates one parsed decision against the candidate set; a string is a reason to drop it. */
export function validateDecision(value: unknown, fact: ExtractedFact, candidates: Candidate[]): Proposal | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'the answer is not a JSON object';
  const r = value as Record<string, unknown>;
  const action = typeof r.action === 'string' ? r.action.trim().toUpperCase() : '';
  if (!(DECISION_ACTIONS as readonly string[]).includes(action)) return `unknown action ${JSON.stringify(r.action)}`;
  const reason = typeof r.reason === 'string' ? r.reason.trim() : '';
  if (!reason) return 'empty reason';
  const c = typeof r.confidence === 'number' ? r.confidence : Number(r.confidence);
  const confidence = Number.isFinite(c) ? Math.min(1, Math.max(0, c)) : fact.confidence;
  const proposal: Proposal = {
    action: action as DecisionAction,
    fact,
    confidence,
    reason: reason.slice(0, 1000),
    candidates: candidates.map((x) => ({ id: x.id, score: x.score })),
    usedLlm: true,
  };
  if (action === 'UPDATE' || action === 'DELETE') {
    const targetId = typeof r.targetId === 'string' ? r.targetId.trim() : '';
    if (!targetId) return `${action} without a targetId`;
    const target = candidates.find((x) => x.id === targetId);
    if (!target) return `${action} targets ${JSON.stringify(targetId)}, which is not one of the candidates (hallucinated id)`;
    proposal.targetId = target.id;
    proposal.targetContent = target.content;
  }
  return proposal;
}

export interface DecisionRun {
  proposals: Proposal[];
  warnings: string[];
  llmCalls: number;
}

/**
 * Decide for every fact. Candidate search and provider failures propagate (the job is
 * retried); malformed model answers drop that fact's proposal with a warning.
 */
export async function runShadowDecisions(
  llm: LlmProvider,
  facts: ExtractedFact[],
  findCandidates: FindCandidates,
  opts: { timeoutMs?: number; signal?: AbortSignal; excludeIds?: ReadonlySet<string> } = {},
): Promise<DecisionRun> {
  const proposals: Proposal[] = [];
  const warnings: string[] = [];
  let llmCalls = 0;
  for (const [i, fact] of facts.entries()) {
    const found = await findCandidates(fact.content, CANDIDATE_LIMIT + (opts.excludeIds?.size ?? 0));
    const candidates = found.filter((c) => !opts.excludeIds?.has(c.id)).slice(0, CANDIDATE_LIMIT);
    if (!candidates.length) {
      proposals.push({ action: 'ADD', fact, confidence: fact.confidence, reason: NO_CANDIDATES_REASON, candidates: [], usedLlm: false });
      continue;
    }
    llmCalls++;
    const raw = await llm.generate(buildDecisionPrompt(fact, candidates), {
      format: DECISION_SCHEMA as unknown as Record<string, unknown>,
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
    });
    const parsed = parseLlmJson(raw);
    if (!parsed.ok) {
      warnings.push(`decision for fact ${i + 1} dropped: ${parsed.error}`);
      continue;
    }
    const v = validateDecision(parsed.value, fact, candidates);
    if (typeof v === 'string') warnings.push(`decision for fact ${i + 1} dropped: ${v}`);
    else proposals.push(v);
  }
  return { proposals, warnings, llmCalls };
}
