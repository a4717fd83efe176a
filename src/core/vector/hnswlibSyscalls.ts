/**
 * The file syscalls of hnswlib-wasm's in-memory file system (the wasm module's imports), and the wrappers that
 * let hnswlib.ts capture what `writeIndex` writes and serve what `readIndex` reads from a host file.
 */
import { readFully } from '../store/fsutil';
import { HnswlibError } from './errors';

export const AT_FDCWD = -100;
export const O_RDONLY = 0;
export const O_WRONLY = 1;
export const O_CREAT = 0o100;
export const O_TRUNC = 0o1000;
export const SEEK_SET = 0;
export const SEEK_CUR = 1;
export const SEEK_END = 2;

/** Syscall imports of the wasm module, bound to its (otherwise unexported) FS. */
export interface WasmEnv {
  __syscall_openat: (dirfd: number, path: number, flags: number, varargs: number) => number;
  fd_read: (fd: number, iov: number, iovcnt: number, pnum: number) => number;
  fd_write: (fd: number, iov: number, iovcnt: number, pnum: number) => number;
  fd_seek: (fd: number, offsetLow: number, offsetHigh: number, whence: number, newOffset: number) => number;
  fd_close: (fd: number) => number;
  syncIdb_js: (populateFromFs: boolean) => void;
}

/** Reads of `path` (in the wasm FS) served from `length` bytes of a host file at `hostOffset`. */
export interface HostFileRedirect {
  path: string;
  fds: Set<number>;
  hostFd: number;
  hostOffset: number;
  length: number;
  error?: { thrown: unknown };
  /** Bytes read ahead from the host file, from (file) position `start`. */
  ahead?: { start: number; bytes: Uint8Array };
}

/**
 * How much a redirected read takes from the host file at once. hnswlib's loader reads through the
 * C library's 1 KB stdio buffer: a 1,000-vector index (2.2 MB) came in 2,566 reads, each a system
 * call and two seeks; read ahead, in 7 (loading 20,000 vectors: 135 → 88 ms of CPU).
 */
const READ_AHEAD = 1 << 20;

/** Copies `len` bytes at file position `pos` into `into`, through the redirect's read-ahead. */
function readRedirected(r: HostFileRedirect, pos: number, into: Uint8Array): void {
  const len = into.length;
  if (len >= READ_AHEAD) {
    readHost(r, pos, into);
    return;
  }
  let a = r.ahead;
  if (!a || pos < a.start || pos + len > a.start + a.bytes.length) {
    const bytes = new Uint8Array(Math.min(READ_AHEAD, r.length - pos));
    readHost(r, pos, bytes);
    a = r.ahead = { start: pos, bytes };
  }
  into.set(a.bytes.subarray(pos - a.start, pos - a.start + len));
}

function readHost(r: HostFileRedirect, pos: number, into: Uint8Array): void {
  const read = readFully(r.hostFd, into, r.hostOffset + pos);
  if (read < into.length) throw new HnswlibError(`hnswlib: the index file ended early (at ${pos + read} of ${r.length} bytes)`);
}

/** Write capture (see HnswlibRuntime.captureWrites in hnswlib.ts), shared with the wrapped wasm imports. */
export interface CaptureState {
  /** Path being captured, or undefined when idle. */
  path: string | undefined;
  fds: Set<number>;
  chunks: Uint8Array[];
  bytes: number;
  /** When set, captured writes go here (a view of the wasm heap, valid during the call) instead of `chunks`. */
  sink: ((chunk: Uint8Array) => void) | undefined;
  memory: (() => ArrayBuffer) | undefined;
  /** Read redirect (see HnswlibRuntime.readFromHostFile): reads of `path` come from a host file. */
  redirect: HostFileRedirect | undefined;
  /** What the sink threw: the write reports EIO to the C++ side, and captureWrites rethrows this. */
  sinkError: { thrown: unknown } | undefined;
  /** 8 bytes of wasm heap for the syscall wrappers (a file position). */
  scratch: number;
}

/**
 * Wraps the file syscalls so that, while a capture is armed, writes to files opened under the
 * captured path land in JS chunks instead of the in-memory FS. Pass-through otherwise.
 */
export function wrapForCapture(env: WasmEnv, capture: CaptureState): void {
  const openat = env.__syscall_openat;
  const fdWrite = env.fd_write;
  const fdRead = env.fd_read;
  const fdSeek = env.fd_seek;
  const fdClose = env.fd_close;
  const decoder = new TextDecoder();
  const pathAt = (pathPtr: number): string => {
    const heap = new Uint8Array(capture.memory!());
    let end = pathPtr;
    while (heap[end] !== 0 && end < heap.length) end++;
    return decoder.decode(heap.subarray(pathPtr, end));
  };
  env.__syscall_openat = (dirfd, pathPtr, flags, varargs) => {
    const fd = openat(dirfd, pathPtr, flags, varargs);
    if (capture.path !== undefined && capture.memory && fd >= 0 && (flags & 3) !== O_RDONLY) {
      if (pathAt(pathPtr) === capture.path) capture.fds.add(fd);
    }
    const r = capture.redirect;
    if (r && capture.memory && fd >= 0 && (flags & 3) === O_RDONLY && pathAt(pathPtr) === r.path) r.fds.add(fd);
    return fd;
  };
  env.fd_read = (fd, iov, iovcnt, pnum) => {
    const r = capture.redirect;
    if (!r || !r.fds.has(fd) || !capture.memory) return fdRead(fd, iov, iovcnt, pnum);
    try {
      // The position is the in-memory file's (its seeks stay authoritative); the bytes come from the host file.
      const at = capture.scratch;
      let errno = fdSeek(fd, 0, 0, SEEK_CUR, at);
      if (errno !== 0) return errno;
      let dv = new DataView(capture.memory());
      const pos = dv.getUint32(at, true) + dv.getUint32(at + 4, true) * 2 ** 32;
      let total = 0;
      for (let i = 0; i < iovcnt; i++) {
        const ptr = dv.getUint32(iov + 8 * i, true);
        const want = dv.getUint32(iov + 8 * i + 4, true);
        const len = Math.min(want, Math.max(0, r.length - pos - total));
        if (len > 0) readRedirected(r, pos + total, new Uint8Array(capture.memory(), ptr, len));
        total += len;
        if (len < want) break;
      }
      errno = fdSeek(fd, (pos + total) >>> 0, Math.floor((pos + total) / 2 ** 32), SEEK_SET, at);
      if (errno !== 0) return errno;
      dv = new DataView(capture.memory());
      dv.setUint32(pnum, total, true);
      return 0;
    } catch (e) {
      r.error ??= { thrown: e };
      return 29; // EIO
    }
  };
  env.fd_write = (fd, iov, iovcnt, pnum) => {
    if (capture.fds.size === 0 || !capture.fds.has(fd) || !capture.memory) return fdWrite(fd, iov, iovcnt, pnum);
    const buffer = capture.memory();
    const dv = new DataView(buffer);
    let total = 0;
    for (let i = 0; i < iovcnt; i++) {
      const ptr = dv.getUint32(iov + 8 * i, true);
      const len = dv.getUint32(iov + 8 * i + 4, true);
      if (len === 0) continue;
      if (capture.sink) {
        try {
          capture.sink(new Uint8Array(buffer, ptr, len));
        } catch (e) {
          capture.sinkError ??= { thrown: e };
          return 29; // EIO: the C++ side gives up; captureWrites rethrows the real error
        }
      } else capture.chunks.push(new Uint8Array(buffer, ptr, len).slice());
      total += len;
    }
    capture.bytes += total;
    dv.setUint32(pnum, total, true);
    return 0;
  };
  env.fd_close = (fd) => {
    capture.fds.delete(fd);
    return fdClose(fd);
  };
}
