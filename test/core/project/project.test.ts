/**
 * Project id normalization (docs/project-id.md) against real directory trees built in a temp dir:
 * git checkouts, linked worktrees, submodules, mercurial, override files, agent worktree
 * folders, odd files; plus the URL canonicalization table and the cache.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  AGENT_WORKTREE_DIRS,
  canonicalizeRemoteUrl,
  computeProjectId,
  normalizeCanonicalId,
  parseGitConfig,
  parseHgrc,
  ProjectIdResolver,
  resolveProjectId,
  resolveProjectIdSync,
  stripWorktreeSuffix,
  type ProjectIdResult,
} from '../../../src/core/project';
import { UserFacingError } from '../../../src/core/util/errors';

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-project-')));
after(() => fs.rmSync(base, { recursive: true, force: true }));

let counter = 0;
/** A fresh directory under the temp root with the given files (`path → content`; content `null` = empty dir). */
function tree(files: Record<string, string | null>): string {
  const root = path.join(base, `t${++counter}`);
  fs.mkdirSync(root, { recursive: true });
  for (const [rel, content] of Object.entries(files)) {
    const p = path.join(root, rel);
    if (content === null) {
      fs.mkdirSync(p, { recursive: true });
    } else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
    }
  }
  return root;
}

const gitConfig = (remotes: Record<string, string>, extra = ''): string =>
  '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' +
  Object.entries(remotes)
    .map(([name, url]) => `[remote "${name}"]\n\turl = ${url}\n\tfetch = +refs/heads/*:refs/remotes/${name}/*\n`)
    .join('') +
  '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n' +
  extra;

/** A checkout at `rel` with a `.git` directory holding `config`. */
const gitRepo = (rel: string, config: string): Record<string, string> => ({
  [`${rel}/.git/config`]: config,
  [`${rel}/.git/HEAD`]: 'ref: refs/heads/main\n',
});

// Uncached: every test sees the tree as it is now.
const resolve = (raw: string, opts?: Parameters<typeof computeProjectId>[1]): ProjectIdResult => computeProjectId(raw, opts);

describe('URL canonicalization', () => {
  const cases: Array<[string, string]> = [
    // the three forms docs/project-id.md names
    ['https://github.com/user/repo.git', 'github.com/user/repo'],
    ['git@github.com:user/repo.git', 'github.com/user/repo'],
    ['ssh://git@github.com/user/repo', 'github.com/user/repo'],
    // https / http
    ['https://github.com/user/repo', 'github.com/user/repo'],
    ['https://github.com/user/repo/', 'github.com/user/repo'],
    ['https://github.com/user/repo.git/', 'github.com/user/repo'],
    ['https://GitHub.COM/User/Repo.git', 'github.com/User/Repo'],
    ['https://user:s3cret@github.com/user/repo.git', 'github.com/user/repo'],
    ['https://x-access-token:ghp_abc@github.com/org/repo.git', 'github.com/org/repo'],
    ['https://oauth2@gitlab.com/group/sub/repo.git', 'gitlab.com/group/sub/repo'],
    ['http://gitlab.example.com/group/repo.git', 'gitlab.example.com/group/repo'],
    ['http://gitlab.example.com:80/group/repo.git', 'gitlab.example.com/group/repo'],
    ['https://gitlab.example.com:443/group/repo', 'gitlab.example.com/group/repo'],
    ['https://gitlab.example.com:8443/group/sub/repo.git', 'gitlab.example.com:8443/group/sub/repo'],
    ['https://github.com/user/repo.git?ref=main#readme', 'github.com/user/repo'],
    ['https://github.com//user//repo.git', 'github.com/user/repo'],
    ['https://dev.azure.com/org/project/_git/repo', 'dev.azure.com/org/project/_git/repo'],
    ['https://github.com./user/repo', 'github.com/user/repo'],
    ['  https://github.com/user/repo.git \n', 'github.com/user/repo'],
    // ssh URLs: user and any port dropped
    ['ssh://git@github.com:22/user/repo.git', 'github.com/user/repo'],
    ['ssh://github.com:22/user/repo', 'github.com/user/repo'],
    ['ssh://git@gitlab.example.com:2222/group/sub/repo.git', 'gitlab.example.com/group/sub/repo'],
    ['ssh://git@[::1]:2222/repo.git', '[::1]/repo'],
    ['git+ssh://git@github.com/user/repo.git', 'github.com/user/repo'],
    ['ssh+git://git@github.com/user/repo.git', 'github.com/user/repo'],
    ['SSH://git@GITHUB.com/User/Repo.git', 'github.com/User/Repo'],
    ['ssh://hg@bitbucket.org/user/repo', 'bitbucket.org/user/repo'],
    ['ssh://user@host.example.com/~user/repo.git', 'host.example.com/~user/repo'],
    // scp-like
    ['git@github.com:user/repo', 'github.com/user/repo'],
    ['git@github.com:/user/repo.git', 'github.com/user/repo'],
    ['git@GitHub.com:User/Repo.git', 'github.com/User/Repo'],
    ['github.com:user/repo.git', 'github.com/user/repo'],
    ['git@gitlab.example.com:group/sub/repo.git/', 'gitlab.example.com/group/sub/repo'],
    ['org@vs-ssh.visualstudio.com:v3/org/project/repo', 'vs-ssh.visualstudio.com/v3/org/project/repo'],
    ['[git@host.example.com:2222]:group/repo.git', 'host.example.com/group/repo'],
    ['git@[::1]:repo.git', '[::1]/repo'],
    // git protocol
    ['git://github.com/user/repo.git', 'github.com/user/repo'],
    ['git://github.com:9418/user/repo.git', 'github.com/user/repo'],
    ['git://git.example.com:1234/repo.git', 'git.example.com:1234/repo'],
    // remote helpers
    ['hg::https://hg.example.com/repo', 'hg.example.com/repo'],
    // local paths and file URLs: canonical absolute path
    ['file:///srv/git/repo.git', '/srv/git/repo.git'],
    ['file://localhost/srv/git/repo.git', '/srv/git/repo.git'],
    ['file:///srv/git/my%20repo', '/srv/git/my repo'],
    ['/srv/git/repo.git', '/srv/git/repo.git'],
    ['/srv/git/repo/', '/srv/git/repo'],
    ['/srv/git/repo/.git', '/srv/git/repo'],
    ['/srv/git/../git/./repo', '/srv/git/repo'],
    ['../upstream.git', '/base/upstream.git'],
    ['./mirror', '/base/checkout/mirror'],
    ['upstream', '/base/checkout/upstream'],
  ];
  for (const [url, expected] of cases) {
    test(`${JSON.stringify(url)} → ${expected}`, () => {
      assert.equal(canonicalizeRemoteUrl(url, '/base/checkout'), expected);
    });
  }

  test('the table covers well over 25 forms', () => {
    assert.ok(cases.length >= 45, String(cases.length));
  });

  test('~ in a local remote is the home directory', () => {
    assert.equal(canonicalizeRemoteUrl('~/mirrors/repo.git'), path.join(os.homedir(), 'mirrors/repo.git'));
  });

  test('unusable URLs give undefined instead of throwing', () => {
    assert.equal(canonicalizeRemoteUrl(''), undefined);
    assert.equal(canonicalizeRemoteUrl('   '), undefined);
    assert.equal(canonicalizeRemoteUrl('https://'), undefined);
    assert.equal(canonicalizeRemoteUrl('https://host:notaport/x'), undefined);
    assert.equal(canonicalizeRemoteUrl('relative/without/base'), undefined);
  });

  test('a host-only URL names the host', () => {
    assert.equal(canonicalizeRemoteUrl('https://hg.example.com/'), 'hg.example.com');
  });
});

describe('ids that are not paths', () => {
  const cases: Array<[string, string]> = [
    ['github.com/user/repo', 'github.com/user/repo'],
    ['GitHub.com/User/Repo', 'github.com/User/Repo'],
    ['  github.com/user/repo  ', 'github.com/user/repo'],
    ['github.com/user/repo/', 'github.com/user/repo'],
    ['github.com/user/repo.git', 'github.com/user/repo'],
    ['gitlab.example.com:8443/group/sub/repo', 'gitlab.example.com:8443/group/sub/repo'],
    ['GITLAB.example.com:8443/Group/Sub/Repo', 'gitlab.example.com:8443/Group/Sub/Repo'],
    ['localhost/team/repo', 'localhost/team/repo'],
    ['10.0.0.5:3000/team/repo', '10.0.0.5:3000/team/repo'],
  ];
  for (const [raw, expected] of cases) {
    test(`canonical ${JSON.stringify(raw)} → ${expected}`, () => {
      assert.deepEqual(resolve(raw), { id: expected, kind: 'canonical', detail: 'already canonical' });
    });
  }

  test('remote URLs given as the id are canonicalized', () => {
    for (const raw of ['https://github.com/user/repo.git', 'git@github.com:user/repo.git', 'ssh://git@github.com/user/repo']) {
      assert.deepEqual(resolve(raw), { id: 'github.com/user/repo', kind: 'canonical', detail: 'canonicalized from a remote URL' });
    }
  });

  test('opaque ids pass through unchanged (trimmed)', () => {
    for (const raw of ['my-project', 'proj_a1b2c3d4e5f6a7b8', 'proj:alpha', 'Some Project', 'src/foo', 'user@local']) {
      assert.deepEqual(resolve(` ${raw} `), { id: raw, kind: 'canonical', detail: 'not a filesystem path; used as given' });
    }
  });

  test('normalizeCanonicalId rejects what is not host/path', () => {
    assert.equal(normalizeCanonicalId('github.com'), undefined);
    assert.equal(normalizeCanonicalId('github.com/'), undefined);
    assert.equal(normalizeCanonicalId('/github.com/user/repo'), undefined);
    assert.equal(normalizeCanonicalId('https://github.com/user/repo'), undefined);
    assert.equal(normalizeCanonicalId('git@github.com/user/repo'), undefined);
    assert.equal(normalizeCanonicalId('notahost/repo'), undefined);
    assert.equal(normalizeCanonicalId('github.com/user/repo'), 'github.com/user/repo');
  });

  test('blank, non-string and NUL inputs are refused with a clear error', async () => {
    for (const bad of ['', '   ', '\n\t']) {
      assert.throws(
        () => resolveProjectIdSync(bad),
        (err: unknown) => err instanceof UserFacingError && err.code === 'project_id_invalid' && /project id is empty/.test(err.message),
      );
    }
    assert.throws(() => resolveProjectIdSync(undefined as unknown as string), /project id must be a string.*got undefined/);
    assert.throws(() => resolveProjectIdSync(null as unknown as string), /got null/);
    assert.throws(() => resolveProjectIdSync('/tmp/a\0b'), /NUL/);
    await assert.rejects(resolveProjectId(''), /project id is empty/);
  });
});

describe('git checkouts', () => {
  test('origin url of .git/config, from the root, a deep subdirectory and a file', () => {
    const root = tree({
      ...gitRepo('app', gitConfig({ upstream: 'https://github.com/other/fork.git', origin: 'git@github.com:acme/app.git' })),
      'app/src/deep/nested/file.ts': 'export {};\n',
    });
    const app = path.join(root, 'app');
    for (const p of [app, path.join(app, 'src'), path.join(app, 'src/deep/nested'), path.join(app, 'src/deep/nested/file.ts')]) {
      const r = resolve(p);
      assert.equal(r.id, 'github.com/acme/app', p);
      assert.equal(r.kind, 'git-remote');
      assert.equal(r.root, app);
      assert.equal(r.detail, `remote "origin" (git@github.com:acme/app.git) in ${path.join(app, '.git/config')}`);
      assert.equal(r.warnings, undefined);
    }
  });

  test('without origin, the first remote in the file is used and the detail says so', () => {
    const root = tree(gitRepo('r', gitConfig({ upstream: 'https://gitlab.com/team/lib.git', mirror: 'https://example.org/lib.git' })));
    const r = resolve(path.join(root, 'r'));
    assert.equal(r.id, 'gitlab.com/team/lib');
    assert.equal(r.kind, 'git-remote');
    assert.match(r.detail ?? '', /^remote "upstream" .*, no "origin" remote$/);
  });

  test('a remote section without url is skipped in favour of one with a url', () => {
    const config =
      '[remote "origin"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[remote "backup"]\n\turl = https://example.org/x/backup.git\n';
    const root = tree(gitRepo('r', config));
    assert.equal(resolve(path.join(root, 'r')).id, 'example.org/x/backup');
  });

  test('credentials in the remote never reach the id or the detail', () => {
    const root = tree(gitRepo('r', gitConfig({ origin: 'https://bot:ghp_SECRET123@github.com/acme/private.git' })));
    const r = resolve(path.join(root, 'r'));
    assert.equal(r.id, 'github.com/acme/private');
    assert.ok(!JSON.stringify(r).includes('SECRET'), JSON.stringify(r));
    assert.match(r.detail ?? '', /https:\/\/\*\*\*@github\.com\/acme\/private\.git/);
  });

  test('url.<base>.insteadOf rewriting is applied (longest prefix wins)', () => {
    const extra = '[url "git@github.com:"]\n\tinsteadOf = gh:\n[url "https://git.example.com/mirror/"]\n\tinsteadOf = gh:acme/\n';
    const root = tree(gitRepo('r', gitConfig({ origin: 'gh:acme/tool' }, extra)));
    assert.equal(resolve(path.join(root, 'r')).id, 'git.example.com/mirror/tool');
    const root2 = tree(gitRepo('r', gitConfig({ origin: 'gh:someone/else' }, extra)));
    assert.equal(resolve(path.join(root2, 'r')).id, 'github.com/someone/else');
  });

  test('a local-path remote becomes the absolute path of the remote', () => {
    const root = tree({
      ...gitRepo('work/clone', gitConfig({ origin: '../../srv/upstream.git' })),
      ...gitRepo('work/other', gitConfig({ origin: pathToFileURL('/srv/shared/repo.git').href })),
      ...gitRepo('work/abs', gitConfig({ origin: '/srv/git/project/.git' })),
    });
    assert.deepEqual(
      [resolve(path.join(root, 'work/clone')), resolve(path.join(root, 'work/other')), resolve(path.join(root, 'work/abs'))].map((r) => [
        r.id,
        r.kind,
      ]),
      [
        [path.join(root, 'srv/upstream.git'), 'git-remote'],
        ['/srv/shared/repo.git', 'git-remote'],
        ['/srv/git/project', 'git-remote'],
      ],
    );
  });

  test('a repository without remote is its own project: its root, not the enclosing repo', () => {
    const root = tree({
      ...gitRepo('outer', gitConfig({ origin: 'https://github.com/acme/outer.git' })),
      ...gitRepo('outer/vendor/inner', '[core]\n\tbare = false\n'),
      'outer/vendor/inner/lib/x.ts': '',
    });
    const inner = path.join(root, 'outer/vendor/inner');
    const r = resolve(path.join(inner, 'lib'));
    assert.equal(r.id, inner);
    assert.equal(r.kind, 'path');
    assert.equal(r.root, inner);
    assert.equal(r.detail, `no remote or override: git repository at ${inner}: no remote with a url in ${path.join(inner, '.git/config')}`);
    assert.equal(r.warnings, undefined);
  });

  test('a .git directory without a config file falls back to the repository root', () => {
    const root = tree({ 'r/.git/HEAD': 'ref: refs/heads/main\n', 'r/sub': null });
    const r = resolve(path.join(root, 'r/sub'));
    assert.equal(r.id, path.join(root, 'r'));
    assert.equal(r.kind, 'path');
    assert.match(r.detail ?? '', /no .*\.git\/config$/);
  });

  test('git config syntax: quotes, comments, escapes, CRLF, continuation, old headers, key case', () => {
    const variants: Array<[string, string]> = [
      ['[remote "origin"]\n\turl = "https://github.com/q/quoted.git" # comment\n', 'github.com/q/quoted'],
      ['[remote "origin"]\r\n\turl = git@github.com:crlf/repo.git\r\n', 'github.com/crlf/repo'],
      ['; leading comment\n[Remote "origin"]\n\tURL = https://github.com/case/keys.git ; trailing\n', 'github.com/case/keys'],
      ['[remote.origin]\n\turl = https://github.com/old/syntax.git\n', 'github.com/old/syntax'],
      ['[remote "origin"]\n\turl = https://github.com/cont/\\\ninued.git\n', 'github.com/cont/inued'],
      ['[remote "origin"] url = https://github.com/same/line.git\n', 'github.com/same/line'],
      ['[remote "origin"]\n\turl = https://github.com/first/one.git\n\turl = https://github.com/second/one.git\n', 'github.com/first/one'],
      ['[remote "weird \\"name\\""]\n\turl = https://github.com/esc/aped.git\n', 'github.com/esc/aped'],
    ];
    for (const [config, expected] of variants) {
      const root = tree(gitRepo('r', config));
      assert.equal(resolve(path.join(root, 'r')).id, expected, JSON.stringify(config));
    }
  });
});

describe('linked worktrees and submodules (.git files)', () => {
  /** A main checkout `main` with origin, and a linked worktree administered in main/.git/worktrees/<name>. */
  function withWorktree(
    worktreeRel: string,
    gitdirLine: (adminDir: string, worktreeDir: string) => string,
    extra: Record<string, string | null> = {},
  ) {
    const root = tree({
      ...gitRepo('main', gitConfig({ origin: 'https://github.com/acme/main.git' })),
      'main/.git/worktrees/feat/commondir': '../..\n',
      'main/.git/worktrees/feat/HEAD': 'ref: refs/heads/feat\n',
      [`${worktreeRel}/src/index.ts`]: '',
      ...extra,
    });
    const admin = path.join(root, 'main/.git/worktrees/feat');
    const wt = path.join(root, worktreeRel);
    fs.writeFileSync(path.join(admin, 'gitdir'), path.join(wt, '.git') + '\n');
    fs.writeFileSync(path.join(wt, '.git'), gitdirLine(admin, wt));
    return { root, wt, main: path.join(root, 'main') };
  }

  test('absolute gitdir + commondir reach the main repository config', () => {
    const { wt, main } = withWorktree('elsewhere/feat', (admin) => `gitdir: ${admin}\n`);
    const r = resolve(path.join(wt, 'src'));
    assert.equal(r.id, 'github.com/acme/main');
    assert.equal(r.kind, 'git-remote');
    assert.equal(r.root, wt);
    assert.equal(
      r.detail,
      `remote "origin" (https://github.com/acme/main.git) in ${path.join(main, '.git/config')} (linked worktree of ${main})`,
    );
  });

  test('relative gitdir (git worktree add --relative-paths, or a moved tree)', () => {
    const { wt } = withWorktree('side/feat', (admin, w) => `gitdir: ${path.relative(w, admin)}\r\n`);
    assert.equal(fs.readFileSync(path.join(wt, '.git'), 'utf8').startsWith('gitdir: ../../main/.git/worktrees/feat'), true);
    assert.equal(resolve(wt).id, 'github.com/acme/main');
  });

  test('an agent worktree that is a linked git worktree resolves to the main remote', () => {
    const { wt } = withWorktree('main/.claude/worktrees/feat', (admin) => `gitdir: ${admin}\n`);
    const r = resolve(wt);
    assert.equal(r.id, 'github.com/acme/main');
    assert.equal(r.kind, 'git-remote');
  });

  test('a linked worktree shares the main checkout override, even an untracked one', () => {
    const { wt, main } = withWorktree('elsewhere/feat', (admin) => `gitdir: ${admin}\n`, { 'main/.agent-memory.yml': 'name: acme-main\n' });
    const r = resolve(wt);
    assert.equal(r.id, 'acme-main');
    assert.equal(r.kind, 'override');
    assert.equal(r.root, wt);
    assert.equal(r.detail, `"name:" in ${path.join(main, '.agent-memory.yml')} (linked worktree of ${main})`);
  });

  test('a linked worktree of a repository without remote resolves to the main checkout path', () => {
    const root = tree({
      ...gitRepo('main', '[core]\n\tbare = false\n'),
      'main/.git/worktrees/w/commondir': '../..\n',
      'wt/.git': 'placeholder',
    });
    fs.writeFileSync(path.join(root, 'wt/.git'), `gitdir: ${path.join(root, 'main/.git/worktrees/w')}\n`);
    const r = resolve(path.join(root, 'wt'));
    assert.equal(r.id, path.join(root, 'main'));
    assert.equal(r.kind, 'path');
  });

  test('a worktree of a bare repository reads the bare repository config', () => {
    const root = tree({
      'srv/app.git/config': gitConfig({ origin: 'git@github.com:acme/bare-app.git' }),
      'srv/app.git/HEAD': 'ref: refs/heads/main\n',
      'srv/app.git/worktrees/w1/commondir': '../..\n',
      'trees/w1/.git': 'gitdir: ../../srv/app.git/worktrees/w1\n',
    });
    assert.equal(resolve(path.join(root, 'trees/w1')).id, 'github.com/acme/bare-app');
  });

  test('a submodule resolves to its own remote, not the superproject one', () => {
    const root = tree({
      ...gitRepo('super', gitConfig({ origin: 'https://github.com/acme/super.git' })),
      'super/.git/modules/libs/dep/config': gitConfig(
        { origin: 'https://github.com/vendor/dep.git' },
        '\tworktree = ../../../../libs/dep\n',
      ),
      'super/.git/modules/libs/dep/HEAD': '0123456789abcdef0123456789abcdef01234567\n',
      'super/libs/dep/.git': 'gitdir: ../../.git/modules/libs/dep\n',
      'super/libs/dep/src/a.c': '',
    });
    const dep = path.join(root, 'super/libs/dep');
    const r = resolve(path.join(dep, 'src'));
    assert.equal(r.id, 'github.com/vendor/dep');
    assert.equal(r.root, dep);
    assert.equal(resolve(path.join(root, 'super/libs')).id, 'github.com/acme/super');
  });

  test('a .git file with junk falls back to the checkout path with a warning', () => {
    const root = tree({ 'r/.git': '\u0000\u0001\u0002 binary junk \uFFFD', 'r/src': null });
    const r = resolve(path.join(root, 'r/src'));
    assert.equal(r.id, path.join(root, 'r'));
    assert.equal(r.kind, 'path');
    assert.match(r.detail ?? '', /is a file without a usable "gitdir:" line/);
    assert.deepEqual(r.warnings, [`${path.join(root, 'r/.git')} is not a "gitdir: <path>" file`]);
  });

  test('a gitdir pointing nowhere falls back with a warning naming the target', () => {
    const root = tree({ 'r/.git': 'gitdir: /nonexistent/agent-memory/.git/worktrees/x\n' });
    const r = resolve(path.join(root, 'r'));
    assert.equal(r.id, path.join(root, 'r'));
    assert.equal(r.kind, 'path');
    assert.deepEqual(r.warnings, [
      `${path.join(root, 'r/.git')} points to /nonexistent/agent-memory/.git/worktrees/x, which is not a directory`,
    ]);
  });
});

describe('mercurial', () => {
  test('[paths] default of .hg/hgrc', () => {
    const root = tree({
      'repo/.hg/hgrc':
        '# hg config\n[ui]\nusername = A <a@example.com>\n\n[paths]\ndefault-push = ssh://hg@hg.example.com/push-target\ndefault = https://hg.example.com/Team/Project#stable\ndefault:pushurl = ssh://other\n',
      'repo/.hg/requires': 'store\n',
      'repo/src/x.py': '',
    });
    const repo = path.join(root, 'repo');
    const r = resolve(path.join(repo, 'src'));
    assert.equal(r.id, 'hg.example.com/Team/Project');
    assert.equal(r.kind, 'hg-remote');
    assert.equal(r.root, repo);
    assert.equal(r.detail, `paths.default (https://hg.example.com/Team/Project#stable) in ${path.join(repo, '.hg/hgrc')}`);
  });

  test('default-push, then the first path, when there is no default', () => {
    const a = tree({ 'r/.hg/hgrc': '[paths]\nupstream = ssh://hg@bitbucket.org/u/first\ndefault-push = ssh://hg@bitbucket.org/u/pushy\n' });
    assert.equal(resolve(path.join(a, 'r')).id, 'bitbucket.org/u/pushy');
    const b = tree({ 'r/.hg/hgrc': '[paths]\nupstream = ssh://hg@bitbucket.org/u/first\n' });
    assert.equal(resolve(path.join(b, 'r')).id, 'bitbucket.org/u/first');
  });

  test('a share without paths uses its source hgrc (.hg/sharedpath)', () => {
    const root = tree({
      'src-repo/.hg/hgrc': '[paths]\ndefault = https://hg.example.com/shared\n',
      'share/.hg/sharedpath': 'placeholder',
    });
    fs.writeFileSync(path.join(root, 'share/.hg/sharedpath'), path.join(root, 'src-repo/.hg'));
    assert.equal(resolve(path.join(root, 'share')).id, 'hg.example.com/shared');
  });

  test('a relative local path is relative to the repository root', () => {
    const root = tree({ 'work/r/.hg/hgrc': '[paths]\ndefault = ../central\n' });
    assert.equal(resolve(path.join(root, 'work/r')).id, path.join(root, 'work/central'));
  });

  test('no hgrc: the repository root is the project', () => {
    const root = tree({ 'r/.hg/requires': 'store\n', 'r/a/b': null });
    const r = resolve(path.join(root, 'r/a/b'));
    assert.equal(r.id, path.join(root, 'r'));
    assert.equal(r.kind, 'path');
    assert.match(r.detail ?? '', /mercurial repository at .*: no .*hgrc$/);
  });

  test('parseHgrc: continuation lines, comments, %include', () => {
    assert.deepEqual(parseHgrc('%include other.rc\n[paths]\n; c\ndefault = https://a\n  /continued\nother=x\n'), [
      { section: 'paths', key: 'default', value: 'https://a\n/continued' },
      { section: 'paths', key: 'other', value: 'x' },
    ]);
  });
});

describe('override file', () => {
  test('.agent-memory.yml name: wins over the git remote in the same directory', () => {
    const root = tree({
      ...gitRepo('r', gitConfig({ origin: 'https://github.com/acme/r.git' })),
      'r/.agent-memory.yml': '# team-wide id\nname: acme/platform\nother: ignored\n',
      'r/pkg/a': null,
    });
    const r = resolve(path.join(root, 'r/pkg/a'));
    assert.deepEqual(r, {
      id: 'acme/platform',
      kind: 'override',
      root: path.join(root, 'r'),
      detail: `"name:" in ${path.join(root, 'r/.agent-memory.yml')}`,
    });
  });

  test('.contextify.yml is accepted; .agent-memory.yml is preferred when both exist', () => {
    const a = tree({ 'p/.contextify.yml': 'name: from-contextify\n' });
    assert.equal(resolve(path.join(a, 'p')).id, 'from-contextify');
    const b = tree({ 'p/.contextify.yml': 'name: from-contextify\n', 'p/.agent-memory.yml': 'name: from-agent-memory\n' });
    assert.equal(resolve(path.join(b, 'p')).id, 'from-agent-memory');
  });

  test('a package override inside a monorepo beats the repository remote', () => {
    const root = tree({
      ...gitRepo('mono', gitConfig({ origin: 'https://github.com/acme/mono.git' })),
      'mono/packages/billing/.agent-memory.yml': 'name: "acme-billing"\n',
      'mono/packages/billing/src': null,
      'mono/packages/web/src': null,
    });
    assert.equal(resolve(path.join(root, 'mono/packages/billing/src')).id, 'acme-billing');
    assert.equal(resolve(path.join(root, 'mono/packages/web/src')).id, 'github.com/acme/mono');
  });

  test('the nearest root wins: an override above the repository does not apply to it', () => {
    const root = tree({
      'ws/.agent-memory.yml': 'name: workspace\n',
      ...gitRepo('ws/repo', gitConfig({ origin: 'https://github.com/acme/repo.git' })),
      'ws/loose/dir': null,
    });
    assert.equal(resolve(path.join(root, 'ws/repo')).id, 'github.com/acme/repo');
    assert.equal(resolve(path.join(root, 'ws/loose/dir')).id, 'workspace');
  });

  test('a number name is taken as text; a URL-shaped name stays as written', () => {
    const a = tree({ 'p/.agent-memory.yml': 'name: 2024\n' });
    assert.equal(resolve(path.join(a, 'p')).id, '2024');
    const b = tree({ 'p/.agent-memory.yml': 'name: github.com/Acme/Repo\n' });
    assert.equal(resolve(path.join(b, 'p')).id, 'github.com/Acme/Repo');
  });

  const malformed: Array<[string, string, RegExp]> = [
    ['invalid YAML', 'name: [unclosed\n  - x: : :\n', /not valid YAML/],
    ['no name field', 'project: x\n', /no "name:" field/],
    ['empty file', '', /expected a mapping/],
    ['a list', '- name: x\n', /expected a mapping/],
    ['empty name', 'name: "   "\n', /"name:" is empty/],
    ['a mapping as name', 'name:\n  first: x\n', /"name:" must be a string, not object/],
    ['binary junk', '\u0000\u0007\u00ff\u00fe\u0001PK\u0003\u0004', /not valid YAML|expected a mapping/],
    ['multi-line name', 'name: |\n  a\n  b\n', /single line/],
    ['nested 30,000 levels deep', `name: ${'['.repeat(30_000)}${']'.repeat(30_000)}\n`, /nests deeper than 64 levels/],
  ];
  for (const [label, content, why] of malformed) {
    test(`malformed override (${label}) falls through to git, with a warning`, () => {
      const root = tree({ ...gitRepo('r', gitConfig({ origin: 'git@github.com:acme/r.git' })), 'r/.agent-memory.yml': content });
      const r = resolve(path.join(root, 'r'));
      assert.equal(r.id, 'github.com/acme/r');
      assert.equal(r.kind, 'git-remote');
      assert.equal(r.warnings?.length, 1, JSON.stringify(r.warnings));
      assert.ok(r.warnings?.[0].startsWith(`ignored ${path.join(root, 'r/.agent-memory.yml')}: `), r.warnings?.[0]);
      assert.match(r.warnings?.[0] ?? '', why);
    });
  }

  test('a malformed .agent-memory.yml falls through to a good .contextify.yml', () => {
    const root = tree({ 'p/.agent-memory.yml': 'name: [\n', 'p/.contextify.yml': 'name: legacy\n' });
    const r = resolve(path.join(root, 'p'));
    assert.equal(r.id, 'legacy');
    assert.equal(r.warnings?.length, 1);
  });

  test('a directory named like an override file is not an override', () => {
    const root = tree({ ...gitRepo('p', gitConfig({ origin: 'https://github.com/acme/p.git' })), 'p/.agent-memory.yml': null });
    const r = resolve(path.join(root, 'p'));
    assert.equal(r.id, 'github.com/acme/p');
    assert.equal(r.kind, 'git-remote');
    assert.equal(r.warnings, undefined);
  });

  test('an override file too large to be one is reported and skipped', () => {
    const root = tree({ 'p/.agent-memory.yml': `name: big\n#${'x'.repeat(70 * 1024)}\n` });
    const r = resolve(path.join(root, 'p'));
    assert.equal(r.kind, 'path');
    assert.match(r.warnings?.[0] ?? '', /cannot read it \(\d+ bytes, over the 65536-byte limit\)/);
  });
});

describe('agent worktree folders', () => {
  test('stripWorktreeSuffix splits at the leftmost agent folder', () => {
    assert.deepEqual(stripWorktreeSuffix('/Users/a/repos/app/.claude/worktrees/feat-x'), {
      root: '/Users/a/repos/app',
      suffix: '/.claude/worktrees/feat-x',
    });
    assert.deepEqual(stripWorktreeSuffix('/r/app/.cursor/worktrees/w1/src/lib'), {
      root: '/r/app',
      suffix: '/.cursor/worktrees/w1/src/lib',
    });
    assert.deepEqual(stripWorktreeSuffix('/r/app/.worktrees/w/.claude/worktrees/x'), {
      root: '/r/app',
      suffix: '/.worktrees/w/.claude/worktrees/x',
    });
    assert.deepEqual(stripWorktreeSuffix('/.worktrees/w'), { root: '/', suffix: '/.worktrees/w' });
    assert.equal(stripWorktreeSuffix('/r/app/.claude/worktrees'), undefined); // the folder itself, no worktree name
    assert.equal(stripWorktreeSuffix('/home/u/.cache/worktrees/x'), undefined); // not an agent folder
    assert.equal(stripWorktreeSuffix('/r/app/claude/worktrees/x'), undefined); // not hidden
    assert.equal(stripWorktreeSuffix('/r/app/src'), undefined);
    for (const dir of AGENT_WORKTREE_DIRS) {
      assert.equal(stripWorktreeSuffix(`/r/app/${dir}/name`)?.root, '/r/app', dir);
    }
  });

  test('an agent worktree that is a separate clone without remote resolves to the main project', () => {
    const root = tree({
      ...gitRepo('app', gitConfig({ origin: 'https://github.com/acme/app.git' })),
      ...gitRepo('app/.cursor/worktrees/w1', '[core]\n\tbare = false\n'),
      'app/.cursor/worktrees/w1/src': null,
    });
    const r = resolve(path.join(root, 'app/.cursor/worktrees/w1/src'));
    assert.equal(r.id, 'github.com/acme/app');
    assert.equal(r.kind, 'git-remote');
    assert.equal(r.root, path.join(root, 'app'));
    assert.match(r.detail ?? '', /is an agent worktree of /);
  });

  test('an agent worktree whose .git file points to a removed gitdir resolves to the main project', () => {
    const root = tree({
      ...gitRepo('app', gitConfig({ origin: 'git@github.com:acme/app.git' })),
      'app/.claude/worktrees/feat-x/.git': 'gitdir: /nonexistent/removed/worktree\n',
    });
    const r = resolve(path.join(root, 'app/.claude/worktrees/feat-x'));
    assert.equal(r.id, 'github.com/acme/app');
    assert.equal(r.kind, 'git-remote');
    assert.equal(r.warnings?.length, 1);
  });

  test('an agent worktree with nothing anywhere falls back to the stripped path', () => {
    const root = tree({ 'plain/app/.claude/worktrees/feat-x/src': null });
    const app = path.join(root, 'plain/app');
    const r = resolve(path.join(app, '.claude/worktrees/feat-x/src'));
    assert.equal(r.id, app);
    assert.equal(r.kind, 'path');
    assert.equal(r.root, app);
    assert.match(r.detail ?? '', /is an agent worktree of /);
  });

  test('a removed agent worktree (nonexistent path) still resolves to the main project', () => {
    const root = tree({ ...gitRepo('app', gitConfig({ origin: 'https://github.com/acme/app.git' })) });
    const r = resolve(path.join(root, 'app/.worktrees/gone/src'));
    assert.equal(r.id, 'github.com/acme/app');
    assert.ok(r.warnings?.[0].includes('does not exist'));
  });
});

describe('path inputs and fallbacks', () => {
  test('a directory with no markers falls back to its normalized absolute path', () => {
    const root = tree({ 'nothing/here': null });
    const p = path.join(root, 'nothing/here');
    assert.deepEqual(resolve(p), {
      id: p,
      kind: 'path',
      root: p,
      detail: `no remote or override: no override file, .git or .hg at or above ${p}`,
    });
  });

  test('trailing slashes, doubled slashes and dot segments do not change the result', () => {
    const root = tree({ ...gitRepo('r', gitConfig({ origin: 'https://github.com/acme/r.git' })), 'r/sub': null, 'plain/dir': null });
    const r = path.join(root, 'r');
    for (const p of [`${r}/`, `${r}//`, `${r}/sub/..`, `${r}/./sub/`]) assert.equal(resolve(p).id, 'github.com/acme/r', p);
    const plain = path.join(root, 'plain/dir');
    for (const p of [`${plain}/`, `${plain}///`, `${root}//plain/./dir/`]) {
      const res = resolve(p);
      assert.equal(res.id, plain, p);
      assert.equal(res.root, plain, p);
    }
  });

  test('a nonexistent path outside any project falls back to itself, with a warning', () => {
    const p = path.join(base, 'does', 'not', 'exist');
    const r = resolve(`${p}/`);
    assert.equal(r.id, p);
    assert.equal(r.kind, 'path');
    assert.deepEqual(r.warnings, [`${p} does not exist; resolved from its nearest existing parent`]);
  });

  test('a nonexistent path inside a checkout resolves to the checkout', () => {
    const root = tree(gitRepo('r', gitConfig({ origin: 'https://github.com/acme/r.git' })));
    assert.equal(resolve(path.join(root, 'r/not/yet/created')).id, 'github.com/acme/r');
  });

  test('relative paths use opts.cwd; ~ uses opts.homeDir; file:// URLs are paths', () => {
    const root = tree({ ...gitRepo('r', gitConfig({ origin: 'https://github.com/acme/r.git' })), 'r/a/b': null });
    const r = path.join(root, 'r');
    assert.equal(resolve('.', { cwd: path.join(r, 'a') }).id, 'github.com/acme/r');
    assert.equal(resolve('./b', { cwd: path.join(r, 'a') }).id, 'github.com/acme/r');
    assert.equal(resolve('../a/b', { cwd: path.join(r, 'a') }).id, 'github.com/acme/r');
    assert.equal(resolve('~/a', { homeDir: r }).id, 'github.com/acme/r');
    assert.equal(resolve('~', { homeDir: r }).id, 'github.com/acme/r');
    assert.equal(resolve(pathToFileURL(path.join(r, 'a/b')).href).id, 'github.com/acme/r');
  });

  test('a symlink into a checkout resolves through the physical path', () => {
    const root = tree({ ...gitRepo('r', gitConfig({ origin: 'https://github.com/acme/linked.git' })), 'r/deep/dir': null, links: null });
    const link = path.join(root, 'links/shortcut');
    fs.symlinkSync(path.join(root, 'r/deep/dir'), link);
    const res = resolve(link);
    assert.equal(res.id, 'github.com/acme/linked');
    assert.equal(res.root, path.join(root, 'r'));
  });

  test('odd files never throw: config is a directory, config is binary, remote url is garbage', () => {
    const dirConfig = tree({ 'r/.git/config': null });
    const a = resolve(path.join(dirConfig, 'r'));
    assert.equal(a.id, path.join(dirConfig, 'r'));
    assert.equal(a.kind, 'path');
    assert.match(a.detail ?? '', /cannot read .*\.git\/config \(EISDIR/);
    assert.match(a.warnings?.[0] ?? '', /^cannot read .*config \(EISDIR/);

    const junk = tree({ 'r/.git/config': Buffer.from([0, 159, 146, 150, 255, 10, 91, 0, 93, 61, 61]).toString('latin1') + '\n[\n=\n"' });
    const b = resolve(path.join(junk, 'r'));
    assert.equal(b.id, path.join(junk, 'r'));
    assert.equal(b.kind, 'path');

    const garbage = tree(gitRepo('r', gitConfig({ origin: 'https://:@/' })));
    const c = resolve(path.join(garbage, 'r'));
    assert.equal(c.id, path.join(garbage, 'r'));
    assert.equal(c.kind, 'path');
    assert.match(c.warnings?.[0] ?? '', /^cannot make a project id of remote "origin"/);
  });
});

describe('parseGitConfig', () => {
  test('sections, subsections, bare keys and values', () => {
    const text =
      '[core]\n\tbare\n\tfilemode = true\n[remote "Up Stream"]\n\turl = "a b" c  # x\n[bad header\nurl = ignored\n[Remote.Origin]\n\tUrl=z\n';
    assert.deepEqual(parseGitConfig(text), [
      { section: 'core', key: 'bare', value: null },
      { section: 'core', key: 'filemode', value: 'true' },
      { section: 'remote', subsection: 'Up Stream', key: 'url', value: 'a b c' },
      { section: 'remote', subsection: 'origin', key: 'url', value: 'z' },
    ]);
  });
});

describe('cache', () => {
  test('repeated resolution is served from the cache until invalidated', () => {
    const root = tree(gitRepo('r', gitConfig({ origin: 'https://github.com/acme/before.git' })));
    const repo = path.join(root, 'r');
    const resolver = new ProjectIdResolver({ ttlMs: Infinity });
    const first = resolver.resolveSync(repo);
    assert.equal(first.id, 'github.com/acme/before');
    fs.writeFileSync(path.join(repo, '.git/config'), gitConfig({ origin: 'https://github.com/acme/after.git' }));
    assert.equal(resolver.resolveSync(repo), first, 'same frozen object from the cache');
    assert.equal(resolver.resolveSync(`${repo}/`), first, 'trailing slash hits the same entry');
    assert.ok(Object.isFrozen(first));

    resolver.invalidate(path.join(base, 'another-tree', '.agent-memory.yml'));
    assert.equal(resolver.resolveSync(repo).id, 'github.com/acme/before', 'unrelated invalidation keeps the entry');
    resolver.invalidate(path.join(repo, '.git/config'));
    assert.equal(resolver.resolveSync(repo).id, 'github.com/acme/after');

    fs.writeFileSync(path.join(repo, '.agent-memory.yml'), 'name: renamed\n');
    resolver.invalidate();
    assert.equal(resolver.size, 0);
    assert.equal(resolver.resolveSync(repo).id, 'renamed');
  });

  test('invalidating a project root drops entries resolved from its subdirectories', () => {
    const root = tree({ ...gitRepo('r', gitConfig({ origin: 'https://github.com/acme/r.git' })), 'r/a': null, 'r/b': null });
    const resolver = new ProjectIdResolver();
    resolver.resolveSync(path.join(root, 'r/a'));
    resolver.resolveSync(path.join(root, 'r/b'));
    assert.equal(resolver.size, 2);
    resolver.invalidate(path.join(root, 'r'));
    assert.equal(resolver.size, 0);
  });

  test('a new override file in a parent directory invalidates paths below it, not siblings', () => {
    const root = tree({ 'ws/a/deep': null, 'other/b': null });
    const resolver = new ProjectIdResolver({ ttlMs: Infinity });
    const deep = path.join(root, 'ws/a/deep');
    const sibling = path.join(root, 'other/b');
    assert.equal(resolver.resolveSync(deep).id, deep);
    const siblingResult = resolver.resolveSync(sibling);
    const override = path.join(root, 'ws/.agent-memory.yml');
    fs.writeFileSync(override, 'name: workspace\n');
    resolver.invalidate(override);
    assert.equal(resolver.resolveSync(deep).id, 'workspace');
    assert.equal(resolver.resolveSync(sibling), siblingResult);
  });

  test('entries expire after ttlMs', () => {
    let now = 1_000;
    const root = tree(gitRepo('r', gitConfig({ origin: 'https://github.com/acme/one.git' })));
    const repo = path.join(root, 'r');
    const resolver = new ProjectIdResolver({ ttlMs: 5_000, now: () => now });
    assert.equal(resolver.resolveSync(repo).id, 'github.com/acme/one');
    fs.writeFileSync(path.join(repo, '.git/config'), gitConfig({ origin: 'https://github.com/acme/two.git' }));
    now += 4_999;
    assert.equal(resolver.resolveSync(repo).id, 'github.com/acme/one');
    now += 1;
    assert.equal(resolver.resolveSync(repo).id, 'github.com/acme/two');
  });

  test('the least recently used entry is evicted past maxEntries', () => {
    const root = tree({ a: null, b: null, c: null });
    const [a, b, c] = ['a', 'b', 'c'].map((d) => path.join(root, d));
    const resolver = new ProjectIdResolver({ maxEntries: 2 });
    const ra = resolver.resolveSync(a);
    resolver.resolveSync(b);
    assert.equal(resolver.resolveSync(a), ra); // touch a: b is now the oldest
    resolver.resolveSync(c);
    assert.equal(resolver.size, 2);
    assert.equal(resolver.resolveSync(a), ra, 'a survived');
    fs.mkdirSync(path.join(b, '.git'));
    fs.writeFileSync(path.join(b, '.git/config'), gitConfig({ origin: 'https://github.com/acme/b.git' }));
    assert.equal(resolver.resolveSync(b).id, 'github.com/acme/b', 'b was evicted and is resolved afresh');
  });

  test('non-path ids are not cached', () => {
    const resolver = new ProjectIdResolver();
    assert.equal(resolver.resolveSync('github.com/acme/x').id, 'github.com/acme/x');
    assert.equal(resolver.size, 0);
  });

  test('async and sync module functions agree', async () => {
    const root = tree(gitRepo('r', gitConfig({ origin: 'git@gitlab.example.com:group/sub/repo.git' })));
    const repo = path.join(root, 'r');
    const viaAsync = await resolveProjectId(repo);
    assert.deepEqual(viaAsync, resolveProjectIdSync(repo));
    assert.equal(viaAsync.id, 'gitlab.example.com/group/sub/repo');
    assert.deepEqual(await resolveProjectId('github.com/a/b'), { id: 'github.com/a/b', kind: 'canonical', detail: 'already canonical' });
  });
});
