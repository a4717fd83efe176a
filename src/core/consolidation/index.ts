/** Memory consolidation (docs/consolidation.md): smart store (auto-merge / suggestions), review, dedup scanner. */
export { SmartStore, type AcceptResult, type SmartStoreDeps, type SmartStoreResult, type StoreAction } from './smartStore';
export { mergeContent, splitSentences, normalizeSentence, isMergeStrategy, MERGE_STRATEGIES, type MergeSide } from './merge';
export { checkSettings, consolidationSettingsFrom, DEFAULT_CONSOLIDATION, type ConsolidationSettings } from './settings';
export {
  consolidationLog,
  getSuggestion,
  listSuggestions,
  type ConsolidationLogEntry,
  type Suggestion,
  type SuggestionStatus,
} from './records';
export { runDedupScan, scanForDuplicates, type ScanOptions, type ScanResult } from './scanner';
