/** The canonical id form `host[:port]/path`: recognizing it, and building it. */

// A DNS name with an alphabetic TLD, an IPv4 address, an IPv6 literal or localhost; optional port.
const HOST =
  /^(?:localhost|\[[0-9A-Fa-f:.]+\]|(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}|\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?$/;

/**
 * Repository path in canonical form: empty segments dropped (no leading, trailing or doubled
 * slashes), and a trailing `.git` (suffix or whole last segment) removed. Case is kept.
 */
export function cleanRepoPath(p: string): string {
  const segments = p.split('/').filter((s) => s !== '');
  if (segments.length > 1 && segments[segments.length - 1] === '.git') segments.pop();
  const last = segments.length - 1;
  if (last >= 0 && /.\.git$/i.test(segments[last])) segments[last] = segments[last].slice(0, -4);
  return segments.join('/');
}

/** `host/path` with the host lowercased and a trailing dot of a FQDN dropped; the host alone if the path is empty. */
export function joinCanonical(host: string, repoPath: string): string | undefined {
  const h = host.toLowerCase().replace(/\.(?=$|:)/, '');
  if (!h) return undefined;
  const p = cleanRepoPath(repoPath);
  return p ? `${h}/${p}` : h;
}

/**
 * The canonical form of an id already written as `host[:port]/path` (`github.com/user/repo`,
 * `gitlab.example.com:8443/group/sub/repo`), or undefined when `s` is not of that shape.
 */
export function normalizeCanonicalId(s: string): string | undefined {
  const t = s.trim();
  if (/[\s\\@]/.test(t) || t.includes('://')) return undefined;
  const slash = t.indexOf('/');
  if (slash <= 0) return undefined;
  const host = t.slice(0, slash);
  if (!HOST.test(host)) return undefined;
  const repoPath = cleanRepoPath(t.slice(slash));
  return repoPath ? joinCanonical(host, repoPath) : undefined;
}
