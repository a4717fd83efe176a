/**
 * Encryption at rest of the engine's stores (docs/encryption.md): status, enable, disable, key
 * rotation and the recovery key. Only stores this engine writes are switched; one another process
 * owns is named in the answer, to be switched there.
 */
import { formatRecoveryKey } from '../../../core/crypto/recoveryKey';
import { encryptionInfo } from '../../../core/store/storeCrypt';
import { rewrapStoreKey } from '../../../core/store/storeCrypt';
import type { UserKey } from '../../../core/crypto/userKeys';
import { UserFacingError } from '../../../core/util/errors';
import type { EngineContext } from '../context';
import type { EncryptionStatus, MemoryScope, StoreName } from '../../protocol';
import type { StoreRuntime } from '../runtime/storeRuntime';

export class EncryptionService {
  constructor(private readonly ctx: EngineContext) {}

  private get keys() {
    return this.ctx.stores.keys;
  }

  status(): EncryptionStatus {
    const chain = this.keys.keychainState();
    const where = this.keys.whereToKeep(false);
    const stores = (['project', 'global'] as StoreName[]).map((name) => {
      const store = this.ctx.stores.store(name);
      const info = encryptionInfo(store.dir);
      return {
        store: name,
        dir: store.dir,
        encrypted: info.encrypted,
        ...(info.userKeyId ? { userKeyId: info.userKeyId } : {}),
        ...(info.since ? { since: new Date(info.since).toISOString() } : {}),
        ownedHere: !store.isReadOnly,
      };
    });
    return {
      stores,
      keychain: chain.ok ? { available: true } : { available: false, reason: chain.why },
      keyFile: { ...(this.keys.keyFile ? { path: this.keys.keyFile } : {}), inUse: this.keys.keyFileExists() },
      newStores: where ? 'encrypted' : 'plain',
      ...(where ? {} : { note: this.keys.noKeychainSentence() }),
    };
  }

  /** The runtimes of `scope` (both when undefined), split into those this engine writes and the others. */
  private targets(scope: MemoryScope | undefined): StoreRuntime[] {
    return this.ctx.stores.forScope(scope).filter((rt) => !rt.store.isReadOnly);
  }

  /** Encrypts the stores of `scope` that are plain, under the current user key (made, and kept, when there is none). */
  async enable(p: { keyFile?: boolean; scope?: MemoryScope }): Promise<EncryptionStatus> {
    const user = this.userKey(!!p.keyFile);
    for (const rt of this.targets(p.scope)) {
      if (encryptionInfo(rt.store.dir).encrypted) continue;
      await rt.snapshot(); // the vector index saved first: nothing half-written in the old form afterwards
      rt.store.switchEncryption({ user, keys: this.keys });
      await rt.snapshot(); // the vector index in the new form now, rather than at the next idle snapshot
    }
    return this.status();
  }

  /** Writes the stores of `scope` plain again. */
  async disable(p: { scope?: MemoryScope }): Promise<EncryptionStatus> {
    for (const rt of this.targets(p.scope)) {
      if (!encryptionInfo(rt.store.dir).encrypted) continue;
      await rt.snapshot();
      rt.store.switchEncryption(undefined);
      await rt.snapshot();
    }
    return this.status();
  }

  /** A new user key, made current; the encrypted stores' data keys rewrapped under it (their files stay as they are). */
  rotate(p: { keyFile?: boolean }): EncryptionStatus {
    const encrypted = this.targets(undefined).filter((rt) => encryptionInfo(rt.store.dir).encrypted);
    if (!encrypted.length) throw new UserFacingError('No store here is encrypted, so there is no key to rotate.', 'invalid_input');
    const next = this.keys.create(!!p.keyFile).key;
    for (const rt of encrypted) rewrapStoreKey(rt.store.dir, this.keys, next);
    return this.status();
  }

  /** The recovery key of the user key the project store (else the global one) is encrypted under. */
  exportRecoveryKey(): { recoveryKey: string; userKeyId: string; stores: StoreName[] } {
    const infos = (['project', 'global'] as StoreName[]).map((name) => ({ name, info: encryptionInfo(this.ctx.stores.store(name).dir) }));
    const first = infos.find((x) => x.info.encrypted);
    if (!first) throw new UserFacingError('No store here is encrypted, so there is no recovery key to export.', 'invalid_input');
    const id = first.info.userKeyId!;
    const found = this.keys.find(id);
    if (!found) throw new UserFacingError(`The key ${id} that encrypts this store is not available here.`, 'store_key_missing');
    return {
      recoveryKey: formatRecoveryKey(found.key.key),
      userKeyId: id,
      stores: infos.filter((x) => x.info.userKeyId === id).map((x) => x.name),
    };
  }

  private userKey(useKeyFile: boolean): UserKey {
    return (this.keys.current() ?? this.keys.create(useKeyFile)).key;
  }
}
