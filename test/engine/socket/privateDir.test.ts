// Folders and files that hold a store's socket, owner record, lock and temporary files must be
// private to the OS user (src/engine/socket/privateDir.ts, endpoint.ts, storeLocation.ts):
// real folders with real modes and owners (another owner through chown, as root).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { EngineError } from '../../../src/engine/errors';
import { ensurePrivateHome, ensurePrivateStoreDirs, storeDirsIn } from '../../../src/engine/storeLocation';
import { checkSocket, runtimeDir, socketPath } from '../../../src/engine/socket/endpoint';
import { tmpDir } from '../../helpers/tmp';

const unix = process.platform !== 'win32';
const root = unix && process.getuid?.() === 0;
const notUnix = unix ? false : 'Unix modes and uids only';
const notRoot = root ? false : 'giving a folder or socket to another user (chown) needs root; this run is not root';
const NOBODY = 65534;

function refused(fn: () => unknown, why: RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof EngineError && e.code === 'not_private', String(e));
    assert.match(e.message, why);
    return true;
  });
}

/** os.tmpdir() follows TMPDIR: each case gets a sticky, world-writable folder of its own, like /tmp. */
function withTmp<T>(fn: (tmp: string) => T): T {
  const tmp = path.join(tmpDir('am-private-'), 'tmp');
  fs.mkdirSync(tmp);
  fs.chmodSync(tmp, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    return fn(tmp);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

test('the runtime folder: made 0700 in the temporary folder, or in XDG_RUNTIME_DIR when that is private', { skip: notUnix }, () => {
  withTmp((tmp) => {
    const uid = process.getuid!();
    const dir = runtimeDir({});
    assert.equal(dir, path.join(tmp, `agent-memory-${uid}`));
    assert.equal(fs.lstatSync(dir).mode & 0o777, 0o700);
    assert.equal(runtimeDir({}), dir, 'an existing private one is used as it is');

    const xdg = path.join(tmp, 'xdg');
    fs.mkdirSync(xdg, { mode: 0o700 });
    assert.equal(runtimeDir({ XDG_RUNTIME_DIR: xdg }), path.join(xdg, 'agent-memory'));
    fs.chmodSync(xdg, 0o755);
    assert.equal(runtimeDir({ XDG_RUNTIME_DIR: xdg }), dir, 'an XDG_RUNTIME_DIR open to others is passed over');
    assert.equal(runtimeDir({ XDG_RUNTIME_DIR: 'relative/dir' }), dir);

    // A store folder too deep for a socket path gets its socket there; a short one keeps it in the store folder.
    const deep = path.join(tmp, 'x'.repeat(120));
    assert.equal(path.dirname(socketPath(deep)), dir);
    assert.equal(socketPath(path.join(tmp, 's')), path.join(tmp, 's', 'engine.sock'));
  });
});

test('a runtime folder that is open to others, a symbolic link or not a folder is refused, never repaired', { skip: notUnix }, () => {
  withTmp((tmp) => {
    const dir = path.join(tmp, `agent-memory-${process.getuid!()}`);
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o777);
    refused(() => runtimeDir({}), /can be changed by other users \(mode 777\).*chmod 700/);
    fs.chmodSync(dir, 0o755);
    refused(() => runtimeDir({}), /is open to other users \(mode 755\)/);
    assert.equal(fs.lstatSync(dir).mode & 0o777, 0o755, 'left as it was');
    fs.rmdirSync(dir);
    const elsewhere = path.join(tmp, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.symlinkSync(elsewhere, dir);
    refused(() => runtimeDir({}), /is a symbolic link.*rm /);
    fs.rmSync(dir);
    fs.writeFileSync(dir, '');
    refused(() => runtimeDir({}), /is not a folder/);
  });
});

test(
  'a runtime folder, socket or store home of another user is refused with a sentence that says what to do',
  { skip: notRoot },
  async () => {
    withTmp((tmp) => {
      const dir = path.join(tmp, 'agent-memory-0');
      fs.mkdirSync(dir, { mode: 0o700 });
      fs.chownSync(dir, NOBODY, NOBODY);
      refused(() => runtimeDir({}), /belongs to another user \(uid 65534; you are uid 0\).*XDG_RUNTIME_DIR.*shorter store home/);
    });
    const base = tmpDir('am-private-');
    const home = path.join(base, 'shared-home');
    fs.mkdirSync(home, { mode: 0o700 });
    fs.chownSync(home, NOBODY, NOBODY);
    refused(() => ensurePrivateHome(home), /store home .* belongs to another user.*never shared between users/);

    // A socket file of another user in a private store folder (only root could have put it there).
    const store = path.join(base, 'store');
    fs.mkdirSync(store, { mode: 0o700 });
    const sock = path.join(store, 'engine.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      assert.equal(checkSocket(sock, store), 'ok');
      fs.chownSync(sock, NOBODY, NOBODY);
      refused(() => checkSocket(sock, store), /socket is not yours: .*belongs to another user/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    fs.rmSync(sock, { force: true });
    fs.writeFileSync(sock, 'not a socket', { mode: 0o600 });
    refused(() => checkSocket(sock, store), /is not a socket/);
    assert.equal(checkSocket(path.join(store, 'none.sock'), store), 'absent');
    fs.chmodSync(store, 0o777);
    refused(() => checkSocket(path.join(store, 'none.sock'), store), /store folder .* can be changed by other users/);
  },
);

test('the store home must be writable by nobody else; store folders are made or tightened to 0700', { skip: notUnix }, () => {
  const base = tmpDir('am-home-');
  const home = path.join(base, 'home');
  ensurePrivateHome(home);
  assert.equal(fs.statSync(home).mode & 0o777, 0o700, 'a new home is 0700');
  const linked = path.join(base, 'linked-home');
  fs.symlinkSync(home, linked);
  ensurePrivateHome(linked); // a home the user linked elsewhere is followed
  fs.chmodSync(home, 0o775);
  refused(() => ensurePrivateHome(home), /store home .* can be changed by other users \(mode 775\).*never shared between users/);
  fs.chmodSync(home, 0o755);
  ensurePrivateHome(home); // readable by others is the user's choice; writable is not

  const dirs = storeDirsIn(home, 'github.com/acme/widgets');
  fs.mkdirSync(dirs.project, { mode: 0o700 });
  fs.chmodSync(dirs.project, 0o775); // as an older version under umask 002 left it
  ensurePrivateStoreDirs(dirs);
  assert.equal(fs.statSync(dirs.project).mode & 0o777, 0o700, 'tightened');
  assert.equal(fs.statSync(dirs.global).mode & 0o777, 0o700, 'made');
});
