/**
 * The team server's schema (docs/team.md "On the server"): one PostgreSQL schema per project,
 * so projects are isolated by the database's own privileges, made by an ordinary role that may
 * create schemas in its database (no superuser). Versioned like the local store: each entry of
 * SERVER_MIGRATIONS is applied once, in order, in the transaction that records it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { ClientBase } from 'pg';
import { UserFacingError } from '../util/errors';

/** The schema of a project: `am_` and 20 hex digits of its normalized id's hash (a valid, quoted-free identifier). */
export function projectSchema(projectId: string): string {
  return `am_${createHash('sha256').update(projectId).digest('hex').slice(0, 20)}`;
}

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** `schema` checked to be a plain identifier (it is spliced into SQL). */
export function checkedSchema(schema: string): string {
  if (!IDENT.test(schema))
    throw new UserFacingError(
      `schema: the team schema name "${schema}" must be lower-case letters, digits and _ (at most 63).`,
      'invalid_input',
    );
  return schema;
}

/** The server schema's migrations; never edit an applied one, add the next. `S` stands for the schema. */
export const SERVER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE S.meta (key text PRIMARY KEY, value text NOT NULL);
   CREATE TABLE S.counter (id int PRIMARY KEY CHECK (id = 1), seq bigint NOT NULL);
   INSERT INTO S.counter VALUES (1, 0);
   CREATE TABLE S.changes (
     seq          bigint PRIMARY KEY,
     change_id    text NOT NULL UNIQUE,
     memory_id    text NOT NULL,
     base_seq     bigint NOT NULL,
     state_hash   text NOT NULL,
     content_hash text NOT NULL,
     deleted      boolean NOT NULL,
     memory       jsonb NOT NULL,
     author       text NOT NULL,
     machine      text NOT NULL,
     created_at   timestamptz NOT NULL DEFAULT now()
   );
   CREATE INDEX changes_memory ON S.changes (memory_id, seq);
   CREATE TABLE S.heads (
     memory_id    text PRIMARY KEY,
     seq          bigint NOT NULL,
     content_hash text NOT NULL,
     deleted      boolean NOT NULL
   );
   CREATE INDEX heads_live_hash ON S.heads (content_hash) WHERE NOT deleted;`,
];

export const SERVER_SCHEMA_VERSION = SERVER_MIGRATIONS.length;

/** What ensureServerSchema found or made. */
export interface ServerSchemaInfo {
  schema: string;
  /** Made once with the schema: a store that synced with another server id starts over. */
  serverId: string;
  version: number;
  created: boolean;
}

async function currentVersion(c: ClientBase, schema: string): Promise<number | undefined> {
  const has = await c.query('SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2', [
    schema,
    'schema_version',
  ]);
  if (!has.rowCount) return undefined;
  const r = await c.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.schema_version`);
  return Number(r.rows[0]?.v ?? 0);
}

/**
 * Creates the project's schema or brings it to this version (one transaction per step, under an
 * advisory lock so two machines connecting at once do not both create it). A schema newer than
 * this version of Agent Memory is refused with what to do.
 */
export async function ensureServerSchema(c: ClientBase, schema: string, projectId: string): Promise<ServerSchemaInfo> {
  checkedSchema(schema);
  await c.query('BEGIN');
  try {
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agent-memory:${schema}`]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await c.query(
      `CREATE TABLE IF NOT EXISTS ${schema}.schema_version (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = (await currentVersion(c, schema)) ?? 0;
    if (from > SERVER_SCHEMA_VERSION) {
      throw new UserFacingError(
        `The team server's memory schema is version ${from}, newer than this Agent Memory understands (${SERVER_SCHEMA_VERSION}). Update Agent Memory on this machine.`,
        'team_server_newer',
      );
    }
    for (let v = from + 1; v <= SERVER_SCHEMA_VERSION; v++) {
      await c.query(SERVER_MIGRATIONS[v - 1]!.replace(/\bS\./g, `${schema}.`));
      await c.query(`INSERT INTO ${schema}.schema_version (version) VALUES ($1)`, [v]);
    }
    if (from === 0) {
      await c.query(`INSERT INTO ${schema}.meta (key, value) VALUES ('server_id', $1), ('project_id', $2)`, [randomUUID(), projectId]);
    }
    const meta = await c.query<{ key: string; value: string }>(`SELECT key, value FROM ${schema}.meta`);
    const get = (k: string): string | undefined => meta.rows.find((r) => r.key === k)?.value;
    if (get('project_id') !== projectId) {
      throw new UserFacingError(
        `The team schema ${schema} holds the memory of another project (${get('project_id') ?? 'unknown'}). Choose another schema name.`,
        'team_wrong_project',
      );
    }
    await c.query('COMMIT');
    return { schema, serverId: get('server_id')!, version: SERVER_SCHEMA_VERSION, created: from === 0 };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}
