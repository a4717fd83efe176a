import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A fresh temporary directory, removed when the test process exits (unless KEEP_TMP is set). */
export function tmpDir(prefix = 'am-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!process.env.KEEP_TMP) {
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return dir;
}
