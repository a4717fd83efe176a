/**
 * Guards against runaway repairs: a per-action cooldown and hourly budget, and the halt
 * tracker — an action that fails to improve the health score 3 runs in a row is halted for
 * the worker's lifetime; a cycle with nothing to repair resets it.
 */
import type { RepairAction } from './recommendations';

export interface RateLimit {
  cooldownMs: number;
  hourlyBudget: number;
}

export class RepairRateLimiter {
  private readonly runs = new Map<RepairAction, number[]>();
  constructor(private readonly limits: (a: RepairAction) => RateLimit) {}

  /** Why the action may not run now, or undefined when it may. */
  blocked(action: RepairAction, now: number): string | undefined {
    const { cooldownMs, hourlyBudget } = this.limits(action);
    const times = (this.runs.get(action) ?? []).filter((t) => now - t < 3_600_000);
    this.runs.set(action, times);
    const last = times[times.length - 1];
    if (last !== undefined && now - last < cooldownMs) return `cooldown (${Math.ceil((cooldownMs - (now - last)) / 1000)} s left)`;
    if (times.length >= hourlyBudget) return `hourly budget of ${hourlyBudget} used`;
    return undefined;
  }

  record(action: RepairAction, now: number): void {
    const times = this.runs.get(action) ?? [];
    times.push(now);
    this.runs.set(action, times);
  }
}

export const HALT_AFTER = 3;

export class HaltTracker {
  private readonly nonImproving = new Map<RepairAction, number>();
  private readonly halted = new Set<RepairAction>();

  isHalted(a: RepairAction): boolean {
    return this.halted.has(a);
  }

  haltedActions(): RepairAction[] {
    return [...this.halted];
  }

  /** Record one run of `a` and whether the score improved. Returns true when it just got halted. */
  record(a: RepairAction, improved: boolean): boolean {
    if (improved) {
      this.nonImproving.set(a, 0);
      return false;
    }
    const n = (this.nonImproving.get(a) ?? 0) + 1;
    this.nonImproving.set(a, n);
    if (n >= HALT_AFTER && !this.halted.has(a)) {
      this.halted.add(a);
      return true;
    }
    return false;
  }

  consecutive(a: RepairAction): number {
    return this.nonImproving.get(a) ?? 0;
  }

  /** Health is good: start counting afresh. Halted actions stay halted (worker lifetime). */
  reset(): void {
    this.nonImproving.clear();
  }
}
