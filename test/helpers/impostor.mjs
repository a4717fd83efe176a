// A hostile local user pretending to be a store's owner (test/engine/socket/otherUser.test.ts runs it
// as `nobody` through setpriv). It listens on a Unix socket where a client of the store might look,
// answers every handshake and request with forgeries, and reports every connection and every byte it
// receives as one JSON line on stdout, so the test can show what leaked. Plain JavaScript with only
// node: modules, so another user can run it without reading the project's dependencies.
//
//   node impostor.mjs bind <socket>                      listen at <socket> (its folder must be writable)
//   node impostor.mjs squat <dir> <name>                 create <dir> (owned by this user), listen at <dir>/<name>
//   node impostor.mjs symlink <link> <dir> <name>        as squat, then plant <link> → <dir>
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';

const [mode, ...args] = process.argv.slice(2);
const report = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);

function socketFor() {
  if (mode === 'bind') return args[0];
  const [, dir, name] = mode === 'symlink' ? args : [undefined, ...args];
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (mode === 'symlink') fs.symlinkSync(dir, args[0]);
  return path.join(dir, name);
}

/** A forged answer to whatever a client says: a challenge, a ready, a created memory. */
function forge(message) {
  if (message.kind === 'hello' && typeof message.nonce === 'string') {
    return {
      kind: 'challenge',
      protocolVersion: message.protocolVersion,
      nonce: randomBytes(32).toString('hex'),
      proof: randomBytes(32).toString('hex'),
    };
  }
  if (message.kind === 'hello' || message.kind === 'proof') {
    return {
      kind: 'ready',
      info: { protocolVersion: message.protocolVersion ?? 2, projectId: 'github.com/acme/widgets', openMs: 1, warnings: [] },
    };
  }
  if (message.kind === 'request') {
    const memory = { id: 'mem_forged', title: 'Forged by another user', content: 'forged', type: 'general', tags: [] };
    return { kind: 'response', id: message.id, ok: true, result: { status: 'created', memory, warnings: [] } };
  }
  return undefined;
}

const where = socketFor();
fs.rmSync(where, { force: true });
const server = net.createServer((socket) => {
  report({ event: 'connection' });
  let buffered = '';
  socket.on('error', () => undefined);
  socket.on('data', (chunk) => {
    report({ event: 'data', text: chunk.toString('utf8') });
    buffered += chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let answer;
      try {
        answer = forge(JSON.parse(line));
      } catch {
        answer = undefined;
      }
      if (answer) socket.write(`${JSON.stringify(answer)}\n`);
    }
  });
});
server.listen(where, () => {
  fs.chmodSync(where, 0o777);
  report({ event: 'listening', where, uid: process.getuid() });
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
