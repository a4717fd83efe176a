/**
 * Vectors for the facts a pipeline run may write, computed BEFORE the write transaction
 * (docs/write-path.md: no model call inside a write transaction). Keyed by the hash of
 * the exact text the memory API embeds, so a vector is only used for that text. A failed
 * embed is a warning: the memory is written `pending` and the background embedder fills it.
 */
import type { Embedder } from '../embed/types';
import { embedTextHash } from '../embed/cache';
import { embeddingText } from './embedding';
import type { PreparedEmbedding } from '../vectorstore/types';
import { normalizeAndHashContent } from '../text/normalize';
import { errorMessage } from '../util/errors';

/** The text the memory API embeds for `content` under `title`. */
export function factEmbeddingText(content: string, title = ''): string {
  return embeddingText(title.trim(), normalizeAndHashContent(content).storageContent);
}

export async function prepareEmbeddings(
  embedder: Embedder | undefined,
  texts: string[],
  warnings: string[],
): Promise<Map<string, PreparedEmbedding>> {
  const out = new Map<string, PreparedEmbedding>();
  if (!embedder || !texts.length) return out;
  const unique = [...new Set(texts)];
  try {
    const vectors = await embedder.embed(unique, 'document');
    unique.forEach((t, i) => {
      const v = vectors[i];
      if (v && v.length) out.set(embedTextHash(t), { space: embedder.space, textHash: embedTextHash(t), vector: v });
    });
  } catch (e) {
    warnings.push(`embedding before the write failed (${errorMessage(e)}); the new memories wait for the background embedder`);
  }
  return out;
}

export function embeddingFor(map: Map<string, PreparedEmbedding>, content: string, title = ''): PreparedEmbedding | undefined {
  return map.get(embedTextHash(factEmbeddingText(content, title)));
}
