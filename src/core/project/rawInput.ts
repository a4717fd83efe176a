/** Sorts a raw project id into "a filesystem path to resolve" or "an id to use as it is (normalized)". */
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeCanonicalId } from './canonicalId';
import { canonicalizeRemoteUrl, hasUrlScheme, parseScpLike } from './remoteUrl';
import { UserFacingError } from '../util/errors';
import type { ProjectIdResult, ResolveOptions } from './types';

export type RawInput = { kind: 'path'; path: string } | { kind: 'id'; result: ProjectIdResult };

/** Throws `UserFacingError` (code `project_id_invalid`) for a non-string, blank or NUL-bearing input. */
export function classifyRawInput(rawIdOrPath: unknown, opts: ResolveOptions = {}): RawInput {
  const raw = checkedRaw(rawIdOrPath);
  if (/^file:\/\//i.test(raw)) {
    try {
      return { kind: 'path', path: path.resolve(fileURLToPath(raw)) };
    } catch {
      // not a local file URL: handled as a remote URL below
    }
  }
  const canonical = normalizeCanonicalId(raw);
  if (canonical) return asId(canonical, 'already canonical');
  if (looksLikeRemoteUrl(raw)) {
    const id = canonicalizeRemoteUrl(raw);
    if (id) return asId(id, 'canonicalized from a remote URL');
  }
  const p = asPath(raw, opts);
  if (p) return { kind: 'path', path: p };
  return asId(raw, 'not a filesystem path; used as given');
}

const asId = (id: string, detail: string): RawInput => ({ kind: 'id', result: { id, kind: 'canonical', detail } });

function checkedRaw(rawIdOrPath: unknown): string {
  if (typeof rawIdOrPath !== 'string') {
    const got = rawIdOrPath === null ? 'null' : typeof rawIdOrPath;
    throw new UserFacingError(
      `project id must be a string (an id such as github.com/user/repo, or a path), got ${got}`,
      'project_id_invalid',
    );
  }
  const raw = rawIdOrPath.trim();
  if (!raw) {
    throw new UserFacingError(
      'project id is empty: give an id such as github.com/user/repo, or the path of the project folder',
      'project_id_invalid',
    );
  }
  if (raw.includes('\0')) throw new UserFacingError('project id contains a NUL character', 'project_id_invalid');
  return raw;
}

/**
 * A URL with a scheme, or scp-like `user@host:path` / `host.tld:path`. A bare `word:thing`
 * is not taken for a remote: ids such as `proj:alpha` must pass through unchanged.
 */
function looksLikeRemoteUrl(raw: string): boolean {
  if (hasUrlScheme(raw)) return true;
  const scp = parseScpLike(raw);
  return scp !== undefined && (scp.user !== undefined || scp.host.includes('.') || scp.host.startsWith('['));
}

/** Absolute normalized path for absolute, `~` and `.`/`..`-relative inputs; undefined otherwise. */
function asPath(raw: string, opts: ResolveOptions): string | undefined {
  if (raw === '~' || raw.startsWith('~/') || raw.startsWith('~\\')) {
    return path.resolve(opts.homeDir ?? os.homedir(), raw.slice(2));
  }
  if (path.isAbsolute(raw)) return path.resolve(raw);
  if (raw === '.' || raw === '..' || /^\.\.?[\\/]/.test(raw)) return path.resolve(opts.cwd ?? process.cwd(), raw);
  return undefined;
}
