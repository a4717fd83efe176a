// Shared set-up for the search tests: a real store on disk, the memory service, a hash or
// table embedder, and an ExactIndex behind the VectorSearcher interface.
import { HashEmbedder } from '../../../src/core/embed/hashEmbedder';
import { EmbedderError, type Embedder } from '../../../src/core/embed/types';
import { ExactIndex } from '../../../src/core/vector/exactIndex';
import { IndexVectorSearcher } from '../../../src/core/search/indexSearcher';
import { HybridSearch } from '../../../src/core/search/hybrid';
import type { HybridSearchDeps } from '../../../src/core/search/types';
import type { CreateMemoryInput, MemoryRecord } from '../../../src/core/memory/types';
import { openMemory } from '../../helpers/memoryFixture';

/** An embedder whose vectors are given per text (for exact control of the vector leg). Unknown text → `fallback`. */
export class TableEmbedder implements Embedder {
  readonly id = 'table:test';
  readonly space: string;
  calls = 0;
  failWith: Error | undefined;
  constructor(
    readonly dimension: number,
    private readonly table: Map<string, number[]>,
    private readonly fallback: number[],
  ) {
    this.space = `table-test-${dimension}`;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls++;
    if (this.failWith) throw this.failWith;
    return texts.map((t) => Float32Array.from(this.table.get(t) ?? this.fallback));
  }
  async available(): Promise<boolean> {
    return true;
  }
  dispose(): void {}
}

export class FailingEmbedder extends HashEmbedder {
  override async embed(): Promise<Float32Array[]> {
    throw new EmbedderError('Ollama is not running', 'unreachable', 'test');
  }
}

export async function searchFixture(embedder: Embedder = new HashEmbedder({ dimension: 256 }), dir?: string) {
  const m = await openMemory(dir ? { dir } : {});
  const index = new ExactIndex({ dim: embedder.dimension });
  const vectors = new IndexVectorSearcher(index, embedder.space);
  const add = async (input: CreateMemoryInput, opts: { vector?: boolean } = {}): Promise<MemoryRecord> => {
    const r = m.svc.create({ ttlSeconds: null, allowNearDuplicate: true, ...input });
    if (r.status !== 'created') throw new Error(`fixture memory not created: ${JSON.stringify(r)}`);
    if (opts.vector !== false) {
      const [v] = await embedder.embed([r.memory.content], 'document');
      index.add(r.memory.rid, v!);
    }
    return r.memory;
  };
  const searcher = (deps: Partial<HybridSearchDeps> = {}) =>
    new HybridSearch(m.store, { projectId: m.svc.projectId, embedder, vectors, now: m.clock.now, ...deps });
  return { ...m, embedder, index, vectors, add, searcher };
}
