/**
 * Newline-delimited JSON frames over a stream socket: one protocol message per line
 * (JSON.stringify escapes every newline inside strings, so a line is always one message).
 * A frame longer than the reader's limit or a line that is not JSON closes the connection with
 * a reason: a confused or hostile peer cannot make the other side buffer without bound. The
 * limit can change as the connection goes on: a few kilobytes while the peer has not proved
 * who it is (handshake.ts), MAX_FRAME_BYTES once it has.
 */
import type { Socket } from 'node:net';

export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export function writeFrame(socket: Socket, message: unknown): boolean {
  if (socket.destroyed || !socket.writable) return false;
  return socket.write(`${JSON.stringify(message)}\n`);
}

/** The largest frame the reader accepts now (read again for every chunk, so it may change). */
export type FrameLimit = () => number;

/**
 * Calls `onFrame` for each complete JSON line; `onBad` (then the socket is destroyed) for a bad
 * one or one longer than `limit()` bytes, counted before any of it is parsed.
 */
export function readFrames(
  socket: Socket,
  onFrame: (message: unknown) => void,
  onBad: (reason: string) => void,
  limit: FrameLimit = () => MAX_FRAME_BYTES,
): void {
  let buffered: Buffer[] = [];
  let size = 0;
  const tooLong = (bytes: number) => {
    if (bytes <= limit()) return false;
    onBad(`a frame exceeded ${limit()} bytes`);
    socket.destroy();
    return true;
  };
  socket.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1 && !socket.destroyed; nl = chunk.indexOf(10, start)) {
      if (tooLong(size + nl - start)) return;
      const line = Buffer.concat([...buffered, chunk.subarray(start, nl)]).toString('utf8');
      buffered = [];
      size = 0;
      start = nl + 1;
      if (!deliver(line, onFrame, onBad)) {
        socket.destroy();
        return;
      }
    }
    if (socket.destroyed) return;
    if (start < chunk.length) {
      buffered.push(chunk.subarray(start));
      size += chunk.length - start;
    }
    tooLong(size);
  });
}

function deliver(line: string, onFrame: (message: unknown) => void, onBad: (reason: string) => void): boolean {
  if (!line.trim()) return true;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    onBad('a frame was not valid JSON');
    return false;
  }
  onFrame(message);
  return true;
}
