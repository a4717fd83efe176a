/**
 * What the encryption commands say (docs/encryption.md), free of vscode so it is tested as text:
 * whether each store is encrypted, where the key is kept, and what to do where no keychain answers.
 */
import type { EncryptionStatus, StoreName } from '../engine/protocol';

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
