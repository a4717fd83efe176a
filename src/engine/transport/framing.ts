/**
 * Newline-delimited JSON frames over a stream socket: one protocol message per line
 * (JSON.stringify escapes every newline inside strings, so a line is always one message).
 * A frame larger than MAX_FRAME_BYTES or a line that is not JSON closes the connection with a
 * reason: a confused or hostile peer cannot make the other side buffer without bound.
 */
import type { Socket } from 'node:net';

export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export function writeFrame(socket: Socket, message: unknown): boolean {
  if (socket.destroyed || !socket.writable) return false;
  return socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onFrame` for each complete JSON line; `onBad` (then the socket is destroyed) for a bad one. */
export function readFrames(socket: Socket, onFrame: (message: unknown) => void, onBad: (reason: string) => void): void {
  let buffered: Buffer[] = [];
  let size = 0;
  socket.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const line = Buffer.concat([...buffered, chunk.subarray(start, nl)]).toString('utf8');
      buffered = [];
      size = 0;
      start = nl + 1;
      if (!deliver(line, onFrame, onBad)) {
        socket.destroy();
        return;
      }
    }
    if (start < chunk.length) {
      buffered.push(chunk.subarray(start));
      size += chunk.length - start;
    }
    if (size > MAX_FRAME_BYTES) {
      onBad(`a frame exceeded ${MAX_FRAME_BYTES} bytes`);
      socket.destroy();
    }
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
