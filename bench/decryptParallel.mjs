// Can the snapshot's decryption leave the opening thread? (bench/RESULTS-encryption.md, "Decrypting
// in parallel"). Chunks as a sealed file holds them (docs/encryption.md: 1 MiB, `nonce | ciphertext |
// tag`, AES-256-GCM), opened into one buffer (the database's storage) three ways, alternating:
//   sync     one node:crypto decipher per chunk on this thread, into the buffer (what Store.open does)
//   subtle K WebCrypto's AES-GCM (libuv's thread pool), K chunks in flight, each result copied in
//   workers K  K worker threads with node:crypto, chunks transferred in and out, each result copied in
//   node bench/decryptParallel.mjs [MiB=330] [rounds=7]
// Prints the median wall and CPU (user + system of the whole process) per way.
import { createCipheriv, createDecipheriv, randomBytes, webcrypto } from 'node:crypto';
import { Worker } from 'node:worker_threads';

const CHUNK = 1 << 20;
const N = Number(process.argv[2] ?? 330);
const ROUNDS = Number(process.argv[3] ?? 7);
const key = randomBytes(32);
const sealed = Array.from({ length: N }, () => {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  const body = c.update(randomBytes(CHUNK));
  c.final();
  return Buffer.concat([nonce, body, c.getAuthTag()]);
});
const out = Buffer.allocUnsafe(N * CHUNK);

function openSync() {
  for (let i = 0; i < N; i++) {
    const s = sealed[i];
    const d = createDecipheriv('aes-256-gcm', key, s.subarray(0, 12));
    d.setAuthTag(s.subarray(s.length - 16));
    out.set(d.update(s.subarray(12, s.length - 16)), i * CHUNK);
    d.final();
  }
}

const cryptoKey = await webcrypto.subtle.importKey('raw', key, 'AES-GCM', false, ['decrypt']);
async function openSubtle(k) {
  let next = 0;
  const lane = async () => {
    while (next < N) {
      const i = next++;
      const s = sealed[i];
      const plain = await webcrypto.subtle.decrypt({ name: 'AES-GCM', iv: s.subarray(0, 12), tagLength: 128 }, cryptoKey, s.subarray(12));
      out.set(new Uint8Array(plain), i * CHUNK);
    }
  };
  await Promise.all(Array.from({ length: k }, lane));
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createDecipheriv } = require('node:crypto');
parentPort.on('message', ({ i, buf }) => {
  const s = Buffer.from(buf);
  const d = createDecipheriv('aes-256-gcm', workerData, s.subarray(0, 12));
  d.setAuthTag(s.subarray(s.length - 16));
  const p = d.update(s.subarray(12, s.length - 16));
  d.final();
  const ab = p.buffer.slice(p.byteOffset, p.byteOffset + p.length);
  parentPort.postMessage({ i, ab }, [ab]);
});`;
async function openWorkers(k) {
  const workers = Array.from({ length: k }, () => new Worker(WORKER, { eval: true, workerData: key }));
  await new Promise((r) => setTimeout(r, 50)); // started (their start is not what is measured)
  const t = performance.now();
  const c = cpuMs();
  let next = 0;
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          const send = () => {
            if (next >= N) return resolve();
            const i = next++;
            // A chunk read from the file is a fresh buffer: transferred, not copied.
            const buf = sealed[i].buffer.slice(sealed[i].byteOffset, sealed[i].byteOffset + sealed[i].length);
            w.postMessage({ i, buf }, [buf]);
          };
          w.on('message', ({ i, ab }) => {
            out.set(new Uint8Array(ab), i * CHUNK);
            send();
          });
          send();
          send(); // two in flight per worker
        }),
    ),
  );
  const r = [performance.now() - t, cpuMs() - c];
  await Promise.all(workers.map((w) => w.terminate()));
  return r;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
async function timed(fn) {
  const t = performance.now();
  const c = cpuMs();
  await fn();
  return [performance.now() - t, cpuMs() - c];
}
const ways = {
  sync: () => timed(openSync),
  'subtle 2': () => timed(() => openSubtle(2)),
  'subtle 4': () => timed(() => openSubtle(4)),
  'workers 2': () => openWorkers(2),
};
const res = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) for (const [name, fn] of Object.entries(ways)) res[name].push(await fn());
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
console.log(`${N} MiB, ${ROUNDS} rounds, medians`);
for (const [k, v] of Object.entries(res))
  console.log(`${k.padEnd(10)} wall ${median(v.map((x) => x[0])).toFixed(1)} ms  cpu ${median(v.map((x) => x[1])).toFixed(1)} ms`);
