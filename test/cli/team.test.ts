// @tier process
// `agent-memory team …` as real processes against a real PostgreSQL 15 (docs/team.md): two
// machines (two store homes, clones of one repository) connect, upload, push and pull; the
// password never lands in agent.yaml; a server that is down leaves the memory working and the
// change waiting until it is back; two edits of one memory surface as a conflict that is
// resolved; disconnect keeps the local memory.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TeamOverview, TeamSyncReport, TeamConflictInfo } from '../../src/engine/teamProtocol';
import { tmpDir } from '../helpers/tmp';
import { fakeClone } from '../helpers/clones';
import { runCli, type CliRun } from '../helpers/cliProcess';
import { startPgCluster, type PgCluster, pgSkip } from '../helpers/pgCluster';

const skip = pgSkip();
let pg: PgCluster;

before(async () => {
  if (!skip) pg = await startPgCluster();
});
after(() => pg?.destroy());

function json<T>(r: CliRun): T {
  assert.equal(r.code, 0, `exit code (stderr: ${r.stderr})`);
  return JSON.parse(r.stdout) as T;
}

function machine(name: string) {
  const root = tmpDir(`am-team-${name}-`);
  const ws = fakeClone(root, 'repo');
  fs.writeFileSync(path.join(ws, 'agent.yaml'), '# the project settings\nembedding:\n  provider: hash\n');
  const env = { AGENT_MEMORY_HOME: path.join(root, 'home') };
  const cli = (args: string[], stdin?: string) => runCli([...args, '--workspace', ws], env, stdin === undefined ? {} : { stdin });
  const connect = () =>
    cli(
      [
        'team',
        'connect',
        '--server',
        `127.0.0.1:${pg.port}`,
        '--user',
        pg.user,
        '--database',
        pg.database,
        '--tls',
        'disable',
        '--author',
        name,
        '--password-stdin',
        '--json',
      ],
      `${pg.password}\n`,
    );
  return { root, ws, env, cli, connect };
}

type Connected = { status: TeamOverview; report: TeamSyncReport; settingsFile: string; passwordKeptIn: string };
type Synced = { status: TeamOverview; report: TeamSyncReport };

function noneWaiting(r: Synced): boolean {
  assert.ok(r.status.connected, JSON.stringify(r));
  return r.status.connected && r.status.waiting === 0 && r.status.state === 'synced';
}

test(
  'two machines share one project memory through the server, offline changes wait, conflicts are resolved',
  { skip, timeout: 300_000 },
  async () => {
    const a = machine('ana');
    const b = machine('ben');
    const m1 = json<{ memory: { id: string } }>(
      await a.cli(['add', 'Integration tests need the docker daemon running locally.', '--json']),
    );
    json(await a.cli(['add', 'Release tags are signed with the team GPG key.', '--json']));

    // Connect: the server is tried, the schema made, the store uploaded; the password is not in agent.yaml.
    const ca = json<Connected>(await a.connect());
    assert.equal(ca.report.pushed, 2);
    assert.equal(ca.status.connected && ca.status.state, 'synced');
    const yaml = fs.readFileSync(path.join(a.ws, 'agent.yaml'), 'utf8');
    assert.match(yaml, /# the project settings/, 'the comments stay');
    assert.match(yaml, /team:\n {2}host: 127\.0\.0\.1/);
    assert.ok(!yaml.includes(pg.password), 'no password in agent.yaml');
    if (ca.passwordKeptIn.startsWith('a file')) {
      const file = path.join(a.env.AGENT_MEMORY_HOME, 'secrets', 'team.json');
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    }

    // The second machine catches up on connect.
    const cb = json<Connected>(await b.connect());
    assert.equal(cb.report.pulled, 2);
    const listed = json<{ items: { id: string }[] }>(await b.cli(['list', '--json']));
    assert.ok(listed.items.some((x) => x.id === m1.memory.id));

    // A change on b reaches a with the next sync (b's process may push it in the background before
    // its own sync round: either way nothing waits after it); later rounds use the kept password.
    const nb = json<{ memory: { id: string } }>(await b.cli(['add', 'The staging database is rebuilt every Monday.', '--json']));
    assert.equal(noneWaiting(json<Synced>(await b.cli(['team', 'sync', '--json']))), true);
    json<Synced>(await a.cli(['team', 'sync', '--json']));
    assert.equal(
      json<{ content: string }>(await a.cli(['get', nb.memory.id, '--json'])).content,
      'The staging database is rebuilt every Monday.',
    );

    // The server goes down: writes still work, the change waits, sync says why; back up, it goes.
    pg.stop('immediate');
    const offline = json<{ memory: { id: string } }>(await a.cli(['add', 'Feature flags are read at start-up only.', '--json']));
    const failed = await a.cli(['team', 'sync']);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /cannot be reached/);
    const waiting = json<TeamOverview>(await a.cli(['team', 'status', '--json']));
    assert.ok(waiting.connected && waiting.waiting >= 1, JSON.stringify(waiting));
    pg.start();
    assert.equal(noneWaiting(json<Synced>(await a.cli(['team', 'sync', '--json']))), true);
    json<Synced>(await b.cli(['team', 'sync', '--json']));
    assert.ok(json<{ content: string }>(await b.cli(['get', offline.memory.id, '--json'])).content.includes('Feature flags'));

    // Both edit one memory: a pushes first, b's edit becomes a conflict; b keeps its own, and a gets it.
    json(await a.cli(['update', m1.memory.id, '--content', 'Integration tests need docker or podman.', '--json']));
    json(await b.cli(['update', m1.memory.id, '--content', 'Integration tests run in CI only.', '--json']));
    json<Synced>(await a.cli(['team', 'sync', '--json']));
    // (b's own update process may already have met the conflict in a background round.)
    json<Synced>(await b.cli(['team', 'sync', '--json']));
    const st = json<TeamOverview>(await b.cli(['team', 'status', '--json']));
    assert.ok(st.connected && st.state === 'conflict' && st.conflicts === 1, JSON.stringify(st));
    const conflicts = json<TeamConflictInfo[]>(await b.cli(['team', 'conflicts', '--json']));
    assert.equal(conflicts[0]!.local.content, 'Integration tests run in CI only.');
    assert.equal(conflicts[0]!.current!.content, 'Integration tests need docker or podman.');
    assert.equal(conflicts[0]!.serverAuthor, 'ana');
    const human = await b.cli(['team', 'conflicts']);
    assert.match(human.stdout, /kept \(by ana\): Integration tests need docker or podman\./);
    json(await b.cli(['team', 'resolve', conflicts[0]!.id, '--keep', 'mine', '--json']));
    assert.equal(noneWaiting(json<Synced>(await b.cli(['team', 'sync', '--json']))), true);
    json<Synced>(await a.cli(['team', 'sync', '--json']));
    assert.equal(json<{ content: string }>(await a.cli(['get', m1.memory.id, '--json'])).content, 'Integration tests run in CI only.');

    // Disconnect: the settings leave agent.yaml, the memory stays.
    const d = json<{ disconnected: boolean }>(await b.cli(['team', 'disconnect', '--json']));
    assert.equal(d.disconnected, true);
    assert.ok(!fs.readFileSync(path.join(b.ws, 'agent.yaml'), 'utf8').includes('team:'));
    assert.equal(json<TeamOverview>(await b.cli(['team', 'status', '--json'])).connected, false);
    assert.equal(json<{ items: unknown[] }>(await b.cli(['list', '--json'])).items.length, 4);
  },
);

test('a wrong password is refused before anything is saved', { skip, timeout: 120_000 }, async () => {
  const c = machine('cy');
  const r = await c.cli(
    [
      'team',
      'connect',
      '--server',
      `127.0.0.1:${pg.port}`,
      '--user',
      pg.user,
      '--database',
      pg.database,
      '--tls',
      'disable',
      '--password-stdin',
    ],
    'not-the-password\n',
  );
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /password authentication failed/);
  assert.ok(!fs.readFileSync(path.join(c.ws, 'agent.yaml'), 'utf8').includes('team:'));
  assert.ok(!fs.existsSync(path.join(c.env.AGENT_MEMORY_HOME, 'secrets', 'team.json')));
});
