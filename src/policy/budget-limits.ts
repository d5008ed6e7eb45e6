/**
 * The per-run budget limits a policy declares (`policy.budget`): how many calls of each risk
 * class, how many calls in all, how many distinct guests writes may touch, and how long a run may
 * spend waiting for tasks. src/safety/budget.ts counts a run against them.
 */

export interface BudgetLimits {
  read: number;
  write: number;
  destructive: number;
  privileged: number;
  calls: number;
  guests: number;
  taskWaitMs: number;
}

export const DEFAULT_BUDGET: Readonly<BudgetLimits> = Object.freeze({
  read: 500,
  write: 20,
  destructive: 5,
  privileged: 2,
  calls: 1000,
  guests: 10,
  taskWaitMs: 15 * 60_000,
});

export function resolveBudgetLimits(partial: Partial<BudgetLimits> = {}): BudgetLimits {
  const out = { ...DEFAULT_BUDGET };
  for (const key of Object.keys(out) as Array<keyof BudgetLimits>) {
    const v = partial[key];
    if (typeof v === 'number') out[key] = v;
  }
  return out;
}
