/**
 * `agent-memory encryption status|enable|disable|rotate|export-recovery-key|import-recovery-key`
 * (docs/encryption.md). All but import go to the store's owner (a VS Code window, another agent,
 * or this process): the owner switches what it writes. Importing a recovery key needs no engine —
 * a store whose key is missing cannot be opened — it keeps the key where this machine keeps keys.
 */
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { EngineClient } from '../engine/client/engineClient';
import type { EncryptionStatus } from '../engine/protocol';
import { resolveStoreHome } from '../engine/storeLocation';
import { userKeyring } from '../core/crypto/osKeychain';
import { parseRecoveryKey } from '../core/crypto/recoveryKey';
import { userKey } from '../core/crypto/userKeys';
import { UsageError, type CliArgs } from './args';
import type { CommandIo, CommandOutput } from './commands';
import { CliFailure } from './failure';

export const ENCRYPTION_ACTIONS = ['status', 'enable', 'disable', 'rotate', 'export-recovery-key', 'import-recovery-key'] as const;
type Action = (typeof ENCRYPTION_ACTIONS)[number];

export function encryptionAction(a: CliArgs): Action {
  const word = a.positionals[0];
  if (!word) throw new UsageError(`encryption: give one of ${ENCRYPTION_ACTIONS.join(', ')}`, 'encryption');
  if (!(ENCRYPTION_ACTIONS as readonly string[]).includes(word))
    throw new UsageError(`encryption: unknown action "${word}" (one of ${ENCRYPTION_ACTIONS.join(', ')})`, 'encryption');
  return word as Action;
}

/** The lines of a status: each store, then where the key is kept. */
export function statusText(s: EncryptionStatus): string {
  const lines = s.stores.map((st) => {
    const state = st.encrypted ? `encrypted (key ${st.userKeyId}${st.since ? `, since ${st.since.slice(0, 10)}` : ''})` : 'not encrypted';
    return `${st.store} store: ${state}${st.ownedHere ? '' : ', owned by another process'} (${st.dir})`;
  });
  lines.push(s.keychain.available ? 'keychain: answers' : `keychain: not answering (${s.keychain.reason})`);
  if (s.keyFile.inUse) lines.push(`key file: ${s.keyFile.path} (chosen because no keychain answers)`);
  lines.push(`new stores: ${s.newStores === 'encrypted' ? 'encrypted' : 'not encrypted'}`);
  if (s.note) lines.push(s.note);
  return lines.join('\n');
}

/** What a switch left out: a store another process owns is switched there. */
function skipped(s: EncryptionStatus, want: boolean): string[] {
  return s.stores
    .filter((st) => st.encrypted !== want && !st.ownedHere)
    .map((st) => `the ${st.store} store is owned by another process: run this there to switch it`);
}

export async function encryptionCommand(
  engine: EngineClient,
  a: CliArgs,
  action: Exclude<Action, 'import-recovery-key'>,
): Promise<CommandOutput> {
  const scope = a.scope ? { scope: a.scope } : {};
  switch (action) {
    case 'status': {
      const s = await engine.request('encryption.status', {});
      return { json: s, text: statusText(s) };
    }
    case 'enable': {
      const s = await engine.request('encryption.enable', { keyFile: !!a.keyFile, ...scope });
      return { json: s, text: [`encryption on; every memory is still there.`, ...skipped(s, true), '', statusText(s)].join('\n') };
    }
    case 'disable': {
      const s = await engine.request('encryption.disable', scope);
      return {
        json: s,
        text: [`encryption off: the store files are written plain again.`, ...skipped(s, false), '', statusText(s)].join('\n'),
      };
    }
    case 'rotate': {
      const s = await engine.request('encryption.rotate', { keyFile: !!a.keyFile });
      return { json: s, text: [`a new key now wraps the stores' keys; the old key no longer opens them.`, '', statusText(s)].join('\n') };
    }
    case 'export-recovery-key': {
      const r = await engine.request('encryption.exportRecoveryKey', {});
      const text = [
        r.recoveryKey,
        '',
        `This recovery key opens the ${r.stores.length > 1 ? 'project and global stores' : `${r.stores[0]} store`} on any machine: keep it somewhere safe, away from the store.`,
        'On another machine: agent-memory encryption import-recovery-key, then paste it.',
      ].join('\n');
      return { json: r, text };
    }
  }
}

async function readAll(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin as AsyncIterable<Buffer | string>) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += b.length;
    if (size > 4096) break;
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads a recovery key on stdin (never from the command line, which shells keep in their history) and keeps it here. */
export async function importRecoveryKey(a: CliArgs, io: CommandIo): Promise<CommandOutput> {
  const text = await readAll(io.stdin);
  if (!text.trim())
    throw new UsageError('encryption import-recovery-key: give the recovery key on stdin (paste it, then Ctrl+D)', 'encryption');
  const parsed = parseRecoveryKey(text);
  if ('error' in parsed) throw new CliFailure(`That is not a recovery key: ${parsed.error}. Nothing was kept.`, 'invalid_input');
  const keys = userKeyring(path.join(resolveStoreHome(a.home), 'keys', 'user-keys.json'));
  const kept = keys.keep(userKey(parsed.key), !!a.keyFile, false, 'agent-memory encryption import-recovery-key');
  const json = {
    userKeyId: kept.key.id,
    keptIn: kept.source === 'the keychain' ? 'keychain' : 'key file',
    ...(kept.source === 'the key file' ? { keyFile: keys.keyFile } : {}),
  };
  return {
    json,
    text: `kept key ${kept.key.id} in ${kept.source}${json.keyFile ? ` (${json.keyFile})` : ''}: the stores it encrypts open here now.`,
  };
}
