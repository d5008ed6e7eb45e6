/** Per-run call counters reported with every result. */
import { RISK_CLASSES, type HttpMethod, type RiskClass } from '../schema/model.js';
import type { CallOutcome } from '../client/outcome.js';

/** A change whose outcome the run could not learn: the agent must look before repeating it. */
export interface UnsettledChange {
  cluster: string;
  method: HttpMethod;
  path: string;
  upid?: string;
}

/** How many `unsettled` entries a result carries; the count in `changes.unknown` stays exact. */
export const MAX_UNSETTLED_LISTED = 20;

/** How many tainted sources a result names; `taintedUnlisted` counts the calls past them. */
export const MAX_TAINTED_LISTED = 20;

export interface CallCounts {
  /** Calls by (effective) risk class, whatever their outcome. */
  byRisk: Record<RiskClass, number>;
  /** All attempts, including malformed ones. */
  total: number;
  /** Refused by policy or scope. */
  denied: number;
  /** Malformed calls (bad path, params, unknown operation). */
  invalid: number;
  /** Writes recorded instead of sent (dry-run). */
  planned: number;
  /** Writes refused for lack of approval or for deviating from the approved plan. */
  needsApproval: number;
  /** `waitTask` calls. */
  taskWaits: number;
  /** Changes (every class but read) that reached the send step in a live or approved run, by outcome. */
  changes: Record<CallOutcome, number>;
  /** The changes counted as `unknown` (the first `MAX_UNSETTLED_LISTED`). */
  unsettled: UnsettledChange[];
  /**
   * Where answers carried text guests or other people control (src/policy/taint.ts):
   * `GET /nodes/pve1/qemu/101/config: description`, distinct, the first `MAX_TAINTED_LISTED`.
   */
  tainted: string[];
  /** Calls whose answer carried such text from a source not in `tainted` (the list was full). */
  taintedUnlisted: number;
}

export function emptyCounts(): CallCounts {
  const byRisk = {} as Record<RiskClass, number>;
  for (const r of RISK_CLASSES) byRisk[r] = 0;
  return {
    byRisk,
    total: 0,
    denied: 0,
    invalid: 0,
    planned: 0,
    needsApproval: 0,
    taskWaits: 0,
    changes: { done: 0, failed: 0, 'not-sent': 0, unknown: 0 },
    unsettled: [],
    tainted: [],
    taintedUnlisted: 0,
  };
}

export function countChange(counts: CallCounts, outcome: CallOutcome, change: UnsettledChange): void {
  counts.changes[outcome]++;
  if (outcome === 'unknown' && counts.unsettled.length < MAX_UNSETTLED_LISTED) counts.unsettled.push(change);
}

export function countTainted(counts: CallCounts, source: string): void {
  if (counts.tainted.includes(source)) return;
  if (counts.tainted.length < MAX_TAINTED_LISTED) counts.tainted.push(source);
  else counts.taintedUnlisted++;
}
