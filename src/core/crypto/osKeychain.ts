/**
 * The OS keychain through @napi-rs/keyring (prebuilt per platform, shipped in npm): Keychain on
 * macOS, Credential Manager on Windows, the Secret Service (GNOME Keyring, KWallet) on Linux.
 * On Linux the Secret Service is required: the package's fallback, the kernel keyring, forgets
 * everything at reboot, and a forgotten key would lose the store. Where it does not answer
 * (headless Linux, CI) the keyring says so (userKeys.ts).
 */
import * as path from 'node:path';
import { errorMessage } from '../util/errors';
import { UserKeyring, type KeychainBackend } from './userKeys';

const SERVICE = 'Agent Memory';

interface EntryLike {
  getPassword(): string | null;
  setPassword(password: string): void;
}
type EntryCtor = new (service: string, user: string, options?: { linux?: { store?: string } }) => EntryLike;

let loaded: { Entry: EntryCtor } | { error: string } | undefined;

function loadKeyring(): { Entry: EntryCtor } | { error: string } {
  if (loaded) return loaded;
  try {
    // Loaded lazily with require() (kept external by the bundler: it loads a prebuilt binary of
    // the platform), so a platform without one still opens plain stores.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    loaded = { Entry: (require('@napi-rs/keyring') as { Entry: EntryCtor }).Entry };
  } catch (e) {
    loaded = { error: `the keychain package could not be loaded: ${errorMessage(e)}` };
  }
  return loaded;
}

/** The OS keychain, or why there is none. */
export function osKeychain(): { keychain: KeychainBackend } | { error: string } {
  const k = loadKeyring();
  if ('error' in k) return k;
  const entry = (name: string) => new k.Entry(SERVICE, name, { linux: { store: 'secret-service' } });
  return {
    keychain: {
      get: (name) => plainly(() => entry(name).getPassword()),
      set: (name, secret) => plainly(() => entry(name).setPassword(secret)),
    },
  };
}

/** The keychain's failure in words a person can act on (a missing D-Bus session is the usual one on Linux). */
function plainly<T>(call: () => T): T {
  try {
    return call();
  } catch (e) {
    const m = errorMessage(e);
    if (/dbus/i.test(m)) throw new Error('no Secret Service answers: there is no desktop session (D-Bus) here', { cause: e });
    throw e;
  }
}

/** The keyring every process of the user builds the same way: key file `keyFile` (AGENT_MEMORY_KEY_FILE overrides). */
export function userKeyring(keyFile: string | undefined, env: Record<string, string | undefined> = process.env): UserKeyring {
  // AGENT_MEMORY_KEYCHAIN=off: the keychain is not asked (the test runner sets it, so tests never touch a developer's keychain).
  const k = env.AGENT_MEMORY_KEYCHAIN === 'off' ? { error: 'the keychain is turned off (AGENT_MEMORY_KEYCHAIN=off)' } : osKeychain();
  return new UserKeyring({
    ...('keychain' in k ? { keychain: k.keychain } : { keychainError: k.error }),
    keyFile: env.AGENT_MEMORY_KEY_FILE || keyFile,
    env,
  });
}

/**
 * The key file of the stores under `base` (the store home, or the folder of the per-window
 * stores): `<base>/keys/user-keys.json`. The engine, the CLI and the extension's commands name the
 * same one.
 */
export function keyFileIn(base: string | undefined): string | undefined {
  return base ? path.join(base, 'keys', 'user-keys.json') : undefined;
}
