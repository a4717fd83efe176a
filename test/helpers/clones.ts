/** Checkouts for the shared-store tests: folders with a `.git` whose origin is the same remote. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** A folder `name` under `root` that looks like a git clone of `origin` (config + HEAD are all the resolver reads). */
export function fakeClone(root: string, name: string, origin = 'git@github.com:acme/widgets.git'): string {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, '.git', 'config'),
    `[core]\n\tbare = false\n[remote "origin"]\n\turl = ${origin}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
  );
  fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return dir;
}
