/**
 * What Scan Memories for Secrets found or did, in words (docs/secrets.md "Scanning what is
 * already stored"): per store, how many secrets of which kinds, in which memories and histories,
 * and after a redaction how many old copies left the disk. Never a secret itself. No vscode
 * import: the CLI and the command palette both use it.
 */
import { plural } from '../core/text/plural';
import { SECRET_KINDS, type SecretKind } from '../core/secrets/rules';
import type { SecretScanReport } from '../engine/protocol';

type StoreReport = SecretScanReport['stores'][number];

/** How many memories are named by id before the rest are counted. */
const NAMED = 10;

/** `ids: false`: no memory ids (the palette: people read it); the CLI names them. */
export function describeSecretScan(r: SecretScanReport, opts: { redactHint?: string; ids?: boolean } = {}): string {
  const lines = r.stores.filter((s) => found(s) > 0).map((s) => storeLine(s, r.redact, opts.ids !== false));
  if (!lines.length) return r.redact ? 'No secrets found: nothing needed redacting.' : 'No secrets found in the memories or their history.';
  if (!r.redact && opts.redactHint) lines.push(opts.redactHint);
  return lines.join('\n');
}

function found(s: StoreReport): number {
  return Object.values(s.kinds).reduce((n, c) => n + (c ?? 0), 0);
}

function storeLine(report: StoreReport, redact: boolean, withIds: boolean): string {
  const s = report;
  const kinds = (Object.entries(s.kinds) as [SecretKind, number][]).map(([k, c]) => `${SECRET_KINDS[k]} (${c})`).join(', ');
  const where = [
    s.memoryIds.length ? plural(s.memoryIds.length, 'memory', 'memories') : '',
    s.historyOf.length ? `the history of ${plural(s.historyOf.length, 'memory', 'memories')}` : '',
  ].filter(Boolean);
  const store = s.store === 'project' ? 'The project store' : 'The global store';
  const head = `${store}: ${redact ? 'redacted' : 'found'} ${plural(found(report), 'secret')} (${kinds}) in ${where.join(' and ') || 'records outside the memories'}.`;
  const ids = [...new Set([...s.memoryIds, ...s.historyOf])];
  const named =
    withIds && ids.length
      ? ` Memories: ${ids.slice(0, NAMED).join(', ')}${ids.length > NAMED ? ` and ${ids.length - NAMED} more` : ''}.`
      : '';
  if (!redact) return head + named;
  const vectors = s.reembed ? ' Their search vectors are being made again from the redacted text.' : '';
  return `${head}${named}${vectors} Old copies removed from disk: ${plural(s.removedFiles, 'file')}.`;
}
