/**
 * The encryption commands of the palette (docs/encryption.md), the same as `agent-memory
 * encryption …`: status, enable, disable, rotate, export and import of the recovery key. They
 * go to the engine, which passes them to the store's owner. Each takes its answers as an argument
 * (tests) or asks; each returns its outcome.
 */
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { EngineClient } from '../../engine/client/engineClient';
import type { EncryptionStatus } from '../../engine/protocol';
import { keyFileIn, userKeyring } from '../../core/crypto/osKeychain';
import { parseRecoveryKey } from '../../core/crypto/recoveryKey';
import { userKey } from '../../core/crypto/userKeys';
import { errorLine } from '../../present/errorText';
import type { Logger } from '../host/log';
import { commandRegistrar } from '../common/commandTable';
import {
  encryptionStatusText,
  keyFileQuestion,
  needsKeyFileChoice,
  plainStoresNotice,
  sayPlainStoresOnce,
  switchedText,
} from './encryptionText';

export const ENCRYPTION_COMMANDS = {
  status: 'agentMemory.encryptionStatus',
  enable: 'agentMemory.enableEncryption',
  disable: 'agentMemory.disableEncryption',
  rotate: 'agentMemory.rotateEncryptionKey',
  exportRecoveryKey: 'agentMemory.exportRecoveryKey',
  importRecoveryKey: 'agentMemory.importRecoveryKey',
} as const;

const KEY_FILE = 'Keep the Key in a File';

/** `keyFile` given: used; else asked where no keychain answers and none was chosen (undefined: cancelled). */
async function keyFileChoice(status: EncryptionStatus, given: boolean | undefined): Promise<boolean | undefined> {
  if (given !== undefined || !needsKeyFileChoice(status)) return given ?? false;
  const pick = await vscode.window.showWarningMessage(keyFileQuestion(status), { modal: true }, KEY_FILE);
  return pick === KEY_FILE ? true : undefined;
}

const ENABLE = 'Enable Encryption…';

/**
 * Once the engine is first ready, says where new stores are written plain because no keychain
 * answers: once, not on every start (globalState remembers it for every window of the user).
 */
function notePlainStores(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): void {
  let checked = false;
  const say = (notice: string) =>
    void vscode.window.showInformationMessage(`Agent Memory: ${notice}`, ENABLE).then((pick) => {
      if (pick === ENABLE) void vscode.commands.executeCommand(ENCRYPTION_COMMANDS.enable);
    });
  context.subscriptions.push(
    engine.onStateChange((st) => {
      if (st.state !== 'ready' || checked) return;
      checked = true;
      void engine.request('encryption.status', {}).then(
        async (s) => {
          const notice = plainStoresNotice(s);
          const said = await sayPlainStoresOnce(notice, context.globalState, say);
          // Logged once the window decided (the UI test of the once-only notice waits for it).
          if (notice) log.info(`encryption: ${notice}${said ? '' : ' (said at an earlier start: not shown again)'}`);
          else log.info(`encryption: new stores are ${s.newStores === 'encrypted' ? 'encrypted' : 'written plain'}`);
        },
        (e: unknown) => log.info(`encryption: the status could not be read at start-up (${errorLine(e)})`),
      );
    }),
  );
}

export function registerEncryptionCommands(context: vscode.ExtensionContext, engine: EngineClient, log: Logger): void {
  const run = commandRegistrar(context, log);
  notePlainStores(context, engine, log);

  run(ENCRYPTION_COMMANDS.status, 'show encryption status', async () => {
    const s = await engine.request('encryption.status', {});
    void vscode.window.showInformationMessage(encryptionStatusText(s));
    return s;
  });

  run(ENCRYPTION_COMMANDS.enable, 'enable encryption', async (opts?: { keyFile?: boolean }) => {
    const keyFile = await keyFileChoice(await engine.request('encryption.status', {}), opts?.keyFile);
    if (keyFile === undefined) return undefined;
    const s = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Encrypting the memory store…' },
      () => engine.request('encryption.enable', { keyFile }),
    );
    void vscode.window.showInformationMessage(switchedText(s, true));
    return s;
  });

  run(ENCRYPTION_COMMANDS.disable, 'disable encryption', async (opts?: { confirmed?: boolean }) => {
    if (!opts?.confirmed) {
      const pick = await vscode.window.showWarningMessage(
        'Write the memory store without encryption? Its files will then be readable by anyone who can read your files.',
        { modal: true },
        'Disable Encryption',
      );
      if (pick !== 'Disable Encryption') return undefined;
    }
    const s = await engine.request('encryption.disable', {});
    void vscode.window.showInformationMessage(switchedText(s, false));
    return s;
  });

  run(ENCRYPTION_COMMANDS.rotate, 'rotate the encryption key', async (opts?: { keyFile?: boolean }) => {
    const keyFile = await keyFileChoice(await engine.request('encryption.status', {}), opts?.keyFile);
    if (keyFile === undefined) return undefined;
    const s = await engine.request('encryption.rotate', { keyFile });
    void vscode.window.showInformationMessage(
      'A new key now protects the memory store; the old key and its recovery key no longer open it. Export the new recovery key.',
    );
    return s;
  });

  run(ENCRYPTION_COMMANDS.exportRecoveryKey, 'export the recovery key', async (opts?: { file?: string }) => {
    const r = await engine.request('encryption.exportRecoveryKey', {});
    const text = `${r.recoveryKey}\n`;
    let target = opts?.file;
    if (!target) {
      const pick = await vscode.window.showWarningMessage(
        'The recovery key opens the memory store on any machine. Keep it somewhere safe, away from the store.',
        { modal: true },
        'Save to File…',
        'Copy to Clipboard',
      );
      if (pick === 'Copy to Clipboard') {
        await vscode.env.clipboard.writeText(r.recoveryKey);
        void vscode.window.showInformationMessage(
          'The recovery key is on the clipboard: paste it where you keep it, then clear the clipboard.',
        );
        return { copied: true };
      }
      if (pick !== 'Save to File…') return undefined;
      target = (await vscode.window.showSaveDialog({ saveLabel: 'Save Recovery Key', filters: { Text: ['txt'] } }))?.fsPath;
      if (!target) return undefined;
    }
    fs.writeFileSync(target, text, { mode: 0o600 });
    fs.chmodSync(target, 0o600);
    void vscode.window.showInformationMessage(`The recovery key is saved in ${target}, readable by you only.`);
    return { file: target };
  });

  run(ENCRYPTION_COMMANDS.importRecoveryKey, 'import a recovery key', async (opts?: { recoveryKey?: string; keyFile?: boolean }) => {
    const text =
      opts?.recoveryKey ??
      (await vscode.window.showInputBox({
        title: 'Import Recovery Key',
        prompt: 'The recovery key that opens the memory store (it starts with AMRK-)',
        password: true,
        ignoreFocusOut: true,
        validateInput: (v) => {
          const p = parseRecoveryKey(v);
          return v.trim() && 'error' in p ? p.error : undefined;
        },
      }));
    if (!text) return undefined;
    const parsed = parseRecoveryKey(text);
    if ('error' in parsed) throw new Error(`That is not a recovery key: ${parsed.error}. Nothing was kept.`);
    const init = engine.currentInit;
    const keys = userKeyring(keyFileIn(init.home ?? init.globalStorageDir ?? init.storageDir));
    const chain = keys.keychainState();
    const keyFile = opts?.keyFile ?? (chain.ok ? false : await keyFileChoice(noKeychain(chain.why, keys.keyFileExists()), undefined));
    if (keyFile === undefined) return undefined;
    const kept = keys.keep(userKey(parsed.key), keyFile, false, 'the "Import Recovery Key" command');
    await engine.restart();
    void vscode.window.showInformationMessage(`The recovery key is kept in ${kept.source}; the memory store opens with it now.`);
    return { keptIn: kept.source };
  });
}

/** The part of a status keyFileChoice reads, where the engine cannot answer (its store's key is missing). */
function noKeychain(reason: string, keyFileInUse: boolean): EncryptionStatus {
  return { stores: [], keychain: { available: false, reason }, keyFile: { inUse: keyFileInUse }, newStores: 'plain' };
}
