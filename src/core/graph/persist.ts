/**
 * Writing extracted triples to the graph (docs/pipeline.md "Knowledge graph").
 * Runs in its own transaction AFTER the fact writes; the caller treats a failure as a
 * warning. Re-processing a memory first removes its old provenance, so the
 * result is idempotent: mentions count memories, relation confidence is the running average
 * over the memories that asserted it.
 */
import { randomUUID } from 'node:crypto';
import type { Tx } from '../store/store';
import { canonicalEntityName, canonicalRelationType } from './canonical';
import { removeMemoryGraph } from './gc';

export interface Triple {
  source: string;
  relationship: string;
  target: string;
  confidence: number;
  /** Entity types as extracted; absent or 'unknown' leaves the stored type as it is. */
  sourceType?: string;
  targetType?: string;
}

export interface GraphWriteStats {
  entitiesCreated: number;
  relationsCreated: number;
  mentionsLinked: number;
  relationLinks: number;
  removed: { entities: number; relations: number };
}

/** One memory's graph write: the transaction, the memory, the time stamp and the counts so far. */
interface GraphWrite {
  tx: Tx;
  memoryId: string;
  now: string;
  stats: GraphWriteStats;
}

/** Get or create an entity by canonical name; links it to the memory (mentions + 1 when new). */
function linkEntity(w: GraphWrite, name: string, type: string | undefined, confidence: number): string {
  const { tx, memoryId, now, stats } = w;
  const canonical = canonicalEntityName(name);
  const known = type && type !== 'unknown' ? type : undefined;
  let row = tx.get<{ id: string }>('SELECT id FROM entities WHERE canonical_name = ?', [canonical]);
  if (!row) {
    const id = randomUUID();
    // OR IGNORE: a UNIQUE collision on `name` falls back to the existing row below.
    tx.run(
      `INSERT OR IGNORE INTO entities (id, name, canonical_name, entity_type, mentions, created_at, updated_at) VALUES (?, ?, ?, ?, 0, ?, ?)`,
      [id, name.trim().replace(/\s+/g, ' '), canonical, known ?? 'unknown', now, now],
    );
    if (tx.changes() > 0) stats.entitiesCreated++;
    row = tx.get<{ id: string }>('SELECT id FROM entities WHERE canonical_name = ? OR name = ?', [
      canonical,
      name.trim().replace(/\s+/g, ' '),
    ])!;
  }
  // The first known type sticks: a later extraction only fills in a type that was unknown.
  if (known) tx.run(`UPDATE entities SET entity_type = ?, updated_at = ? WHERE id = ? AND entity_type = 'unknown'`, [known, now, row.id]);
  tx.run(
    `INSERT OR IGNORE INTO memory_entity_mentions (memory_id, entity_id, mention_text, confidence, created_at) VALUES (?, ?, ?, ?, ?)`,
    [memoryId, row.id, name, confidence, now],
  );
  if (tx.changes() > 0) {
    stats.mentionsLinked++;
    tx.run('UPDATE entities SET mentions = mentions + 1, updated_at = ? WHERE id = ?', [now, row.id]);
  }
  return row.id;
}

/** Replace the graph provenance of `memoryId` with `triples`. Call inside a transaction. */
export function writeMemoryGraph(tx: Tx, memoryId: string, triples: Triple[], now: string): GraphWriteStats {
  const stats: GraphWriteStats = {
    entitiesCreated: 0,
    relationsCreated: 0,
    mentionsLinked: 0,
    relationLinks: 0,
    removed: { entities: 0, relations: 0 },
  };
  // Re-processing: drop the provenance this memory no longer asserts; keep the rest as is.
  const keep = {
    entities: new Set(triples.flatMap((t) => [canonicalEntityName(t.source), canonicalEntityName(t.target)])),
    relations: new Set(
      triples.map((t) => `${canonicalEntityName(t.source)}|${canonicalRelationType(t.relationship)}|${canonicalEntityName(t.target)}`),
    ),
  };
  stats.removed = removeMemoryGraph(tx, memoryId, now, keep);
  const w: GraphWrite = { tx, memoryId, now, stats };
  for (const t of triples) {
    const src = linkEntity(w, t.source, t.sourceType, t.confidence);
    const dst = linkEntity(w, t.target, t.targetType, t.confidence);
    const type = canonicalRelationType(t.relationship);
    let rel = tx.get<{ id: string }>('SELECT id FROM relations WHERE source_entity_id = ? AND target_entity_id = ? AND relation_type = ?', [
      src,
      dst,
      type,
    ]);
    if (!rel) {
      rel = { id: randomUUID() };
      tx.run(
        `INSERT INTO relations (id, source_entity_id, target_entity_id, relation_type, strength, mentions, confidence, created_at, updated_at)
         VALUES (?, ?, ?, ?, 1.0, 0, 0, ?, ?)`,
        [rel.id, src, dst, type, now, now],
      );
      stats.relationsCreated++;
    }
    tx.run(`INSERT OR IGNORE INTO memory_relation_provenance (memory_id, relation_id, confidence, created_at) VALUES (?, ?, ?, ?)`, [
      memoryId,
      rel.id,
      t.confidence,
      now,
    ]);
    if (tx.changes() > 0) {
      stats.relationLinks++;
      // Running average: (old_avg × n + new) / (n + 1).
      tx.run(
        `UPDATE relations SET confidence = (confidence * mentions + ?) / (mentions + 1), mentions = mentions + 1, updated_at = ? WHERE id = ?`,
        [t.confidence, now, rel.id],
      );
    }
  }
  return stats;
}
