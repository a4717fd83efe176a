/**
 * Every error code Agent Memory shows to a caller, in one closed list (ARCHITECTURE.md "Errors").
 * The core throws these through UserFacingError, the engine through EngineError, the protocol
 * carries them as EngineErrorCode, and each surface maps them to a sentence of its own
 * (src/present/errorText.ts). A code not listed here does not compile.
 *
 * `template` is the shape of the message thrown with the code ({name} = a value filled in at
 * the throw site; {reason} = a sentence written there); `formatErrorMessage` fills it where a
 * thrower has nothing more specific to say. `origin` says which layer throws it.
 *
 * Not in the list on purpose: the causes inside a layer (LlmError / OllamaError / EmbedderError codes such as
 * `unreachable`, CorruptIndexError reasons, TransientJobError). They are handled where they
 * arise (retry, rebuild, a warning); one that escapes reaches callers as `internal`.
 */
export interface ErrorEntry {
  /** Which layer throws it: the core, the engine's request handling, or the client side of the port. */
  origin: 'core' | 'engine' | 'client';
  template: string;
}

export const ERROR_CATALOGUE = {
  // Input and records (memory API, handlers)
  invalid_input: { origin: 'core', template: '{field}: {reason}' },
  not_found: { origin: 'core', template: 'No {what} with id {id}.' },
  version_conflict: {
    origin: 'core',
    template: 'Memory {id} changed meanwhile (expected version {expected}, found {actual}). Reload and try again.',
  },
  duplicate_content: { origin: 'core', template: 'Another memory ({existingId}) already has exactly this content.' },
  project_id_invalid: { origin: 'core', template: 'project id {reason}' },
  secret_detected: {
    origin: 'core',
    template: 'Not saved: the text holds {kinds}, and this store refuses memories with secrets. Remove it and save again.',
  },
  // Consolidation suggestions, pipeline reviews and undo
  suggestion_resolved: { origin: 'core', template: 'Suggestion {id} is already {status}.' },
  suggestion_stale: { origin: 'core', template: 'Suggestion {id} refers to a memory that was deleted; it was dismissed.' },
  review_invalid: { origin: 'core', template: '{reason}' },
  undo_refused: { origin: 'core', template: '{reason}' },
  // Agent sessions (docs/sessions.md)
  session_forgotten: {
    origin: 'core',
    template: 'Session {id} was forgotten on {date}: nothing more is recorded under its id. Start a new session.',
  },
  // Documents
  document_fetch: { origin: 'core', template: '{reason}' },
  document_too_large: { origin: 'core', template: 'The document is larger than {maxBytes} bytes (documentMaxContentBytes).' },
  // The store on disk
  store_corrupt: { origin: 'core', template: '{reason}' },
  schema_too_new: {
    origin: 'core',
    template: 'This memory store uses schema version {found}, written by a newer version of Agent Memory; update the extension to open it.',
  },
  store_needs_migration: {
    origin: 'core',
    template: 'This memory store needs schema migration {version}, which a read-only opener cannot apply.',
  },
  store_locked: { origin: 'core', template: 'The memory store at {dir} is in use by another process ({owner}).' },
  store_key_missing: {
    origin: 'core',
    template: 'The memory store at {dir} is encrypted, and its key is not available here: {reason}',
  },
  store_key_wrong: { origin: 'core', template: 'The key found for the encrypted memory store at {dir} does not open it: {reason}' },
  keychain_unavailable: {
    origin: 'core',
    template: 'No keychain answers on this machine ({reason}); the encryption key has nowhere safe to be kept.',
  },
  store_read_only: { origin: 'core', template: 'The memory store is open read-only: {reason}' },
  disk_full: {
    origin: 'core',
    template: 'The disk holding the memory store at {dir} is full; changes are not saved until space is freed.',
  },
  io_error: { origin: 'core', template: 'Reading or writing the memory store at {dir} failed: {reason}' },
  // Team memory (docs/team.md)
  team_unreachable: { origin: 'core', template: 'The team memory server at {server} cannot be reached: {reason}' },
  team_not_connected: { origin: 'core', template: 'This project is not connected to a team memory server. {reason}' },
  team_server_newer: {
    origin: 'core',
    template: "The team server's memory schema is version {found}, newer than this Agent Memory understands; update Agent Memory.",
  },
  team_wrong_project: {
    origin: 'core',
    template: 'The team schema {schema} holds the memory of another project; choose another schema name.',
  },
  // The engine and its port
  webhook_not_ready: { origin: 'engine', template: 'Webhook {name} cannot send yet: {reason}' },
  unknown_method: { origin: 'engine', template: 'Unknown engine method "{method}".' },
  internal: { origin: 'engine', template: 'Agent Memory hit an internal error: {reason}' },
  cancelled: { origin: 'client', template: 'The operation was cancelled.' },
  timeout: { origin: 'client', template: 'The memory engine did not answer "{method}" within {ms} ms.' },
  engine_crashed: { origin: 'client', template: 'The memory engine stopped unexpectedly ({reason}); it is restarting.' },
  engine_unavailable: { origin: 'client', template: 'The memory engine is not available: {reason}' },
  engine_stopped: { origin: 'client', template: 'The memory engine is not running.' },
  not_private: { origin: 'client', template: 'A folder or file of the memory store is not private to you: {reason}' },
  // A store's owner that is closing refuses what it can no longer finish; clients send it again to the next owner.
  engine_closing: { origin: 'engine', template: 'The process serving the memory store at {dir} is closing; the request was not run.' },
} as const satisfies Record<string, ErrorEntry>;

/** The closed union of error codes. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

export function isErrorCode(x: unknown): x is ErrorCode {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, x);
}

/** The code's template with `{name}` filled from `values`; a missing value keeps its `{name}`. */
export function formatErrorMessage(code: ErrorCode, values: Record<string, string | number> = {}): string {
  return ERROR_CATALOGUE[code].template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
