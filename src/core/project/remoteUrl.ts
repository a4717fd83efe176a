/**
 * Remote URL canonicalization: every form git and hg accept for a remote becomes
 * `host[:port]/path` (lowercase host, path case kept, no credentials, no `.git`, no trailing
 * slash), and a local-path remote becomes an absolute path.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { joinCanonical } from './canonicalId';

const SCHEME_URL = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;
// git remote helpers: `hg::https://host/repo`, `persistent-https::...`.
const HELPER_PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*::(?=.)/;
// On ssh the port only picks the transport; the same repository is reachable on any of them.
const SSH_SCHEMES = new Set(['ssh', 'git+ssh', 'ssh+git', 'sftp']);
// A non-default http(s) port is kept: it is part of how the server is named (`host:8443/group/repo`).
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443', git: '9418', ftp: '21', ftps: '990' };
// scp-like `[user@]host:path`: no `/` before the first `:`. Brackets allow `[::1]` and `[user@host:port]`.
const SCP = /^(?:([^@/:[\]]*)@)?(\[[^\]]*\]|[^@/:[\]]+):(.*)$/s;

export function hasUrlScheme(s: string): boolean {
  return SCHEME_URL.test(s.trim());
}

export interface ScpLike {
  user?: string;
  host: string;
  path: string;
}

/** Parses git's scp-like syntax; a DOS drive (`C:\x`, `C:/x`) is a local path, not a host. */
export function parseScpLike(s: string): ScpLike | undefined {
  const m = SCP.exec(s.trim());
  if (!m) return undefined;
  const [, user, rawHost, repoPath] = m;
  if (user === undefined && /^[A-Za-z]$/.test(rawHost)) return undefined;
  const host = rawHost.startsWith('[') ? bracketHost(rawHost.slice(1, -1)) : rawHost;
  if (!host) return undefined;
  return { user, host, path: repoPath };
}

/** `[git@host:2222]` → `host`; `[::1]` (two or more colons: an IPv6 literal) → `[::1]`. */
function bracketHost(inner: string): string {
  const rest = inner.slice(inner.lastIndexOf('@') + 1);
  const colons = rest.split(':').length - 1;
  return colons <= 1 ? rest.split(':')[0] : `[${rest}]`;
}

/**
 * Canonical id of a remote URL, or undefined when it names nothing we can use.
 * `baseDir` resolves relative local-path remotes (`../upstream`); without it they yield undefined.
 */
export function canonicalizeRemoteUrl(url: string, baseDir?: string): string | undefined {
  const s = url.trim().replace(HELPER_PREFIX, '');
  if (!s) return undefined;
  const m = SCHEME_URL.exec(s);
  if (m) {
    const scheme = m[1].toLowerCase();
    return scheme === 'file' ? fromFileUrl(s, m[2]) : fromAuthority(scheme, m[2]);
  }
  const scp = parseScpLike(s);
  if (scp) return joinCanonical(scp.host, scp.path);
  return localPathId(s, baseDir);
}

function fromAuthority(scheme: string, rest: string): string | undefined {
  const end = rest.search(/[/?#]/);
  const authority = end < 0 ? rest : rest.slice(0, end);
  const repoPath = end < 0 ? '' : rest.slice(end).replace(/[?#].*$/s, '');
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1); // drops `user:pass@`
  const hp = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d*))?$/.exec(hostPort);
  if (!hp || !hp[1]) return undefined;
  let port = hp[2] ?? '';
  if (SSH_SCHEMES.has(scheme) || port === DEFAULT_PORTS[scheme]) port = '';
  return joinCanonical(port ? `${hp[1]}:${port}` : hp[1], repoPath);
}

function fromFileUrl(url: string, rest: string): string | undefined {
  try {
    return localPathId(fileURLToPath(url));
  } catch {
    // `file://server/share/repo` on POSIX, or a malformed escape: treat the host as a host.
    return fromAuthority('file', rest);
  }
}

/** Absolute, normalized path of a local remote; a path ending in `/.git` names its parent. */
function localPathId(p: string, baseDir?: string): string | undefined {
  let abs = p;
  if (abs === '~' || abs.startsWith('~/')) abs = path.join(os.homedir(), abs.slice(1));
  if (!path.isAbsolute(abs)) {
    if (!baseDir) return undefined;
    abs = path.resolve(baseDir, abs);
  } else {
    abs = path.resolve(abs);
  }
  return path.basename(abs) === '.git' ? path.dirname(abs) : abs;
}

/** The URL with its userinfo (which may be a token) hidden, for messages: `https://***@host/x`. */
export function redactUrl(url: string): string {
  return url.replace(/^((?:[A-Za-z][A-Za-z0-9+.-]*::)?[A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/?#]*@/, '$1***@');
}
