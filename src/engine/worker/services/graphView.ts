/**
 * The graph panel's data: the knowledge graph of the project store (entityGraph.ts; the
 * pipeline writes it there) or the memory view of both stores (memoryGraph.ts) when asked
 * for, when the graph is empty, or when memory.pipelineV2.graphEnabled is off.
 */
import type { Store } from '../../../core/store/store';
import type { EngineContext } from '../context';
import { EngineError } from '../../errors';
import type { EntityMemory, EntityNode, GraphData, GraphParams, GraphView } from '../../protocol';
import { entityCount, entityWithMemories, queryEntityGraph } from './entityGraph';
import { queryMemoryGraph } from './memoryGraph';

const ENABLE_GRAPH =
  'turn on the pipeline and its Knowledge Graph setting to extract the entities your memories mention. Showing memories instead.';

export class GraphViewService {
  constructor(private readonly ctx: EngineContext) {}

  /** The memory view over both stores (centred on a memory when `centerId` is given). */
  memories(params: GraphParams = {}): GraphData {
    const parts = this.ctx.stores
      .all()
      .map((rt) =>
        params.centerId && !hasLiveMemory(rt.store, params.centerId)
          ? { nodes: [], edges: [], truncated: false }
          : queryMemoryGraph(rt.store, params),
      );
    if (params.centerId && parts.every((p) => p.nodes.length === 0))
      throw new EngineError('not_found', `No memory with id ${params.centerId}.`);
    return {
      nodes: parts.flatMap((p) => p.nodes),
      edges: parts.flatMap((p) => p.edges),
      truncated: parts.some((p) => p.truncated),
    };
  }

  /** graph.query (params checked by the handler). */
  view(params: GraphParams = {}): GraphView {
    const memoryView = (notice?: string): GraphData => ({ ...this.memories(params), mode: 'memories', ...(notice ? { notice } : {}) });
    if (params.mode === 'memories' || params.centerId) return memoryView();
    const store = this.ctx.stores.project;
    if (!this.ctx.config.memory.pipelineV2.graphEnabled) {
      return memoryView(`The knowledge graph is off: ${ENABLE_GRAPH}`);
    }
    if (entityCount(store) === 0) {
      return memoryView(`The knowledge graph is empty: ${ENABLE_GRAPH}`);
    }
    return queryEntityGraph(store, params);
  }

  /** graph.entityMemories: an entity of the knowledge graph and the memories mentioning it. */
  entityMemories(entityId: string, limit?: number): { entity: EntityNode; memories: EntityMemory[] } {
    const found = entityWithMemories(this.ctx.stores.project, entityId, limit);
    if (!found) throw new EngineError('not_found', `No entity with id ${entityId}.`);
    return found;
  }
}

function hasLiveMemory(store: Store, id: string): boolean {
  return !!store.get('SELECT 1 FROM memories WHERE id = ? AND deleted_at IS NULL', [id]);
}
