/**
 * Drives background tasks (src/core/util/backgroundTask.ts) with the engine's TaskDriver, as the
 * engine does: core objects set no timers, so a test that starts a worker drives it here.
 * Errors of steps are collected in `errors`; `stop()` clears the timers and waits for a step under way.
 */
import type { BackgroundTask } from '../../src/core/util/backgroundTask';
import { TaskDriver } from '../../src/engine/worker/scheduler';

export function driveTasks(tasks: BackgroundTask[]): { errors: unknown[]; stop(): Promise<void> } {
  const driver = new TaskDriver();
  const errors: unknown[] = [];
  driver.drive(tasks, (_task, e) => errors.push(e));
  return { errors, stop: () => driver.stop() };
}
