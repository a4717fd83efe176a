export { getDiagnostics, healthScore, type DiagnosticsReport } from './diagnostics';
export { buildRecommendations, REPAIR_ACTIONS, type Recommendation, type RepairAction } from './recommendations';
export { HALT_AFTER, HaltTracker, RepairRateLimiter, type RateLimit } from './limits';
export { MaintenanceWorker, type MaintenanceCycle, type MaintenanceSettings, type RepairRun } from './worker';
