// @tier process
// Signing in to the team server with a client certificate (docs/team.md "Connecting"), against a
// real PostgreSQL 15 that accepts the role only over TLS with its certificate (pg_hba `cert`, no
// password): the CLI connects with --cert / --cert-key and the authority, the store is uploaded,
// agent.yaml names the certificate file but never holds the key, and a later sync signs in with
// the key kept (here the 0600 secrets file: no keychain answers under the test runner). Without
// the key, or without TLS, the settings are refused with a sentence that says what to do.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import pg from 'pg';
import type { TeamOverview, TeamSyncReport } from '../../../src/engine/teamProtocol';
import { clientConfig, type TeamSettings } from '../../../src/core/team/connection';
import { ensureServerSchema } from '../../../src/core/team/serverSchema';
import { tmpDir } from '../../helpers/tmp';
import { fakeClone } from '../../helpers/clones';
import { runCli, type CliRun } from '../../helpers/cliProcess';
import { startPgCluster, type PgCluster, pgSkip } from '../../helpers/pgCluster';

const skip = pgSkip();
let cluster: PgCluster;

before(async () => {
  if (!skip) cluster = await startPgCluster({ clientCerts: true });
});
after(() => cluster?.destroy());

function json<T>(r: CliRun): T {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout) as T;
}

const settings = (over: Partial<TeamSettings> = {}): TeamSettings => ({
  host: '127.0.0.1',
  port: cluster.port,
  database: cluster.database,
  user: cluster.user,
  schema: 'am_cert_direct',
  tls: 'verify-full',
  caFile: cluster.tls!.ca,
  certFile: cluster.tls!.clientCert,
  author: 'ana',
  syncIntervalMs: 30_000,
  ...over,
});

test(
  'the role signs in with its client certificate and no password; the key is required and never sent in the clear',
  { skip, timeout: 60_000 },
  async () => {
    const key = fs.readFileSync(cluster.tls!.clientKey, 'utf8');
    const client = new pg.Client(clientConfig(settings(), undefined, key));
    await client.connect();
    try {
      const info = await ensureServerSchema(client, 'am_cert_direct', 'github.com/acme/cert');
      assert.ok(info.serverId);
      const who = await client.query<{ u: string; ssl: boolean }>(
        'SELECT current_user AS u, ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()',
      );
      assert.deepEqual(who.rows[0], { u: cluster.user, ssl: true });
    } finally {
      await client.end();
    }
    // The server accepts nothing else for this role: a password over TLS without a certificate is refused.
    const bare = new pg.Client(clientConfig(settings({ certFile: '' }), cluster.password));
    bare.on('error', () => undefined);
    await assert.rejects(bare.connect(), /certificate|authentication|no pg_hba/i);
    await bare.end().catch(() => undefined);

    assert.throws(
      () => clientConfig(settings(), undefined, undefined),
      /private key of the client certificate is not in the keychain; connect again/,
    );
    assert.throws(() => clientConfig(settings({ tls: 'disable' }), undefined, key), /needs team\.tls: verify-full/);
  },
);

test(
  'agent-memory team connect --cert --cert-key: uploaded, the key kept out of agent.yaml, later syncs sign in with it',
  { skip, timeout: 180_000 },
  async () => {
    const root = tmpDir('am-team-cert-');
    const ws = fakeClone(root, 'repo');
    fs.writeFileSync(path.join(ws, 'agent.yaml'), 'embedding:\n  provider: hash\n');
    const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
    const cli = (args: string[]) => runCli([...args, '--workspace', ws, '--json'], env);
    json(await cli(['add', 'Release tags are signed with the team GPG key.']));
    const connected = json<{ status: TeamOverview; report: TeamSyncReport; settingsFile: string }>(
      await cli([
        'team',
        'connect',
        '--server',
        `127.0.0.1:${cluster.port}`,
        '--user',
        cluster.user,
        '--database',
        cluster.database,
        '--ca-file',
        cluster.tls!.ca,
        '--cert',
        cluster.tls!.clientCert,
        '--cert-key',
        cluster.tls!.clientKey,
        '--author',
        'ana',
      ]),
    );
    assert.equal(connected.status.connected && connected.status.state, 'synced');
    const yaml = fs.readFileSync(connected.settingsFile, 'utf8');
    assert.match(yaml, new RegExp(`certFile: ${cluster.tls!.clientCert.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.ok(!yaml.includes('PRIVATE KEY'), 'the key is not in agent.yaml');

    // A later process signs in with the key kept, and the server has the memory.
    json(await cli(['add', 'Integration tests need the docker daemon running locally.']));
    const synced = json<{ status: TeamOverview }>(await cli(['team', 'sync']));
    assert.ok(synced.status.connected && synced.status.waiting === 0 && synced.status.state === 'synced', JSON.stringify(synced.status));
    const schema = connected.status.connected ? connected.status.schema : '';
    const client = new pg.Client(clientConfig(settings({ schema }), undefined, fs.readFileSync(cluster.tls!.clientKey, 'utf8')));
    await client.connect();
    try {
      const heads = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.heads`);
      assert.equal(heads.rows[0]!.n, 2, 'both memories are on the server');
    } finally {
      await client.end();
    }
  },
);
