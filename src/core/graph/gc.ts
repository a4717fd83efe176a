/**
 * Provenance-aware garbage collection (docs/pipeline.md "Knowledge graph"): when a memory is deleted or
 * its content changes, its mention and relation provenance goes; entities and relations
 * that no memory supports any more go with it. Shared artifacts survive. Only artifacts
 * that HAD provenance are candidates, so rows without any (legacy, manual) are never touched.
 */
import type { Store, Tx } from '../store/store';

/** What a re-processed memory still asserts: its provenance for these is kept untouched. */
export interface KeepSet {
  /** Canonical entity names. */
  entities: ReadonlySet<string>;
  /** `source canonical|relation type|target canonical`. */
  relations: ReadonlySet<string>;
}

/**
 * Remove `memoryId`'s graph provenance (except what `keep` lists) and collect the orphans.
 * Returns the numbers of entities and relations deleted.
 */
export function removeMemoryGraph(tx: Tx, memoryId: string, now: string, keep?: KeepSet): { entities: number; relations: number } {
  let relations = 0;
  let entities = 0;
  const rels = tx.all<{ relation_id: string; confidence: number; k: string }>(
    `SELECT p.relation_id, p.confidence, s.canonical_name || '|' || r.relation_type || '|' || d.canonical_name AS k
     FROM memory_relation_provenance p JOIN relations r ON r.id = p.relation_id
     JOIN entities s ON s.id = r.source_entity_id JOIN entities d ON d.id = r.target_entity_id
     WHERE p.memory_id = ?`,
    [memoryId],
  );
  for (const r of rels) {
    if (keep?.relations.has(r.k)) continue;
    tx.run('DELETE FROM memory_relation_provenance WHERE memory_id = ? AND relation_id = ?', [memoryId, r.relation_id]);
    // Inverse of the running average: (avg × n − c) / (n − 1).
    tx.run(
      `UPDATE relations SET confidence = CASE WHEN mentions > 1 THEN (confidence * mentions - ?) / (mentions - 1) ELSE 0 END,
         mentions = max(mentions - 1, 0), updated_at = ? WHERE id = ?`,
      [Number(r.confidence), now, r.relation_id],
    );
    const left = tx.get('SELECT 1 AS x FROM memory_relation_provenance WHERE relation_id = ? LIMIT 1', [r.relation_id]);
    if (!left) {
      tx.run('DELETE FROM relations WHERE id = ?', [r.relation_id]);
      relations += tx.changes();
    }
  }
  const ments = tx.all<{ entity_id: string; canonical_name: string }>(
    `SELECT mm.entity_id, e.canonical_name FROM memory_entity_mentions mm JOIN entities e ON e.id = mm.entity_id WHERE mm.memory_id = ?`,
    [memoryId],
  );
  for (const m of ments) {
    if (keep?.entities.has(m.canonical_name)) continue;
    tx.run('DELETE FROM memory_entity_mentions WHERE memory_id = ? AND entity_id = ?', [memoryId, m.entity_id]);
    tx.run('UPDATE entities SET mentions = max(mentions - 1, 0), updated_at = ? WHERE id = ?', [now, m.entity_id]);
    const left = tx.get('SELECT 1 AS x FROM memory_entity_mentions WHERE entity_id = ? LIMIT 1', [m.entity_id]);
    if (!left) {
      // Relations touching it cascade (FK), their provenance with them.
      const dangling = Number(
        tx.get<{ n: number }>('SELECT count(*) AS n FROM relations WHERE source_entity_id = ? OR target_entity_id = ?', [
          m.entity_id,
          m.entity_id,
        ])!.n,
      );
      tx.run('DELETE FROM entities WHERE id = ?', [m.entity_id]);
      if (tx.changes()) {
        entities++;
        relations += dangling;
      }
    }
  }
  return { entities, relations };
}

/**
 * GC for memories that were soft-deleted since their graph was written (deleted through the
 * memory API, which knows nothing of the graph). Batch-limited; each call is one transaction.
 */
export function collectDeletedMemoryGraphs(
  store: Store,
  now: Date,
  limit = 500,
): { memories: number; entities: number; relations: number } {
  const iso = now.toISOString();
  return store.transaction((tx) => {
    const ids = tx.all<{ memory_id: string }>(
      `SELECT DISTINCT mm.memory_id FROM memory_entity_mentions mm JOIN memories m ON m.id = mm.memory_id
       WHERE m.deleted_at IS NOT NULL LIMIT ?`,
      [limit],
    );
    const out = { memories: 0, entities: 0, relations: 0 };
    for (const { memory_id } of ids) {
      const r = removeMemoryGraph(tx, memory_id, iso);
      out.memories++;
      out.entities += r.entities;
      out.relations += r.relations;
    }
    return out;
  });
}
