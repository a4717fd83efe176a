/**
 * A throw-away PostgreSQL 15 cluster for the team-memory tests (docs/team.md): `initdb` into a
 * temp folder, started with `pg_ctl` on a free port of 127.0.0.1 and a private socket folder,
 * stopped (and removed) at the end. The suite runs as root on CI, and PostgreSQL refuses to run
 * as root, so the cluster's files belong to `nobody` and its programs run as that user
 * (`setpriv`). Host connections need a password (scram-sha-256); the tests connect as an
 * ordinary role that owns one database — no superuser, as for a real team.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

/** Debian's layout (/usr/lib/postgresql/<major>/bin), newest first; 15 is the oldest the team schema is tested on. */
function binDirs(): string[] {
  const root = '/usr/lib/postgresql';
  let majors: number[] = [];
  try {
    majors = fs
      .readdirSync(root)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n >= 15)
      .sort((a, b) => b - a);
  } catch {
    /* no PostgreSQL installed */
  }
  const dirs = majors.map((m) => path.join(root, String(m), 'bin'));
  // AGENT_MEMORY_PG_BIN: PostgreSQL's programs elsewhere (another distribution, a build of its own).
  return process.env.AGENT_MEMORY_PG_BIN ? [process.env.AGENT_MEMORY_PG_BIN, ...dirs] : dirs;
}

export interface PgCluster {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  /** The cluster's folder (data, socket, log). */
  dir: string;
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Runs SQL as the cluster's superuser (test set-up only). */
  admin(sql: string): string;
  /** Stops the cluster and removes its folder. */
  destroy(): void;
  /** With `clientCerts`: the authority, and the client certificate and key of the role (PEM files). */
  tls?: { ca: string; clientCert: string; clientKey: string };
}

/** The folder of PostgreSQL's programs, or undefined (the tests skip, saying why). */
export function pgBinDir(): string | undefined {
  return binDirs().find((d) => fs.existsSync(path.join(d, 'initdb')) && fs.existsSync(path.join(d, 'pg_ctl')));
}

export const NO_PG_REASON =
  'no PostgreSQL server programs (initdb, pg_ctl) in /usr/lib/postgresql/<15 or later>/bin or AGENT_MEMORY_PG_BIN (install postgresql-15)';

/**
 * The `skip` of a team test: false where PostgreSQL's programs are, else the reason. CI (.ci/run)
 * sets AGENT_MEMORY_REQUIRE_PG=1 where it found them: a test that would skip there fails instead,
 * so a lookup that goes wrong cannot pass CI silently.
 */
export function pgSkip(): false | string {
  if (pgBinDir()) return false;
  if (process.env.AGENT_MEMORY_REQUIRE_PG === '1') throw new Error(`AGENT_MEMORY_REQUIRE_PG=1 but ${NO_PG_REASON}`);
  return NO_PG_REASON;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

function asOwner(bin: string, args: string[], asRoot: boolean): string[] {
  return asRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', bin, ...args] : [bin, ...args];
}

function run(cmd: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', env, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/**
 * A certificate authority, a server certificate for 127.0.0.1 and a client certificate for the
 * role `am_team`, made with openssl into `dir` (throw-away, valid two days).
 */
function makeCertificates(dir: string): { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string } {
  fs.mkdirSync(dir);
  const f = (n: string) => path.join(dir, n);
  const ssl = (args: string[]) => run(['openssl', ...args]);
  ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=agent-memory test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
  ]);
  fs.writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1\n');
  for (const [name, cn, ext] of [
    ['server', '127.0.0.1', f('server.ext')],
    ['client', 'am_team', undefined],
  ] as const) {
    ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`)]);
    ssl([
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.crt'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-out',
      f(`${name}.crt`),
      ...(ext ? ['-extfile', ext] : []),
    ]);
  }
  fs.chmodSync(f('server.key'), 0o600);
  return {
    ca: f('ca.crt'),
    serverCert: f('server.crt'),
    serverKey: f('server.key'),
    clientCert: f('client.crt'),
    clientKey: f('client.key'),
  };
}

/**
 * Makes, starts and returns a cluster; the caller destroys it (`after(() => pg.destroy())`).
 * `clientCerts`: TLS on, and the role signs in to its database over TLS with its client
 * certificate only (pg_hba `cert`): no password is accepted there.
 */
export async function startPgCluster(opts: { clientCerts?: boolean } = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error(NO_PG_REASON);
  const asRoot = process.getuid?.() === 0;
  // As root the cluster runs as nobody, who must reach its folder: /tmp, not a TMPDIR under /root.
  const dir = fs.mkdtempSync(path.join(asRoot ? '/tmp' : os.tmpdir(), 'am-pg-'));
  const data = path.join(dir, 'data');
  const sock = path.join(dir, 'sock');
  fs.mkdirSync(sock);
  const superPw = 'super-' + Math.random().toString(36).slice(2);
  fs.writeFileSync(path.join(dir, 'pw'), superPw);
  if (asRoot) execFileSync('chown', ['-R', 'nobody:nogroup', dir]);
  fs.chmodSync(dir, 0o700);
  run(
    asOwner(
      path.join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--pwfile', path.join(dir, 'pw'), '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8'],
      asRoot,
    ),
  );
  const certs = opts.clientCerts ? makeCertificates(path.join(dir, 'tls')) : undefined;
  let tlsOptions = '';
  if (certs) {
    const hba = path.join(data, 'pg_hba.conf');
    fs.writeFileSync(
      hba,
      `hostssl team_memory am_team 127.0.0.1/32 cert\nhost team_memory am_team 127.0.0.1/32 reject\n${fs.readFileSync(hba, 'utf8')}`,
    );
    tlsOptions = ` -c ssl=on -c ssl_cert_file=${certs.serverCert} -c ssl_key_file=${certs.serverKey} -c ssl_ca_file=${certs.ca}`;
    if (asRoot) execFileSync('chown', ['-R', 'nobody:nogroup', dir]);
  }
  const port = await freePort();
  const pgCtl = (args: string[]): string => run(asOwner(path.join(bin, 'pg_ctl'), args, asRoot));
  const start = (): void => {
    pgCtl([
      '-D',
      data,
      '-l',
      path.join(dir, 'log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${sock} -c listen_addresses=127.0.0.1 -c fsync=off${tlsOptions}`,
      'start',
    ]);
  };
  const stop = (mode: 'fast' | 'immediate' = 'fast'): void => {
    pgCtl(['-D', data, '-m', mode, '-w', 'stop']);
  };
  const admin = (sql: string): string =>
    run(
      asOwner(
        '/usr/bin/psql',
        ['-h', sock, '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-Atc', sql],
        asRoot,
      ),
    );
  start();
  const password = 'team-' + Math.random().toString(36).slice(2);
  admin(`CREATE ROLE am_team LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
  admin('CREATE DATABASE team_memory OWNER am_team');
  let stopped = false;
  return {
    host: '127.0.0.1',
    port,
    database: 'team_memory',
    user: 'am_team',
    password,
    dir,
    start: () => {
      start();
      stopped = false;
    },
    stop: (mode) => {
      stop(mode);
      stopped = true;
    },
    admin,
    ...(certs ? { tls: { ca: certs.ca, clientCert: certs.clientCert, clientKey: certs.clientKey } } : {}),
    destroy: () => {
      try {
        if (!stopped) stop('immediate');
      } catch {
        /* already down */
      }
      if (!process.env.KEEP_TMP) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
