/** Knowledge graph: persistence with provenance, GC, graph-boost lookup, read views. */
export { canonicalEntityName, canonicalRelationType } from './canonical';
export { writeMemoryGraph, type GraphWriteStats, type Triple } from './persist';
export { collectDeletedMemoryGraphs, removeMemoryGraph, type KeepSet } from './gc';
export {
  GRAPH_BOOST_LIMITS,
  createGraphBoostProvider,
  getGraphBoostIds,
  graphQueryTokens,
  type GraphBoostResult,
  type GraphReader,
} from './boost';
export { entityMemories, entityNeighbours, getEntity, listEntities, type EntityView, type NeighbourView } from './read';
