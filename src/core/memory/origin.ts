/**
 * Who asked for a memory (a create's `origin`). It decides two things, each in one place:
 * the default lifetime (lifetime.ts, docs/lifecycle.md "Lifetimes") and whether a close
 * duplicate is merged (docs/consolidation.md "On write"): a person's explicit save is never
 * rewritten silently, so only automatic writes are merged into an existing memory.
 *
 * - `person`: saved on purpose by a person — Add Memory, Add Selection, `@memory /remember`,
 *   the chat save tool after the person confirmed it, `agent-memory add`;
 * - `agent`: an agent's save on request that nobody confirmed (MCP `store_memory`);
 * - `capture`: an agent's automatic capture (`automatic: true`, `agent-memory add --automatic`);
 * - `pipeline`, `document`, `import`: facts the pipeline extracts, document chunks, imports.
 */
import { shownValue } from '../util/shownValue';
import { ValidationError } from './errors';

export const CREATE_ORIGINS = ['person', 'pipeline', 'capture', 'document', 'import', 'agent'] as const;
export type CreateOrigin = (typeof CREATE_ORIGINS)[number];

/** A create without an origin comes from a person: the safe side (nothing expires or is merged unasked). */
export function originOf(value: unknown): CreateOrigin {
  if (value === undefined || value === null) return 'person';
  if ((CREATE_ORIGINS as readonly unknown[]).includes(value)) return value as CreateOrigin;
  throw new ValidationError('origin', `must be one of ${CREATE_ORIGINS.join(', ')}, got ${shownValue(value)}`);
}

/**
 * A person's explicit save: a close duplicate is stored as its own memory with a merge
 * suggestion, never merged into the other one. Every other origin is an automatic write.
 */
export function isExplicitSave(origin: CreateOrigin): boolean {
  return origin === 'person';
}
