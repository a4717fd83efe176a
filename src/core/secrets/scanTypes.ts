/** What Scan Memories for Secrets found in one store (src/core/maintenance/secretScan.ts, docs/secrets.md). */
import type { SecretKind } from './rules';

export interface SecretScanResult {
  /** Different secrets found, per kind (the same key in a memory, its history and its indexes counts once). */
  kinds: Partial<Record<SecretKind, number>>;
  /** Text values (a column of a row) holding one or more. */
  places: number;
  /** Ids of the memories whose own row held a credential. */
  memoryIds: string[];
  /** Ids of memories whose history held one (their row may be clean now). */
  historyOf: string[];
  /** Text values changed (0 when only reporting). */
  redactedValues: number;
  /** Memories that lost their vector and wait to be embedded again. */
  reembed: number;
}
