/** Memory pipeline v2 (docs/pipeline.md): extraction, decisions, controlled writes, reviews, undo, and the host object. */
export { MemoryPipeline, modeOf, type PipelineDeps } from './pipeline';
export { createExtractHandler, type ExtractDeps, type ExtractJobResult, type ExtractSettings } from './extractJob';
export {
  EXTRACTION_LIMITS,
  EXTRACTION_SCHEMA,
  FACT_TYPES,
  buildExtractionPrompt,
  extractFacts,
  validateExtraction,
  type ExtractedEntity,
  type ExtractedFact,
  type ExtractionResult,
  type FactType,
} from './extraction';
export {
  CANDIDATE_LIMIT,
  DECISION_ACTIONS,
  DECISION_SCHEMA,
  NO_CANDIDATES_REASON,
  buildDecisionPrompt,
  runShadowDecisions,
  validateDecision,
  type Candidate,
  type DecisionAction,
  type DecisionRun,
  type FindCandidates,
  type Proposal,
} from './decision';
export { applyPhaseCWrites, type ApplyContext, type ApplyResult, type Outcome, type OutcomeStatus, type WriteMode } from './apply';
export { createFtsCandidateFinder } from './ftsCandidates';
export { createSearchCandidateFinder, type CandidateSearch } from './searchCandidates';
export { parseLlmJson, stripFences, stripThink } from '../llm/parseJson';
export { approveReview, listPendingReviews, rejectReview, ReviewError, type PendingReview } from './reviews';
export { undoHistory, UndoError, type UndoResult } from './undo';
export { PIPELINE_WHO, PIPELINE_WHY, PROPOSAL_EVENT } from './audit';
