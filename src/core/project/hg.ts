/** Reads the default path of a Mercurial checkout from `.hg/hgrc` (never runs hg). */
import * as path from 'node:path';
import { entryKind, readSmallFile } from './fsRead';
import { parseHgrc } from './hgrc';

const MAX_HGRC_BYTES = 1024 * 1024;

export interface HgRemote {
  name: string;
  url: string;
  hgrcPath: string;
}

export interface HgInspection {
  remote?: HgRemote;
  reason?: string;
}

/**
 * `[paths] default`, else `default-push`, else the first path. A share (`hg share`) without
 * paths of its own uses its source's hgrc, named by `.hg/sharedpath`.
 */
export function inspectHg(dir: string, warnings: string[]): HgInspection {
  const hgDir = path.join(dir, '.hg');
  const own = remoteIn(path.join(hgDir, 'hgrc'), warnings);
  if (own.remote) return own;
  const shared = sharedHgDir(hgDir);
  return shared ? remoteIn(path.join(shared, 'hgrc'), warnings) : own;
}

function remoteIn(hgrcPath: string, warnings: string[]): HgInspection {
  const read = readSmallFile(hgrcPath, MAX_HGRC_BYTES);
  if (!read.ok) {
    if (entryKind(hgrcPath) === undefined) return { reason: `no ${hgrcPath}` };
    const problem = `cannot read ${hgrcPath} (${read.error})`;
    warnings.push(problem);
    return { reason: problem };
  }
  // `default:pushurl`-style keys are sub-options of a path, not paths.
  const paths = parseHgrc(read.text).filter((e) => e.section === 'paths' && !e.key.includes(':') && e.value);
  const pick = paths.find((e) => e.key === 'default') ?? paths.find((e) => e.key === 'default-push') ?? paths[0];
  if (!pick) return { reason: `no [paths] entry in ${hgrcPath}` };
  return { remote: { name: pick.key, url: pick.value, hgrcPath } };
}

function sharedHgDir(hgDir: string): string | undefined {
  const file = path.join(hgDir, 'sharedpath');
  if (entryKind(file) !== 'file') return undefined;
  const read = readSmallFile(file, 64 * 1024);
  const p = read.ok ? read.text.trim() : '';
  return p ? path.resolve(hgDir, p) : undefined;
}
