/**
 * Scan Memories for Secrets (docs/secrets.md "Scanning what is already stored"): finds the
 * credentials that versions without the secret guard stored, in every text of every table — the
 * memories (text, title, tags, metadata…), their history (old and new text, the full records),
 * jobs, documents, the graph — and, unless only reporting, redacts them in one transaction. A
 * memory whose text changed gets its hashes recomputed and loses its vector (the vector of the
 * old text is collected; the backfill embeds the redacted text); the full-text indexes are
 * rebuilt so no old segment keeps a token of a secret. What is left on disk (freed pages, the
 * op log, the previous snapshot, quarantine copies) is the store's secure compaction
 * (Store.compactSecurely), which the caller runs after this.
 */
import { collectEmbedding } from '../memory/embedding';
import { findSecrets, redactDeep, redactSecrets } from '../secrets/detect';
import type { SecretKind } from '../secrets/rules';
import type { SecretScanResult } from '../secrets/scanTypes';
import type { Row, Store, Tx } from '../store/store';
import { computeDocHash } from '../text/docHash';
import { normalizeAndHashContent } from '../text/normalize';

/** Tables never scanned: SQLite's own and the full-text indexes' (rebuilt from memories instead). */
const SKIP_TABLE = /^(?:sqlite_|memories_fts|memories_exact)/;

interface Found {
  table: string;
  rowid: number;
  column: string;
  value: string;
  kinds: SecretKind[];
  /** The secrets in it: their kind and a key that is the same wherever the same secret is stored. */
  secrets: { kind: SecretKind; key: string }[];
}

/** Scans (and with `redact`, redacts) one store; see the file comment. */
export function scanStoreForSecrets(store: Store, opts: { redact: boolean }): SecretScanResult {
  const found = findAll(store);
  const result: SecretScanResult = { kinds: {}, places: found.length, memoryIds: [], historyOf: [], redactedValues: 0, reembed: 0 };
  const seen = new Set<string>();
  for (const f of found) {
    for (const s of f.secrets) {
      if (seen.has(s.key)) continue;
      seen.add(s.key);
      result.kinds[s.kind] = (result.kinds[s.kind] ?? 0) + 1;
    }
    const id = memoryIdOf(store, f);
    if (id && f.table === 'memories' && !result.memoryIds.includes(id)) result.memoryIds.push(id);
    if (id && f.table === 'memory_history' && !result.historyOf.includes(id)) result.historyOf.push(id);
  }
  if (!opts.redact || !found.length) return result;
  store.transaction((tx) => {
    const memoryRows = new Set<number>();
    for (const f of found) {
      tx.run(`UPDATE "${f.table}" SET "${f.column}" = ? WHERE rowid = ?`, [f.value, f.rowid]);
      result.redactedValues++;
      if (f.table === 'memories') memoryRows.add(f.rowid);
    }
    for (const rid of memoryRows) if (rehash(tx, rid)) result.reembed++;
    tx.run(`INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')`);
    tx.run(`INSERT INTO memories_exact(memories_exact) VALUES ('rebuild')`);
  });
  return result;
}

function findAll(store: Store): Found[] {
  const tables = store
    .all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'`)
    .map((r) => String(r.name))
    .filter((t) => !SKIP_TABLE.test(t));
  const out: Found[] = [];
  for (const table of tables) {
    if (!hasRowid(store, table)) continue;
    for (const row of store.all(`SELECT rowid AS __rowid, * FROM "${table}"`)) out.push(...findInRow(table, row));
  }
  return out;
}

/** WITHOUT ROWID tables (embeddings) hold vectors and hashes, no text. */
function hasRowid(store: Store, table: string): boolean {
  const sql = store.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table])?.sql ?? '';
  return !/WITHOUT\s+ROWID/i.test(String(sql));
}

function findInRow(table: string, row: Row): Found[] {
  const out: Found[] = [];
  for (const [column, v] of Object.entries(row)) {
    if (column === '__rowid' || typeof v !== 'string' || v.length < 8) continue;
    const r = redactValue(v);
    if (r.kinds.length) out.push({ table, rowid: Number(row.__rowid), column, value: r.text, kinds: r.kinds, secrets: secretsIn(v) });
  }
  return out;
}

/** A JSON value (a record in the history, tags, metadata) is redacted inside and written back as JSON, so it stays valid. */
export function redactValue(text: string): { text: string; kinds: SecretKind[] } {
  if (/^\s*[[{]/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      const r = redactDeep(parsed);
      return r.kinds.length ? { text: JSON.stringify(r.value), kinds: r.kinds } : { text, kinds: [] };
    }
  }
  return redactSecrets(text);
}

/**
 * The secrets of a stored text (inside a JSON one, of its strings), each with a key that is the
 * same for the same secret in a lower-cased, space-collapsed copy (normalized_content) or a JSON
 * record: lower case, without white space. Kept in memory only, never reported.
 */
function secretsIn(text: string): { kind: SecretKind; key: string }[] {
  const strings: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) [k, x].forEach(collect);
  };
  try {
    collect(/^\s*[[{]/.test(text) ? JSON.parse(text) : text);
  } catch {
    collect(text);
  }
  return strings.flatMap((s) =>
    findSecrets(s).map((f) => ({ kind: f.kind, key: s.slice(f.start, f.end).toLowerCase().replace(/\s+/g, '') })),
  );
}

function memoryIdOf(store: Store, f: Found): string | undefined {
  if (f.table === 'memories') return store.get<{ id: string }>('SELECT id FROM memories WHERE rid = ?', [f.rowid])?.id;
  if (f.table === 'memory_history')
    return (
      store.get<{ memory_id: string | null }>('SELECT memory_id FROM memory_history WHERE rowid = ?', [f.rowid])?.memory_id ?? undefined
    );
  return undefined;
}

/**
 * A redacted memory's hashes made from its new text; its vector (of the old text) dropped so
 * the backfill embeds the new one. Returns whether it now waits for a vector. A content hash
 * another live memory already has (two texts equal once redacted) keeps the old one.
 */
function rehash(tx: Tx, rid: number): boolean {
  const m = tx.get<Record<string, string | null>>(
    'SELECT title, content, decisions_json, rationale_json, project_id, deleted_at, embedding_hash FROM memories WHERE rid = ?',
    [rid],
  );
  if (!m) return false;
  const n = normalizeAndHashContent(String(m.content));
  const docHash = computeDocHash({
    topic: String(m.title),
    context: String(m.content),
    decisions: parseArray(m.decisions_json),
    rationale: parseArray(m.rationale_json),
  });
  const clash = tx.get('SELECT 1 AS x FROM memories WHERE project_id = ? AND content_hash = ? AND deleted_at IS NULL AND rid <> ?', [
    m.project_id,
    n.contentHash,
    rid,
  ]);
  tx.run(
    `UPDATE memories SET normalized_content = ?, doc_hash = ?${clash && m.deleted_at === null ? '' : ', content_hash = ?'},
       embedding_status = CASE WHEN embedding_status = 'none' THEN 'none' ELSE 'pending' END, embedding_hash = NULL WHERE rid = ?`,
    clash && m.deleted_at === null ? [n.normalizedContent, docHash, rid] : [n.normalizedContent, docHash, n.contentHash, rid],
  );
  collectEmbedding(tx, m.embedding_hash);
  return m.embedding_hash !== null;
}

function parseArray(json: string | null): unknown[] {
  try {
    const v: unknown = JSON.parse(json ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}
