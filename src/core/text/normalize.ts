// Content normalization (docs/write-path.md "Normalize"): one deterministic function that
// yields what is stored, what is indexed, and the exact-duplicate key.
import { createHash } from 'node:crypto';

export interface NormalizedContent {
  /** Trimmed, every whitespace run collapsed to one space; original casing kept. Written to the DB. */
  storageContent: string;
  /** `storageContent` lowercased, trailing `[.,!?;:]+` removed. Used for FTS and as the hash basis. */
  normalizedContent: string;
  /** SHA-256 hex (64 chars) of `normalizedContent`, or of the lowercased storage content when that is empty. */
  contentHash: string;
}

export function normalizeAndHashContent(content: string): NormalizedContent {
  const storageContent = content.trim().replace(/\s+/g, ' ');
  const lowered = storageContent.toLowerCase();
  const normalizedContent = lowered.replace(/[.,!?;:]+$/, '');
  // Punctuation-only text ("...") normalizes to "": hash the lowercased storage content instead
  // so distinct punctuation strings do not all collide on sha256("").
  const basis = normalizedContent.length > 0 ? normalizedContent : lowered;
  const contentHash = createHash('sha256').update(basis, 'utf8').digest('hex');
  return { storageContent, normalizedContent, contentHash };
}
