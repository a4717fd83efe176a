/**
 * The knowledge graph (src/core/graph: entities, relations, mentions) as the graph panel draws
 * it: the most mentioned entities that pass the panel's filters, and the relations between
 * them. Reads only; the per-entity reads come from src/core/graph/read.ts.
 */
import type { GraphReader } from '../../../core/graph/boost';
import { entityMemories as coreEntityMemories, getEntity } from '../../../core/graph/read';
import { LIMIT_RANGES } from '../../../core/memory/limits';
import { truncateFlat } from '../../../core/text/truncate';
import type { EntityEdge, EntityGraphData, EntityMemory, EntityNode, GraphParams } from '../../protocol';

/** Relations scanned per query: far above what a panel of 5,000 nodes has, a guard against a runaway store. */
const MAX_RELATIONS_SCANNED = 200_000;

export function entityCount(db: GraphReader): number {
  return Number(db.all<{ n: number }>('SELECT COUNT(*) AS n FROM entities')[0]?.n ?? 0);
}

/** Entities passing the filters (most mentioned first, up to `limit`, checked by the handler) and the relations among them. */
export function queryEntityGraph(db: GraphReader, params: GraphParams): EntityGraphData {
  const limit = params.limit ?? LIMIT_RANGES.entityGraph.default;
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (params.minMentions !== undefined && params.minMentions > 0) {
    where.push('mentions >= ?');
    args.push(params.minMentions);
  }
  const types = (params.entityTypes ?? []).filter((t) => typeof t === 'string');
  if (types.length) {
    where.push(`entity_type IN (${types.map(() => '?').join(', ')})`);
    args.push(...types);
  }
  // Same normalisation as the canonical names (lower case, single spaces); LIKE wildcards escaped.
  const q = (params.search ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  if (q) {
    where.push(`canonical_name LIKE ? ESCAPE '\\'`);
    args.push(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  const rows = db.all(
    `SELECT id, name, entity_type, mentions FROM entities ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY mentions DESC, name LIMIT ?`,
    [...args, limit + 1],
  );
  const nodes: EntityNode[] = rows.slice(0, limit).map((r) => ({
    id: String(r.id),
    name: String(r.name),
    type: String(r.entity_type),
    mentions: Number(r.mentions),
  }));
  const ids = new Set(nodes.map((n) => n.id));
  // One scan with a set filter instead of `IN (5,000 ids)` twice: fewer bound variables, same result.
  const edges: EntityEdge[] = [];
  for (const r of db.all(
    'SELECT id, source_entity_id, target_entity_id, relation_type, confidence, mentions FROM relations ORDER BY mentions DESC LIMIT ?',
    [MAX_RELATIONS_SCANNED],
  )) {
    const from = String(r.source_entity_id),
      to = String(r.target_entity_id);
    if (!ids.has(from) || !ids.has(to)) continue;
    edges.push({
      id: String(r.id),
      from,
      to,
      type: String(r.relation_type),
      confidence: Number(r.confidence),
      mentions: Number(r.mentions),
    });
  }
  const typeRows = db.all('SELECT entity_type AS t, COUNT(*) AS n FROM entities GROUP BY entity_type ORDER BY n DESC, t');
  return {
    mode: 'entities',
    nodes,
    edges,
    truncated: rows.length > limit,
    types: typeRows.map((r) => ({ type: String(r.t), count: Number(r.n) })),
    totalEntities: typeRows.reduce((s, r) => s + Number(r.n), 0),
  };
}

/** The entity and the live memories mentioning it (newest first), or undefined for an unknown id. */
export function entityWithMemories(
  db: GraphReader,
  entityId: string,
  limit: number = LIMIT_RANGES.entityMemories.default,
): { entity: EntityNode; memories: EntityMemory[] } | undefined {
  const e = getEntity(db, entityId);
  if (!e) return undefined;
  const found = coreEntityMemories(db, entityId, limit);
  const titles = new Map<string, string>();
  if (found.length) {
    for (const r of db.all(
      `SELECT id, title FROM memories WHERE id IN (${found.map(() => '?').join(', ')})`,
      found.map((m) => m.id),
    )) {
      titles.set(String(r.id), typeof r.title === 'string' ? r.title : '');
    }
  }
  return {
    entity: { id: e.id, name: e.name, type: e.entityType, mentions: e.mentions },
    memories: found.map((m) => ({
      id: m.id,
      title: titles.get(m.id) ?? '',
      preview: truncateFlat(m.content, 240),
      type: m.type,
      mentionText: m.mentionText,
    })),
  };
}
