/**
 * The embedder and vector store that writes and searches use now. Switching embedder
 * builds the new space in the background and calls switchTo() when it is complete; until
 * then everything keeps using the old pair. Read `current` once per operation so one
 * request never mixes spaces across an await.
 */
import type { Embedder } from '../embed/types';
import type { VectorStore } from './vectorStore';

export interface SpacePair {
  readonly embedder: Embedder;
  readonly vectors: VectorStore;
}

export class ActiveSpace {
  private pair: SpacePair;
  private readonly listeners = new Set<(next: SpacePair, previous: SpacePair) => void>();

  constructor(embedder: Embedder, vectors: VectorStore) {
    if (embedder.space !== vectors.space)
      throw new RangeError(`embedder space ${embedder.space} does not match vector store ${vectors.space}`);
    if (embedder.dimension !== vectors.dimension)
      throw new RangeError(`embedder dimension ${embedder.dimension} does not match vector store ${vectors.dimension}`);
    this.pair = { embedder, vectors };
  }

  get current(): SpacePair {
    return this.pair;
  }
  get embedder(): Embedder {
    return this.pair.embedder;
  }
  get vectors(): VectorStore {
    return this.pair.vectors;
  }

  /** Makes `next` active; returns the previous pair (the caller closes it when done). */
  switchTo(embedder: Embedder, vectors: VectorStore): SpacePair {
    if (embedder.space !== vectors.space)
      throw new RangeError(`embedder space ${embedder.space} does not match vector store ${vectors.space}`);
    const previous = this.pair;
    this.pair = { embedder, vectors };
    for (const l of this.listeners) l(this.pair, previous);
    return previous;
  }

  onSwitch(listener: (next: SpacePair, previous: SpacePair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
