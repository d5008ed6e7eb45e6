/**
 * Per-run budget: how many calls of each risk class, how many calls in all (every attempt,
 * including invalid and denied ones, so a script cannot probe the policy in a loop), how many
 * distinct guests writes may touch, and how long the run may spend waiting for tasks. The limits
 * are the policy's (`policy.budget`, src/policy/budget-limits.ts); this counts a run against them.
 */
import { resolveBudgetLimits, type BudgetLimits } from '../policy/budget-limits.js';
import { RISK_CLASSES, type RiskClass } from '../schema/model.js';

export interface UsageEntry {
  used: number;
  limit: number;
}

export type BudgetUsage = Record<RiskClass | 'calls' | 'guests' | 'taskWaitMs', UsageEntry>;

/** Why a charge was refused; `message` is ready for the agent. */
export interface BudgetRefusal {
  limit: keyof BudgetLimits;
  message: string;
}

export class Budget {
  private readonly used: Record<RiskClass | 'calls', number> = { read: 0, write: 0, destructive: 0, privileged: 0, calls: 0 };
  private readonly guests = new Set<number>();
  private waitedMs = 0;

  constructor(readonly limits: BudgetLimits = resolveBudgetLimits()) {}

  /** Count one bridge attempt before anything else is known about it (it may turn out invalid). */
  chargeAttempt(): BudgetRefusal | undefined {
    this.used.calls++;
    if (this.used.calls > this.limits.calls) {
      return this.refusal('calls', `call budget used up (${this.limits.calls} calls per run)`);
    }
    return undefined;
  }

  /**
   * Count one resolved call: an attempt, then a call of its class (`chargeAttempt` then
   * `chargeRisk`, in one step); a refusal by `calls` counts nothing of the class.
   */
  chargeCall(risk: RiskClass): BudgetRefusal | undefined {
    return this.chargeAttempt() ?? this.chargeRisk(risk);
  }

  /** Count one call of a risk class (denied calls count too). */
  chargeRisk(risk: RiskClass): BudgetRefusal | undefined {
    this.used[risk]++;
    if (this.used[risk] > this.limits[risk]) {
      return this.refusal(risk, `${risk} budget used up (${this.limits[risk]} ${risk} calls per run)`);
    }
    return undefined;
  }

  /**
   * A call found to be of a higher class once its guests were looked up (the shutdown of an
   * HA-managed guest): its count moves to that class, whose limit then applies.
   */
  raiseRisk(from: RiskClass, to: RiskClass): BudgetRefusal | undefined {
    if (from === to) return undefined;
    this.used[from]--;
    return this.chargeRisk(to);
  }

  /**
   * Record the guests a write targets; refuses (without recording) when the new ones would exceed
   * the distinct-guest limit.
   */
  touchGuests(vmids: readonly number[]): BudgetRefusal | undefined {
    const fresh = [...new Set(vmids)].filter((v) => !this.guests.has(v));
    if (this.guests.size + fresh.length > this.limits.guests) {
      return this.refusal('guests', `guest budget used up: this call would touch ${this.guests.size + fresh.length} distinct guests (limit ${this.limits.guests} per run)`);
    }
    for (const v of fresh) this.guests.add(v);
    return undefined;
  }

  /** Milliseconds of task waiting still available. */
  remainingWaitMs(): number {
    return Math.max(0, this.limits.taskWaitMs - this.waitedMs);
  }

  chargeWait(ms: number): void {
    this.waitedMs += Math.max(0, ms);
  }

  waitRefusal(): BudgetRefusal {
    return this.refusal('taskWaitMs', `task-wait budget used up (${this.limits.taskWaitMs} ms per run)`);
  }

  usage(): BudgetUsage {
    const out = {} as BudgetUsage;
    for (const r of RISK_CLASSES) out[r] = { used: this.used[r], limit: this.limits[r] };
    out.calls = { used: this.used.calls, limit: this.limits.calls };
    out.guests = { used: this.guests.size, limit: this.limits.guests };
    out.taskWaitMs = { used: Math.round(this.waitedMs), limit: this.limits.taskWaitMs };
    return out;
  }

  private refusal(limit: keyof BudgetLimits, what: string): BudgetRefusal {
    return { limit, message: `${what}; split the work into several runs or ask the operator to raise policy.budget.${limit}` };
  }
}

/**
 * One budget per cluster a run reaches: a call is charged to the budget of the cluster it goes to,
 * with that cluster's policy limits, whatever cluster the run started on.
 */
export class Budgets {
  private readonly byCluster = new Map<string, Budget>();

  constructor(
    readonly defaultCluster: string,
    private readonly limitsFor: (cluster: string) => BudgetLimits,
  ) {}

  for(cluster: string): Budget {
    let budget = this.byCluster.get(cluster);
    if (!budget) {
      budget = new Budget(this.limitsFor(cluster));
      this.byCluster.set(cluster, budget);
    }
    return budget;
  }

  /** The run's own cluster. */
  usage(): BudgetUsage {
    return this.for(this.defaultCluster).usage();
  }

  /** Every cluster the run reached, when it reached more than its own. */
  usageByCluster(): Record<string, BudgetUsage> | undefined {
    if ([...this.byCluster.keys()].every((c) => c === this.defaultCluster)) return undefined;
    return Object.fromEntries([...this.byCluster].map(([c, b]) => [c, b.usage()]));
  }
}
