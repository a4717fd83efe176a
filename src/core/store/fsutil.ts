import * as fs from 'node:fs';
import * as path from 'node:path';

/** fsync a directory so a rename or a new file in it survives a power cut. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open directories; the rename is still atomic there.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Reads `dst.length` bytes of `fd` at `at` (fewer only at the end of the file); returns how many were read. */
export function readFully(fd: number, dst: Uint8Array, at: number): number {
  let done = 0;
  for (let n = 1; done < dst.length && n > 0; done += n) n = fs.readSync(fd, dst, done, dst.length - done, at + done);
  return done;
}

/** Write bytes to `file` atomically: temp file → fsync → rename → fsync the directory. */
export async function writeFileAtomic(file: string, data: Uint8Array): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const fh = await fs.promises.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.promises.rename(tmp, file);
  fsyncDir(path.dirname(file));
}

/** Keep bytes we could not use (a corrupt log tail, a bad snapshot) instead of deleting them. */
export function preserveBytes(dir: string, name: string, data: Uint8Array): string {
  const quarantine = path.join(dir, 'quarantine');
  fs.mkdirSync(quarantine, { recursive: true });
  const file = path.join(quarantine, `${new Date().toISOString().replace(/[:.]/g, '-')}-${name}`);
  fs.writeFileSync(file, data);
  return file;
}

/** Copy a file into quarantine/ (the original stays). */
export function quarantineFile(dir: string, file: string): string {
  const quarantine = path.join(dir, 'quarantine');
  fs.mkdirSync(quarantine, { recursive: true });
  const dest = path.join(quarantine, `${new Date().toISOString().replace(/[:.]/g, '-')}-${path.basename(file)}`);
  fs.copyFileSync(file, dest);
  return dest;
}

/**
 * Keep `data` in quarantine/ under `name`, unless the same bytes are already kept there under
 * that name (a damaged segment read again before a snapshot covers it is not copied twice).
 */
export function quarantineOnce(dir: string, name: string, data: Uint8Array): string {
  const quarantine = path.join(dir, 'quarantine');
  if (fs.existsSync(quarantine)) {
    for (const n of fs.readdirSync(quarantine)) {
      if (!n.endsWith(`-${name}`)) continue;
      const file = path.join(quarantine, n);
      if (fs.statSync(file).size === data.length && fs.readFileSync(file).equals(data)) return file;
    }
  }
  return preserveBytes(dir, name, data);
}

/** Move a file (or folder) into quarantine/ under a dated name; returns where it went. */
export function moveToQuarantine(dir: string, file: string): string {
  const quarantine = path.join(dir, 'quarantine');
  fs.mkdirSync(quarantine, { recursive: true });
  const dest = path.join(quarantine, `${new Date().toISOString().replace(/[:.]/g, '-')}-${path.basename(file)}`);
  fs.renameSync(file, dest);
  fsyncDir(dir);
  return dest;
}
