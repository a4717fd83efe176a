/**
 * The tree's "group by tag" queries over one store: live memories per tag (plus how many have
 * no tag), and the untagged memories page by page (memory.list can only require tags).
 * "Live" is what memory.list shows: not deleted.
 */
import type { Store } from '../../../core/store/store';
import { rowToSummary } from '../../../core/memory/rows';
import type { ListResult } from '../../../core/memory/types';

export interface TagCounts {
  tags: Record<string, number>;
  untagged: number;
}

export function tagCounts(store: Store, projectId: string): TagCounts {
  const tags: Record<string, number> = {};
  for (const r of store.all(
    `SELECT t.tag AS tag, count(*) AS n FROM memory_tags t JOIN memories m ON m.rid = t.rid
     WHERE m.project_id = ? AND m.deleted_at IS NULL GROUP BY t.tag`,
    [projectId],
  ))
    tags[String(r.tag)] = Number(r.n);
  const untagged = Number(
    store.get<{ n: number }>(
      `SELECT count(*) AS n FROM memories m WHERE m.project_id = ? AND m.deleted_at IS NULL
     AND NOT EXISTS (SELECT 1 FROM memory_tags t WHERE t.rid = m.rid)`,
      [projectId],
    )!.n,
  );
  return { tags, untagged };
}

/** Untagged live memories, newest first (the order of memory.list). */
export function listUntagged(store: Store, projectId: string, offset: number, limit: number): ListResult {
  const where = `m.project_id = ? AND m.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM memory_tags t WHERE t.rid = m.rid)`;
  const total = Number(store.get<{ n: number }>(`SELECT count(*) AS n FROM memories m WHERE ${where}`, [projectId])!.n);
  const rows = store.all(`SELECT m.* FROM memories m WHERE ${where} ORDER BY m.created_at DESC, m.rid DESC LIMIT ? OFFSET ?`, [
    projectId,
    limit,
    offset,
  ]);
  return { items: rows.map(rowToSummary), total, offset, limit };
}
