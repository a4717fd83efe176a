/** Read functions for a graph view: entities, neighbours, memories of an entity. */
import type { GraphReader } from './boost';

export interface EntityView {
  id: string;
  name: string;
  canonicalName: string;
  entityType: string;
  mentions: number;
}

export interface NeighbourView {
  entity: EntityView;
  relationId: string;
  relationType: string;
  direction: 'out' | 'in';
  mentions: number;
  confidence: number;
}

function entity(r: Record<string, unknown>): EntityView {
  return {
    id: String(r.id),
    name: String(r.name),
    canonicalName: String(r.canonical_name),
    entityType: String(r.entity_type),
    mentions: Number(r.mentions),
  };
}

/** Top entities by mentions; `search` filters by a substring of the canonical name. */
export function listEntities(db: GraphReader, opts: { limit?: number; search?: string } = {}): EntityView[] {
  const limit = Math.max(1, Math.min(opts.limit ?? 50, 1000));
  const q = (opts.search ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
  const rows = q
    ? db.all(`SELECT * FROM entities WHERE canonical_name LIKE ? ESCAPE '\\' ORDER BY mentions DESC, name LIMIT ?`, [
        `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
        limit,
      ])
    : db.all('SELECT * FROM entities ORDER BY mentions DESC, name LIMIT ?', [limit]);
  return rows.map(entity);
}

export function getEntity(db: GraphReader, id: string): EntityView | undefined {
  const r = db.all('SELECT * FROM entities WHERE id = ?', [id])[0];
  return r ? entity(r) : undefined;
}

/** Entities one relation away, in both directions, strongest first. */
export function entityNeighbours(db: GraphReader, entityId: string, limit = 50): NeighbourView[] {
  const rows = db.all(
    `SELECT e.*, r.id AS rid, r.relation_type, r.mentions AS rmentions, r.confidence AS rconf, 'out' AS dir
       FROM relations r JOIN entities e ON e.id = r.target_entity_id WHERE r.source_entity_id = ?
     UNION ALL
     SELECT e.*, r.id AS rid, r.relation_type, r.mentions AS rmentions, r.confidence AS rconf, 'in' AS dir
       FROM relations r JOIN entities e ON e.id = r.source_entity_id WHERE r.target_entity_id = ?
     ORDER BY rmentions DESC, rconf DESC LIMIT ?`,
    [entityId, entityId, Math.max(1, Math.min(limit, 500))],
  );
  return rows.map((r) => ({
    entity: entity(r),
    relationId: String(r.rid),
    relationType: String(r.relation_type),
    direction: r.dir === 'in' ? 'in' : 'out',
    mentions: Number(r.rmentions),
    confidence: Number(r.rconf),
  }));
}

/** Live memories that mention the entity, newest first. */
export function entityMemories(
  db: GraphReader,
  entityId: string,
  limit = 50,
): { id: string; content: string; type: string; mentionText: string }[] {
  return db
    .all(
      `SELECT m.id, m.content, m.type, mm.mention_text FROM memory_entity_mentions mm JOIN memories m ON m.id = mm.memory_id
       WHERE mm.entity_id = ? AND m.deleted_at IS NULL ORDER BY m.created_at DESC LIMIT ?`,
      [entityId, Math.max(1, Math.min(limit, 500))],
    )
    .map((r) => ({ id: String(r.id), content: String(r.content), type: String(r.type), mentionText: String(r.mention_text) }));
}
