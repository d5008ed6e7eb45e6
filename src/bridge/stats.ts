/** Per-run call counters reported with every result. */
import { RISK_CLASSES, type RiskClass } from '../schema/model.js';

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
}

export function emptyCounts(): CallCounts {
  const byRisk = {} as Record<RiskClass, number>;
  for (const r of RISK_CLASSES) byRisk[r] = 0;
  return { byRisk, total: 0, denied: 0, invalid: 0, planned: 0, needsApproval: 0, taskWaits: 0 };
}
