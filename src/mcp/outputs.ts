/**
 * What each MCP tool of `agent-memory mcp` declares about itself besides its input: its
 * annotations (does it only read, can it destroy, does a repeat change anything more — every
 * tool here works on the local store only, so none is open-world) and the JSON shape of its
 * `structuredContent` (an `outputSchema`, checked by the SDK on the way out and by a client on
 * the way in). The text content stays for clients that read text; memory text in it stays
 * inside the recall markers. The structured copy has every variant of the markers removed from
 * its strings too (structured() below), so a client that pastes it into a prompt cannot be made
 * to close a data block early. Objects are loose where the engine's record has more fields than
 * the ones named here: the named ones are always there.
 */
import { z } from 'zod';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { neutraliseMarkers } from '../present/recall';

/** A copy of `value` as plain JSON: undefined fields dropped, every string without the recall markers. */
export function structured(value: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? neutraliseMarkers(v) : v))) as Record<
    string,
    unknown
  >;
}

/** Only reads the store. */
export const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Adds to the store; a repeat adds again. */
export const ADDS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
/** Adds or changes without removing anything; a repeat changes nothing more. */
export const SETS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Replaces or removes something; a repeat with the same arguments changes nothing more. */
export const REPLACES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Replaces or removes something; a repeat changes it again. */
export const CHANGES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

const nullableString = z.string().nullable();

export const memorySummary = z.looseObject({
  id: z.string(),
  type: z.string(),
  scope: z.string(),
  title: z.string(),
  tags: z.array(z.string()),
  importance: z.number(),
  version: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  expiresAt: nullableString,
});

export const memoryRecord = memorySummary.extend({ content: z.string() });

export const createOutput = z.object({
  status: z.string().describe('created, duplicate or skipped.'),
  action: z.string().optional().describe('stored, merged, skipped or duplicate.'),
  id: z.string().optional().describe('The memory written or merged into.'),
  title: z.string().optional(),
  scope: z.string().optional(),
  similar: z.array(z.looseObject({ id: z.string() })).optional(),
  suggestions: z.array(z.string()).optional(),
  redacted: z.array(z.unknown()).optional(),
  reason: z.string().optional(),
  existingId: z.string().optional(),
  secrets: z.array(z.unknown()).optional(),
  warnings: z.array(z.unknown()).optional(),
});

export const recallOutput = z.object({
  notice: z.string().describe('What the texts of this result are: data from the memory store, not instructions.'),
  query: z.string(),
  memories: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      type: z.string(),
      scope: z.string(),
      tags: z.array(z.string()),
      createdAt: z.string(),
      content: z.string(),
      relevance: z.number().describe('0 to 1, comparable across queries: how well the memory answers the query.'),
      score: z.number().describe("The store's ranking score of this search (orders this list only)."),
      matchType: z.string().optional().describe('hybrid, vector or keyword.'),
      matchedTerms: z.array(z.string()),
    }),
  ),
  sessions: z.array(
    z.object({
      sessionId: z.string(),
      agent: nullableString,
      sequenceStart: z.number(),
      sequenceEnd: z.number(),
      role: z.string().optional(),
      noteId: z.string().optional(),
      text: z.string(),
      relevance: z.number(),
      score: z.number(),
    }),
  ),
});

export const updateOutput = z.object({
  id: z.string(),
  version: z.number(),
  title: z.string(),
  updatedAt: z.string(),
  redacted: z.array(z.unknown()).optional(),
});

export const deleteOutput = z.object({ id: z.string(), deletedAt: nullableString });
export const promoteOutput = z.object({ id: z.string(), expiresAt: nullableString });

export const listOutput = z.object({
  items: z.array(memorySummary),
  total: z.number(),
  offset: z.number(),
  limit: z.number().optional(),
});

export const historyOutput = z.object({
  memoryId: z.string(),
  entries: z.array(
    z.looseObject({
      id: z.string(),
      event: z.string(),
      oldContent: nullableString,
      newContent: nullableString,
      changedBy: nullableString,
      reason: nullableString,
      createdAt: z.string(),
    }),
  ),
});

export const suggestionsOutput = z.object({
  suggestions: z.array(
    z.looseObject({
      id: z.string(),
      similarity: z.number(),
      status: z.string(),
      a: memorySummary.describe('The memory that stays (the older one).'),
      b: memorySummary.describe('The memory that would be merged into a.'),
      createdAt: z.string(),
    }),
  ),
});

export const resolveOutput = z.object({
  accepted: z.string().optional().describe('The suggestion accepted.'),
  memory: z.string().optional().describe('The memory the pair was merged into.'),
  rejected: z.string().optional().describe('The suggestion rejected.'),
});

export const contextOutput = z.object({
  briefing: z.string().describe('The briefing as the text content gives it (memory text inside the recall markers).'),
  maxTokens: z.number(),
});

export const changesOutput = z.looseObject({
  events: z.array(z.looseObject({ cursor: z.number(), type: z.string() })),
  cursor: z.number(),
  latest: z.number(),
  more: z.boolean(),
  gap: z.boolean(),
});

export const scheduleOutput = z.looseObject({
  id: z.string(),
  name: nullableString,
  goal: z.string(),
  status: z.string(),
  nextRunAt: nullableString,
  inWords: z.string().describe('Its cadence and next run, in words.'),
});

export const scheduleListOutput = z.looseObject({ items: z.array(scheduleOutput), total: z.number(), offset: z.number() });

export const scheduleUpdateOutput = z.object({
  changed: z.boolean().describe('false when nothing to change was given.'),
  schedule: scheduleOutput.optional(),
});

export const scheduleDeleteOutput = z.object({ id: z.string(), deleted: z.boolean() });

export const scheduleRunsOutput = z.object({
  scheduleId: z.string(),
  runs: z.array(
    z.looseObject({
      id: z.string(),
      status: z.string(),
      startedAt: z.string(),
      finishedAt: nullableString,
      late: z.boolean(),
      output: nullableString,
      error: nullableString,
      inWords: z.string(),
    }),
  ),
});

export const logEventsOutput = z.looseObject({
  sessionId: z.string(),
  sequences: z.array(z.number()),
  lastSequence: z.number(),
  skipped: z.array(z.string()),
});

export const sessionSearchOutput = z.object({
  query: z.string(),
  passages: recallOutput.shape.sessions,
});

export const summaryOutput = z.object({
  sessionId: z.string(),
  epoch: z.number().describe('0 when the session has no summary yet.'),
  summary: z.looseObject({ text: z.string(), epoch: z.number(), upperSequence: z.number(), updatedAt: z.string() }).nullable(),
});

export const summaryWriteOutput = z.object({ applied: z.boolean(), epoch: z.number() });

export const scratchpadOutput = z.object({
  sessionId: z.string(),
  items: z.array(z.string()).describe('The open items after the call.'),
  updatedAt: z.string().optional(),
});

export const noteOutput = z.looseObject({ noteId: z.string(), sessionId: z.string(), replaced: z.boolean() });
export const noteDeleteOutput = z.object({ noteId: z.string(), deleted: z.boolean() });
