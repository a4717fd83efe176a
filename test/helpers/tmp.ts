import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

/** A fresh temporary directory, removed when the test process exits (unless KEEP_TMP is set). */
export function tmpDir(prefix = 'am-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!process.env.KEEP_TMP) {
    // One `exit` listener for all of them: one per directory exceeded the default limit of 10
    // (MaxListenersExceededWarning in the test run).
    if (made.length === 0) process.once('exit', () => made.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    made.push(dir);
  }
  return dir;
}
