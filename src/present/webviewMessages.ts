/**
 * Typed messages between the extension and its webviews (search, graph). The webview bundles
 * (webview/*.ts) import these types only; nothing here may import `vscode`.
 */
import type { EntityMemory, EntityNode, GraphView, SearchHit, SearchLeg } from '../engine/protocol';

export interface SearchResultView {
  id: string;
  /** A title the memory was given (empty when the title only repeats the text's start). */
  title: string;
  content: string;
  type: string;
  scope: string;
  tags: string[];
  score: number;
  /** The relevance people see, 0…1 (docs/recall.md "Relevance"); absent for recent memories. */
  relevance?: number;
  /** Query words the memory contains, to highlight. */
  matchedTerms: string[];
  /** Raw cosine with the query, for the hover breakdown. */
  similarity?: number;
  legs: Partial<Record<SearchLeg, number>>;
  /** What the relevance is made of, for the hover breakdown (absent for recent memories). */
  evidence?: SearchHit['evidence'];
  createdAt: string;
  /** Which legs found it: hybrid (both), keyword or vector. */
  matchType?: string;
  importance?: number;
  /** The remaining lifetime in words ("expires in 3 days"); absent for a permanent memory. */
  lifetime?: string;
}

/** The search panel's filters (all optional; empty = no filter). */
export interface SearchFiltersView {
  types?: string[];
  scope?: 'project' | 'global';
  tags?: string[];
  /** ISO dates (YYYY-MM-DD) from the date inputs. */
  createdAfter?: string;
  createdBefore?: string;
}

/** Extension → search webview. */
export type ToSearchView =
  | { type: 'init'; memoryTypes: string[]; query?: string }
  | { type: 'results'; query: string; results: SearchResultView[]; legsUsed: SearchLeg[]; tookMs: number; recent?: boolean }
  | { type: 'error'; message: string };

/** Search webview → extension. */
export type FromSearchView =
  | { type: 'ready' }
  | { type: 'search'; query: string; memoryType?: string; filters?: SearchFiltersView }
  | { type: 'open'; id: string }
  | { type: 'copy'; id: string }
  | { type: 'edit'; id: string }
  | { type: 'delete'; id: string }
  | { type: 'promote'; id: string };

/** Extension → graph webview. */
export type ToGraphView =
  | { type: 'graph'; data: GraphView; centerId?: string }
  | { type: 'entityMemories'; entity: EntityNode; memories: EntityMemory[] }
  | { type: 'error'; message: string };

/** The graph panel's filters (entity view; `search` also filters the memory view, in the webview). */
export interface GraphFilters {
  mode: 'entities' | 'memories';
  entityTypes: string[];
  minMentions: number;
  search: string;
}

/** What the graph webview keeps with getState/setState, so a reloaded window restores the panel as it was. */
export interface GraphViewState extends GraphFilters {
  /** The memory the view is centred on (memory view), if any. */
  centerId?: string;
}

/** The graph panel's empty-state buttons. */
export type GraphEmptyAction = 'addMemory' | 'pipelineSettings';

/** Graph webview → extension. */
export type FromGraphView =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'open'; id: string }
  | { type: 'center'; id?: string }
  | { type: 'query'; filters: GraphFilters; centerId?: string }
  | { type: 'entity'; id: string }
  | { type: 'action'; action: GraphEmptyAction };

/** Runtime check of an incoming message's discriminator (a webview is untrusted input). */
export function isMessage<T extends { type: string }>(m: unknown, types: readonly T['type'][]): m is T {
  return (
    !!m && typeof m === 'object' && typeof (m as { type?: unknown }).type === 'string' && types.includes((m as { type: T['type'] }).type)
  );
}
