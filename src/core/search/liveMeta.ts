/**
 * id and created_at of the given memories that pass a filter, in one statement per 1,000 rids.
 * In sql.js a statement's per-row cost is mostly the JS side (binding one parameter per rid,
 * `getAsObject` per row), not SQLite: the rids go in as one JSON array (`json_each`) and the
 * answers come back as one row of concatenated lists, several times faster than an IN list of
 * bound parameters and a row per memory (figures: bench/RESULTS-design-notes.md).
 */
import type { Store } from '../store/store';
import type { WhereClause } from './filters';

export interface LiveMeta {
  id: string;
  createdAt: string;
}

const CHUNK = 1000;
/** Separator of the id and created_at lists: the ASCII record separator (lengths are checked). */
const SEP = '\x1e';

function sql(where: WhereClause): string {
  return (
    `SELECT group_concat(m.rid) AS rids, group_concat(m.id, char(30)) AS ids, group_concat(m.created_at, char(30)) AS created ` +
    `FROM memories m WHERE m.rid IN (SELECT value FROM json_each(?)) AND ${where.sql}`
  );
}

/** The rids among `rids` that pass `where`, with their id and created_at. */
export function liveMeta(store: Store, rids: readonly number[], where: WhereClause): Map<number, LiveMeta> {
  const out = new Map<number, LiveMeta>();
  for (let s = 0; s < rids.length; s += CHUNK) {
    const part = rids.slice(s, s + CHUNK);
    const got = store.get<{ rids: string | null; ids: string | null; created: string | null }>(sql(where), [
      JSON.stringify(part),
      ...where.params,
    ]);
    if (!got?.rids) continue; // none passes
    const live = got.rids.split(',');
    const ids = String(got.ids).split(SEP);
    const created = String(got.created).split(SEP);
    if (ids.length !== live.length || created.length !== live.length) {
      // An id or date containing the separator: read those rows one by one instead.
      for (const r of store.all(
        `SELECT m.rid AS rid, m.id AS id, m.created_at AS created_at FROM memories m WHERE m.rid IN (SELECT value FROM json_each(?)) AND ${where.sql}`,
        [JSON.stringify(part), ...where.params],
      )) {
        out.set(Number(r.rid), { id: String(r.id), createdAt: String(r.created_at) });
      }
      continue;
    }
    for (let i = 0; i < live.length; i++) out.set(Number(live[i]), { id: ids[i]!, createdAt: created[i]! });
  }
  return out;
}
