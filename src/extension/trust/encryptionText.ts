/**
 * What the encryption commands say (docs/encryption.md), free of vscode so it is tested as text:
 * whether each store is encrypted, where the key is kept, and what to do where no keychain answers.
 */
import type { EncryptionStatus, StoreName } from '../../engine/protocol';

const STORE_NAME: Record<StoreName, string> = { project: "This project's memory", global: 'The global memory' };

/** One sentence per store, then the key's place and what new stores get. */
export function encryptionStatusText(s: EncryptionStatus): string {
  const parts = s.stores.map((st) => {
    const state = st.encrypted ? `is encrypted${st.since ? ` (since ${st.since.slice(0, 10)})` : ''}` : 'is not encrypted';
    return `${STORE_NAME[st.store]} ${state}${st.ownedHere ? '' : '; another window or agent writes it'}.`;
  });
  if (s.keychain.available) parts.push('The key is kept in the system keychain.');
  else if (s.keyFile.inUse)
    parts.push(`No system keychain answers here, so the key is kept in a file only you can read: ${s.keyFile.path}.`);
  else parts.push(`No system keychain answers here (${s.keychain.reason ?? 'no reason given'}).`);
  parts.push(
    s.newStores === 'encrypted'
      ? 'New stores are encrypted.'
      : 'New stores are not encrypted: choose "Keep the Key in a File" when enabling encryption.',
  );
  return parts.join(' ');
}

/** Whether enabling needs the person to choose a key file first (no keychain, none chosen yet). */
export function needsKeyFileChoice(s: EncryptionStatus): boolean {
  return !s.keychain.available && !s.keyFile.inUse;
}

/** The question asked before keeping the key in a file. */
export function keyFileQuestion(s: EncryptionStatus): string {
  return (
    `No system keychain answers here${s.keychain.reason ? ` (${s.keychain.reason})` : ''}. ` +
    'The key can be kept in a file only you can read, in the store folder. Anyone who can read your files can then open the memory; ' +
    'export the recovery key too, so the memory can still be opened if that file is lost.'
  );
}

/** After a switch: what changed, and the stores another process must switch. */
export function switchedText(s: EncryptionStatus, on: boolean): string {
  const head = on ? 'Encryption is on; every memory is still there.' : 'Encryption is off: the store files are written plain again.';
  const elsewhere = s.stores
    .filter((st) => st.encrypted !== on && !st.ownedHere)
    .map((st) => `${STORE_NAME[st.store]} is written by another window or agent: run this there to switch it.`);
  return [head, ...elsewhere].join(' ');
}

/**
 * Said once at start-up where new stores are written plain because no keychain answers and no key
 * file was chosen (undefined: nothing to say), with the command that changes it.
 */
export function plainStoresNotice(s: EncryptionStatus): string | undefined {
  if (s.newStores !== 'plain' || s.keychain.available || s.keyFile.inUse) return undefined;
  const plain = s.stores.filter((st) => !st.encrypted).length;
  return (
    `No system keychain answers on this machine${s.keychain.reason ? ` (${s.keychain.reason})` : ''}, ` +
    `so new memory stores are not encrypted${plain ? " and this window's memory is written plain" : ''}. ` +
    'To encrypt them with the key kept in a file only you can read, run "Agent Memory: Enable Encryption…" and choose "Keep the Key in a File".'
  );
}

/** Where the window remembers what it said (VS Code's globalState: one for every window of the user). */
export interface SaidMemory {
  get(key: string): unknown;
  update(key: string, value: unknown): PromiseLike<void>;
}

/** globalState key: the plain-stores notice was said (cleared once it no longer applies: said again if it comes back). */
export const PLAIN_NOTICE_SAID = 'agentMemory.plainStoresNoticeSaid';

/**
 * Says `notice` (plainStoresNotice) once, not on every start: true when it was said now. Where
 * there is nothing to say the memory is cleared, so a keychain that later stops answering is
 * said again.
 */
export async function sayPlainStoresOnce(notice: string | undefined, memory: SaidMemory, say: (text: string) => void): Promise<boolean> {
  if (!notice) {
    if (memory.get(PLAIN_NOTICE_SAID) !== undefined) await memory.update(PLAIN_NOTICE_SAID, undefined);
    return false;
  }
  if (memory.get(PLAIN_NOTICE_SAID)) return false;
  await memory.update(PLAIN_NOTICE_SAID, true);
  say(notice);
  return true;
}

/** What the window says when the engine stopped because a store's key is missing, and the button that helps. */
export const IMPORT_RECOVERY_KEY = 'Import Recovery Key…';
