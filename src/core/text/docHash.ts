// doc_hash canonicalization (docs/write-path.md "Normalize"): SHA-256 over the UTF-8 bytes of a compact JSON object
// with sorted keys {context, decisions, rationale, topic}. Topic and context are trimmed;
// metadata is excluded, so editing metadata never changes the dedup key.
import { createHash } from 'node:crypto';

export interface DocHashInput {
  topic: string;
  context: string;
  /** A JSON array in storage (`decisions_json`); missing is hashed as []. */
  decisions?: unknown;
  /** A JSON array in storage (`rationale_json`); missing is hashed as []. */
  rationale?: unknown;
  /** Accepted so a whole record can be passed in; never part of the hash. */
  metadata?: unknown;
}

/** The exact string that is hashed. Nested object keys are sorted too, so key order never matters. */
export function canonicalDocJson(doc: DocHashInput): string {
  return JSON.stringify(
    sortKeys({
      context: doc.context.trim(),
      decisions: doc.decisions ?? [],
      rationale: doc.rationale ?? [],
      topic: doc.topic.trim(),
    }),
  );
}

/** 64-char lowercase hex SHA-256 of {@link canonicalDocJson}. */
export function computeDocHash(doc: DocHashInput): string {
  return createHash('sha256').update(canonicalDocJson(doc), 'utf8').digest('hex');
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    // JSON.stringify keeps insertion order for string keys, so rebuilding in sorted order is enough.
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
