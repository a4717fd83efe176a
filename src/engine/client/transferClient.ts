/**
 * Export and import as a client of the engine (the CLI, the VS Code commands): the engine, which
 * may be another process (the store's owner), reads and writes regular files only. What only the
 * caller can reach — `-` (stdout / stdin), its own /dev/stdout or /dev/fd/N, a FIFO, a device, a
 * socket — goes through a private temporary file (a 0700 folder): the engine exports into it and
 * the caller copies it out, or the caller copies the input into it and the engine imports it
 * (docs/transfer.md). Regular files go to the engine directly, links followed. No `vscode` import.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable, type Writable } from 'node:stream';
import type { MemoryScope } from '../../core/memory/types';
import { errorMessage } from '../../core/util/errors';
import type { EngineClient, RequestOptions } from './engineClient';
import { EngineError } from '../errors';
import { IMPORT_FOLDER_HINT, exportFolderHint, resolveFileTarget, type FileTarget } from '../fileTarget';
import type { ExportFormat, ImportResult } from '../protocol';
import { MAX_IMPORT_BYTES, exportFormatFor } from '../transferFormat';

/** The caller's standard streams (the CLI's; VS Code has none, so `-` is refused there). */
export interface StdStreams {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
}

export interface ExportOutcome {
  /** The path as given (`-` for stdout). */
  path: string;
  count: number;
  bytes: number;
  /** The export went to this process's stdout: its summary belongs on stderr. */
  toStdout: boolean;
}

type Requester = Pick<EngineClient, 'request'>;

/**
 * Exports to `file` (`-`, or a path resolved against the caller's folder): a regular file (new,
 * or replaced through its links) is written by the engine; anything else gets a copy of an
 * export the engine wrote into a private temporary folder.
 */
export async function exportTo(
  engine: Requester,
  file: string,
  params: { scope?: MemoryScope; format?: ExportFormat },
  io: StdStreams & { request?: RequestOptions } = {},
): Promise<ExportOutcome> {
  const target = resolveFileTarget(file, exportFolderHint(file));
  const toStdout = target.kind === 'std' || (target.kind === 'fd' && target.fd === 1);
  if (target.kind === 'file') {
    const r = await engine.request('export', { ...params, path: target.path }, io.request);
    return { path: file, count: r.count, bytes: r.bytes, toStdout };
  }
  refuseDisk(target, file);
  const format = params.format ?? exportFormatFor(file);
  return withPrivateFolder(async (dir) => {
    const tmp = path.join(dir, `export.${format === 'json' ? 'json' : 'jsonl'}`);
    const r = await engine.request('export', { ...params, format, path: tmp }, io.request);
    await copyOut(tmp, target, file, io);
    return { path: file, count: r.count, bytes: r.bytes, toStdout };
  });
}

/**
 * Imports `file` (`-` for stdin, or a path): a regular file is read by the engine; stdin, this
 * process's /dev/fd/N, a FIFO or a device is first copied into a private temporary file.
 */
export async function importFrom(
  engine: Requester,
  file: string,
  io: StdStreams & { request?: RequestOptions } = {},
): Promise<ImportResult> {
  const source = resolveFileTarget(file, IMPORT_FOLDER_HINT);
  if (source.kind === 'file') {
    if (!source.exists) throw new EngineError('invalid_input', `Cannot import ${file}: it does not exist.`);
    return engine.request('import', { path: source.path }, io.request);
  }
  refuseDisk(source, file);
  if (source.kind === 'special' && source.type === 'socket') {
    throw new EngineError('invalid_input', `${file} is a socket, not a file: ${IMPORT_FOLDER_HINT}`);
  }
  return withPrivateFolder(async (dir) => {
    // The name keeps a .json / .jsonl extension (it says the format); stdin has none: its text does.
    const ext = /\.jsonl?$/i.exec(file)?.[0] ?? '';
    const tmp = path.join(dir, `import${ext}`);
    await copyIn(source, file, tmp, io);
    return engine.request('import', { path: tmp }, io.request);
  });
}

/** A block device is a disk: never written over with an export, nor read as one. */
function refuseDisk(t: FileTarget, file: string): void {
  if (t.kind === 'special' && t.type === 'block device')
    throw new EngineError('invalid_input', `${file} is a disk (a block device), not a file: give a file.`);
}

async function withPrivateFolder<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-memory-'));
  fs.chmodSync(dir, 0o700);
  try {
    return await fn(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Copies the finished export to stdout, an fd of this process, a FIFO, a device or a socket. */
async function copyOut(tmp: string, target: Exclude<FileTarget, { kind: 'file' }>, shown: string, io: StdStreams): Promise<void> {
  const { stream, end } = await openOut(target, shown, io);
  try {
    await pipeline(fs.createReadStream(tmp), stream, { end });
  } catch (e) {
    throw new EngineError('invalid_input', `Could not write the export to ${shown}: ${errorMessage(e)}`);
  }
}

async function openOut(
  target: Exclude<FileTarget, { kind: 'file' }>,
  shown: string,
  io: StdStreams,
): Promise<{ stream: Writable; end: boolean }> {
  if (target.kind === 'std' || (target.kind === 'fd' && target.fd <= 2)) {
    const fd = target.kind === 'std' ? 1 : target.fd;
    const stream = fd === 1 ? io.stdout : fd === 2 ? io.stderr : undefined;
    if (!stream) throw new EngineError('invalid_input', `Cannot export to ${shown} here: give a file.`);
    return { stream, end: false }; // stdout and stderr stay open for what follows
  }
  if (target.kind === 'fd') return { stream: fs.createWriteStream('', { fd: target.fd, autoClose: false }), end: true };
  if (target.type === 'socket') return { stream: await connectSocket(target.path), end: true };
  // A FIFO waits here for its reader: the open runs off the event loop, nothing else waits.
  return { stream: fs.createWriteStream(target.path, { flags: 'w' }), end: true };
}

function connectSocket(p: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.createConnection(p);
    s.once('connect', () => resolve(s));
    s.once('error', (e) => reject(new EngineError('invalid_input', `Could not connect to the socket ${p}: ${errorMessage(e)}`)));
  });
}

/** Copies stdin, an fd of this process, a FIFO or a device into `tmp` (private), at most MAX_IMPORT_BYTES. */
async function copyIn(source: Exclude<FileTarget, { kind: 'file' }>, shown: string, tmp: string, io: StdStreams): Promise<void> {
  let input: Readable;
  if (source.kind === 'std' || (source.kind === 'fd' && source.fd === 0)) {
    if (!io.stdin) throw new EngineError('invalid_input', `Cannot import ${shown} here: give a file.`);
    input = io.stdin;
  } else if (source.kind === 'fd') input = fs.createReadStream('', { fd: source.fd, autoClose: false });
  else input = fs.createReadStream(source.path);
  let seen = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > MAX_IMPORT_BYTES)
        done(new EngineError('invalid_input', `${shown} is larger than the import limit of ${MAX_IMPORT_BYTES} bytes.`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(input, limit, fs.createWriteStream(tmp, { mode: 0o600 }));
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw new EngineError('invalid_input', `Could not read ${shown}: ${errorMessage(e)}`);
  }
}
