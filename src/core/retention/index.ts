export {
  RETENTION_BATCH,
  RETENTION_STEPS,
  runRetentionSweep,
  type RetentionReport,
  type RetentionStep,
  type RetentionWindows,
} from './sweep';
export { RetentionWorker } from './worker';
