/**
 * Keyrings for tests: a real key file in a temporary folder (the path every test can take), and
 * a keychain held in memory standing in for the OS keychain, which does not answer on a headless
 * machine (@napi-rs/keyring has no test backend of its own).
 */
import * as path from 'node:path';
import { UserKeyring, type KeychainBackend } from '../../src/core/crypto/userKeys';
import { tmpDir } from './tmp';

export function fileKeyring(dir = tmpDir('am-keys-'), env: Record<string, string | undefined> = {}): UserKeyring {
  return new UserKeyring({ keyFile: path.join(dir, 'keys', 'user-keys.json'), keychainError: 'no keychain in this test', env });
}

export class MemoryKeychain implements KeychainBackend {
  readonly entries = new Map<string, string>();
  get(account: string): string | null {
    return this.entries.get(account) ?? null;
  }
  set(account: string, secret: string): void {
    this.entries.set(account, secret);
  }
}

export function keychainKeyring(
  keychain: KeychainBackend = new MemoryKeychain(),
  env: Record<string, string | undefined> = {},
): UserKeyring {
  return new UserKeyring({ keychain, keyFile: path.join(tmpDir('am-keys-'), 'user-keys.json'), env });
}
