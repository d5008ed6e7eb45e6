/**
 * What the bridge's steps share: the deps a handler is made from, the run's state kept beside
 * them (`Runtime`), and the few answers every step gives (a `Refusal`, the cluster a call reaches,
 * a budget's refusal, the taint mark on an answer). They live apart from the handler so that its
 * steps (write.ts, plan-steps.ts, undo-steps.ts, task-wait.ts) use them without importing the
 * handler that calls them.
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import type { BudgetRefusal, Budgets } from '../safety/budget.js';
import type { ClusterHandle, RunClusters } from '../policy/clusters.js';
import type { GuestDirectory } from '../policy/guests.js';
import type { IdentityGuard } from '../safety/identity.js';
import type { PlanBinding, PlanRecorder } from '../safety/plan.js';
import type { SecretScrubber } from '../safety/redact.js';
import type { ResolvedRequest } from '../policy/request.js';
import type { BridgeError } from './protocol.js';
import { countTainted, type CallCounts } from './stats.js';
import { taintedParts, taintSource } from '../policy/taint.js';
import type { RecordedChange } from '../safety/undo.js';

export type RunMode = 'live' | 'dry-run' | 'approved';

/**
 * Where call records go: the part of the audit's `AuditSink` (src/audit/sink.ts: the files or
 * PostgreSQL) the bridge writes through; any object with these methods serves (tests, wrappers).
 */
export interface CallAudit {
  append(type: 'call', data: Record<string, unknown>): unknown;
  /**
   * Write a change's intent before it is sent; durable when it returns (its `seq` links the
   * outcome to it). Throws when the audit cannot take it: the change is then not sent.
   */
  intend(data: Record<string, unknown>): { seq: number };
}

export interface TaskProgressEvent {
  cluster: string;
  upid: string;
  status: string;
  lines: string[];
}

export interface BridgeDeps {
  /** Ties call records to the run record in the audit. */
  runId: string;
  /**
   * The clusters the run reaches, resolved once each: a call on cluster X is resolved against X's
   * model, decided by X's policy and sent with X's client of its class. A cluster it cannot reach
   * is reported to the script as `invalid`.
   */
  clusters: RunClusters;
  /** Each cluster's budget, counted against its own policy's limits. */
  budgets: Budgets;
  mode: RunMode;
  /** dry-run: where writes are recorded. */
  plan?: PlanRecorder;
  /** approved: the plan every write must match. */
  binding?: PlanBinding;
  audit?: CallAudit;
  /** Known secret strings removed from everything returned (token secret, passwords). */
  secrets?: SecretScrubber;
  guests?: GuestDirectory;
  identity?: IdentityGuard;
  counts?: CallCounts;
  onProgress?(event: TaskProgressEvent): void;
  /**
   * The kill switch: a refusal message while an operator has halted every change on this host.
   * Asked right before each change is sent (approved steps included), so a run in flight stops
   * before its next write.
   */
  halted?(): string | undefined;
  /** Used when a script's `waitTask` gives no timeout (default 5 min); always capped by the task-wait budget. */
  defaultTaskTimeoutMs?: number;
  /**
   * The changes an earlier run made, read back from the audit (`readRunChanges`): what
   * `pve.undo(runId)` reverses. Absent: `pve.undo` is refused.
   */
  runChanges?(runId: string): RecordedChange[];
}

export const DEFAULT_TASK_TIMEOUT_MS = 300_000;

export type Runtime = BridgeDeps & {
  guests: GuestDirectory;
  identity: IdentityGuard;
  counts: CallCounts;
  secrets: SecretScrubber;
  /** The class of the write that started each task: its status is read with that write's token. */
  taskClass: Map<string, RiskClass>;
  /** Guests this run took (or, in a dry-run, planned) a safety snapshot of: one per guest and run. */
  snapshotted: Set<string>;
  /** Set when an audit append failed: the run fails closed, nothing more is made unaudited. */
  auditError?: string;
};

/** A call stopped by the bridge itself; carries the reply. */
export class Refusal extends Error {
  constructor(readonly error: BridgeError) {
    super(error.message);
  }
}

/** The cluster a call names, resolved once: its handle, or why this run cannot reach it. */
export type Reached = { handle: ClusterHandle } | { error: string };

/** The cluster a call goes to; one the run cannot reach is refused as `invalid`. */
export function reach(rt: Runtime, reached: Reached): ClusterHandle {
  if ('handle' in reached) return reached.handle;
  rt.counts.invalid++;
  throw new Refusal({ kind: 'invalid', message: reached.error });
}

export function budgetRefusal(refusal: BudgetRefusal, where?: { method: HttpMethod; path: string; risk: RiskClass }): Refusal {
  return new Refusal({ kind: 'budget', message: refusal.message, ...(where ?? {}) });
}

/** Note, in the call's audit record and the run's counters, text guests or other people control in this answer. */
export function markTainted(rt: Runtime, req: ResolvedRequest, data: unknown, record: Record<string, unknown>): unknown {
  const parts = taintedParts(req.method, req.operation.path, data);
  if (parts.length === 0) return data;
  record.tainted = parts;
  countTainted(rt.counts, taintSource(req.method, req.concretePath, parts));
  return data;
}
