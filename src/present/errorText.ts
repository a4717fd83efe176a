/**
 * What every surface (VS Code notifications and views, chat, the CLI) says for each error code
 * of the catalogue (src/core/util/errorCatalogue.ts):
 * one sentence a person can act on, with the engine's own message kept as the detail (it names
 * the memory, the file, the limit). No vscode import, so it is tested directly.
 */
import type { EngineErrorCode } from '../engine/protocol';
import { EngineError } from '../engine/errors';
import { isErrorCode } from '../core/util/errorCatalogue';

/** A Record over the closed union: a new catalogue code does not compile until it has a sentence. */
export const ERROR_SENTENCES: Readonly<Record<EngineErrorCode, string>> = {
  invalid_input: 'The request was not valid.',
  not_found: 'It no longer exists; it may have been deleted meanwhile.',
  version_conflict: 'The memory changed meanwhile. Reload it and try again.',
  duplicate_content: 'A memory with exactly this content already exists.',
  project_id_invalid: 'The project id is not valid.',
  secret_detected: 'Not saved: it holds a secret (a key, a token or a password), and this store refuses secrets. Remove it and save again.',
  suggestion_resolved: 'This suggestion was already accepted or dismissed.',
  suggestion_stale: 'This suggestion is out of date: one of its memories was deleted, so it was dismissed.',
  review_invalid: 'This review can no longer be applied.',
  undo_refused: 'This change cannot be undone any more.',
  session_forgotten: 'That session was forgotten, so nothing more is recorded under its id.',
  document_fetch: 'The document could not be read.',
  document_too_large: 'The document is too large to ingest.',
  store_corrupt: 'The memory store is damaged.',
  schema_too_new: 'The memory store was written by a newer version of Agent Memory. Update the extension.',
  store_needs_migration: 'The memory store needs an upgrade that only the window owning it can apply.',
  store_locked: 'Another process is using the memory store.',
  store_key_missing: 'The memory store is encrypted and its key is not on this machine. Import its recovery key to open it.',
  store_key_wrong: 'The key found for the encrypted memory store does not open it. Import its recovery key to open it.',
  keychain_unavailable: 'No keychain answers here, so the encryption key has nowhere safe to be kept. Choose a key file to go on.',
  store_read_only: 'The memory store is read-only here, so nothing was changed.',
  disk_full: 'The disk is full: changes are not saved until space is freed.',
  io_error: 'Reading or writing the memory store failed.',
  webhook_not_ready: 'The webhook cannot send yet.',
  team_unreachable: 'The team memory server cannot be reached; your memory keeps working here and syncs when it is back.',
  team_not_connected: 'This project is not connected to team memory.',
  team_server_newer: 'The team memory server needs a newer Agent Memory.',
  team_wrong_project: 'That team schema belongs to another project.',
  unknown_method: 'This version of the memory engine does not know that request.',
  internal: 'Agent Memory hit an internal error. The log has the details.',
  cancelled: 'The operation was cancelled.',
  timeout: 'The memory engine took too long to answer.',
  engine_crashed: 'The memory engine stopped unexpectedly and is restarting. Check the change and try again.',
  engine_unavailable: 'The memory engine is not available.',
  engine_stopped: 'The memory engine is not running.',
  not_private: 'A folder or file the memory store needs is not private to you, so Agent Memory will not use it.',
  engine_closing: 'The process serving the memory store was closing, so nothing was changed. Try again.',
};

export interface ErrorText {
  code: EngineErrorCode | undefined;
  /** The sentence for the code (or the message itself for an error without a code). */
  sentence: string;
  /** The engine's message when it adds something to the sentence. */
  detail?: string;
}

function codeOf(e: unknown): EngineErrorCode | undefined {
  if (e instanceof EngineError) return e.code;
  const code = (e as { code?: unknown } | null)?.code;
  return isErrorCode(code) ? code : undefined;
}

export function errorText(e: unknown): ErrorText {
  const message = e instanceof Error ? e.message : String(e);
  const code = codeOf(e);
  if (!code) return { code, sentence: message };
  const sentence = ERROR_SENTENCES[code];
  return message && message !== sentence ? { code, sentence, detail: message } : { code, sentence };
}

/** `<sentence> (<engine message>)`: the error in one line (webview panels show it under their title). */
export function errorLine(e: unknown): string {
  const t = errorText(e);
  return t.detail ? `${t.sentence} (${t.detail})` : t.sentence;
}

/** `Agent Memory: <what>: <sentence> (<engine message>)`, the line a notification shows. */
export function errorNotification(what: string, e: unknown): string {
  return what ? `Agent Memory: ${what}: ${errorLine(e)}` : `Agent Memory: ${errorLine(e)}`;
}

/** A memory the person picked is gone (deleted or expired meanwhile): the sentence alone, no id. */
export function memoryGoneError(): EngineError {
  return new EngineError('not_found', ERROR_SENTENCES.not_found);
}
