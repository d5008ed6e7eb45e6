/**
 * One `run_script` call, end to end on the safety side: preflight, choice of mode, the bridge
 * handler(s) the sandbox runs against, approval, plan persistence, stats and the audit run
 * records. The MCP server wraps `SandboxEngine.run(...)` in `RunSession.run(execute)`.
 *
 * Modes:
 * - `dryRun: true` → one dry-run; the plan is returned and stored for out-of-band approval.
 * - an operator approval for this script exists (`pve-code-mcp approve <planId>`) → one run bound
 *   to the approved plan (the approval is used up).
 * - the script may make writes that need approval → a dry-run probe builds the plan; if it has
 *   such writes the human is asked through the `Approver` (MCP elicitation) with the plan
 *   summary: accept → run again bound to the plan; decline/unsupported → nothing is sent, the
 *   plan is stored and the result says how to approve it out of band.
 * - otherwise → one live run (approval-needing writes that only show up at run time are refused).
 */
import { randomUUID } from 'node:crypto';
import type { PveClientLike } from '../client/client-like.js';
import { createBridgeHandler, type RunMode, type TaskProgressEvent } from '../bridge/handler.js';
import type { BridgeHandler } from '../bridge/protocol.js';
import { emptyCounts, type CallCounts } from '../bridge/stats.js';
import type { ApiModel, RiskClass } from '../schema/model.js';
import { extractSdkCalls } from '../script/calls.js';
import { scrubSecretLiterals, secretLiterals } from '../safety/script-secrets.js';
import { approvalNextStep, type ApprovalStore, type Approver, type ElicitationAnswer } from '../safety/approval.js';
import { Budget, Budgets, type BudgetUsage } from '../safety/budget.js';
import { GuestDirectory } from '../policy/guests.js';
import { hashCode, PlanBinding, PlanRecorder, summarizePlan, type Plan } from '../safety/plan.js';
import type { Policy } from '../policy/policy.js';
import { preflight, type PreflightReport } from '../policy/preflight.js';
import { PermissionCache } from '../policy/privileges.js';
import { SecretScrubber } from '../safety/redact.js';

/** The audit surface a session writes to (`AuditLog` satisfies it). */
export interface SessionAudit {
  append(type: 'run-start' | 'call' | 'approval' | 'run-end', data: Record<string, unknown>): unknown;
}

export interface SessionDeps {
  defaultCluster: string;
  model(cluster: string): ApiModel;
  /** The client a call of this class goes out with (per-class tokens); the main credentials without a class. */
  client(cluster: string, risk?: RiskClass): PveClientLike;
  /** The run's policy (budget limits, name in the audit); decides calls on clusters `policyFor` does not cover. */
  policy: Policy;
  /** Per-cluster policies: calls through `pve.cluster('x')` are decided by `policyFor('x')`. */
  policyFor?(cluster: string): Policy;
  /** Where dry-run plans and operator approvals live (state dir). Without it plans are not stored. */
  approvals?: ApprovalStore;
  /** MCP elicitation; absent means the client cannot ask the human (treated as `unsupported`). */
  approver?: Approver;
  audit?: SessionAudit;
  secrets?: SecretScrubber;
  /** Shared across runs: `/access/permissions` per cluster and auth ID. */
  permissions?: PermissionCache;
  onProgress?(event: TaskProgressEvent): void;
  defaultTaskTimeoutMs?: number;
}

export interface RunRequest {
  code: string;
  dryRun?: boolean;
  /** Names an out-of-band approved plan to use; it is a reference, never an approval by itself. */
  planId?: string;
  /** Skip the permission preflight (default: run it). */
  preflight?: boolean;
  /** Aborts preflight and approval lookups when the client goes away. */
  signal?: AbortSignal;
}

export type ExecutePhase = 'live' | 'dry-run' | 'probe' | 'approved';

/** Runs the script once against `handler` (the sandbox engine); must not throw for script errors. */
export type Execute<T> = (handler: BridgeHandler, phase: ExecutePhase) => Promise<T>;

export interface ApprovalInfo {
  required: boolean;
  /** Steps of the approved plan the run did not make (it may stop early; they stay unmade). */
  unusedSteps?: number[];
  via?: 'elicitation' | 'operator';
  answer?: ElicitationAnswer | 'approved';
  planId?: string;
  message: string;
}

export interface RunStats {
  calls: CallCounts;
  /** The run's own cluster. */
  budget: BudgetUsage;
  /** Each cluster the run reached, when it reached others than its own (each charged to its own policy's limits). */
  budgetByCluster?: Record<string, BudgetUsage>;
}

export interface SessionResult<T> {
  runId: string;
  /** The mode of the run whose outcome is returned; `blocked` when the script did not run for real. */
  mode: RunMode | 'blocked';
  outcome?: T;
  preflight?: PreflightReport;
  plan?: Plan;
  planSummary?: string;
  approval?: ApprovalInfo;
  stats: RunStats;
  /** Why the script did not run (or not for real): preflight errors, approval declined/unsupported, no audit… */
  blocked?: { reason: 'preflight' | 'approval' | 'audit'; message: string };
  /** The run's final audit entry could not be written (the run itself had finished). */
  auditError?: string;
  /** Planned writes an approved run did not make. */
  unusedPlanSteps?: number[];
}

interface PhaseResult<T> {
  outcome: T;
  counts: CallCounts;
  budgets: Budgets;
  plan?: Plan;
  binding?: PlanBinding;
}

export class RunSession {
  readonly runId = randomUUID();
  private secrets: SecretScrubber;
  private readonly permissions: PermissionCache;

  constructor(private readonly deps: SessionDeps) {
    this.secrets = deps.secrets ?? new SecretScrubber();
    this.permissions = deps.permissions ?? new PermissionCache();
  }

  async run<T extends { ok: boolean; error?: unknown }>(request: RunRequest, execute: Execute<T>): Promise<SessionResult<T>> {
    const codeHash = hashCode(request.code);
    // Secrets written into the source leave the stored source, and this run's outputs and records.
    const literals = secretLiterals(request.code);
    if (literals.length > 0) this.secrets = this.secrets.with(literals);
    try {
      this.deps.audit?.append('run-start', {
        runId: this.runId,
        codeHash,
        source: scrubSecretLiterals(request.code, literals),
        policy: this.deps.policy.name,
        dryRun: request.dryRun === true,
        ...(request.planId ? { planId: request.planId } : {}),
      });
    } catch (err) {
      // No audit, no run: fail closed.
      return this.blocked('audit', `not executed: the audit log cannot be written (${err instanceof Error ? err.message : String(err)})`);
    }
    const result = await this.decide(request, codeHash, execute);
    try {
      this.deps.audit?.append('run-end', {
        runId: this.runId,
        mode: result.mode,
        ok: result.outcome?.ok ?? false,
        ...(result.outcome?.error !== undefined ? { error: this.secrets.scrubDeep(result.outcome.error) } : {}),
        ...(result.blocked ? { blocked: result.blocked } : {}),
        ...(result.plan ? { plan: result.plan } : {}),
        ...(result.approval ? { approval: result.approval } : {}),
        stats: result.stats,
      });
    } catch (err) {
      result.auditError = err instanceof Error ? err.message : String(err);
    }
    return result;
  }

  private async decide<T extends { ok: boolean; error?: unknown }>(request: RunRequest, codeHash: string, execute: Execute<T>): Promise<SessionResult<T>> {
    const policy = this.deps.policy;
    let report: PreflightReport | undefined;
    if (request.preflight !== false) {
      report = await preflight(extractSdkCalls(request.code), {
        defaultCluster: this.deps.defaultCluster,
        model: this.deps.model,
        client: this.deps.client,
        policy,
        ...(this.deps.policyFor ? { policyFor: this.deps.policyFor } : {}),
        permissions: this.permissions,
        guests: new GuestDirectory((c) => this.deps.client(c)),
        ...(request.signal ? { signal: request.signal } : {}),
      });
      if (!report.ok) {
        const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.col} ${p.message}`);
        return this.blocked('preflight', `not executed: the preflight found problems before any call was made:\n${errors.join('\n')}`, report);
      }
    }
    const base = { ...(report ? { preflight: report } : {}) };

    if (request.dryRun) {
      const phase = await this.phase('dry-run', request.code, execute);
      if (phase.plan && phase.plan.writes.length > 0) this.storePlan(phase.plan);
      return { ...this.finish(phase, 'dry-run'), ...base, ...planFields(phase.plan) };
    }

    // Found and consumed in one step across processes: of runs racing for one approval, one gets it.
    let stored: ReturnType<ApprovalStore['claim']>;
    try {
      stored = this.deps.approvals?.claim({ codeHash, ...(request.planId ? { planId: request.planId } : {}) }, this.runId);
    } catch (err) {
      return this.blocked('approval', `not executed: the approvals store cannot be read (${err instanceof Error ? err.message : String(err)})`, report);
    }
    if (stored) {
      const approval: ApprovalInfo = { required: true, via: 'operator', answer: 'approved', planId: stored.plan.planId, message: `running the plan approved by ${stored.approval.approvedBy} at ${stored.approval.approvedAt}` };
      const unaudited = this.auditApproval<T>(approval);
      if (unaudited) return unaudited;
      return this.approvedRun(request.code, stored.plan, approval, execute, base);
    }
    if (request.planId) {
      const next = this.deps.approvals ? this.deps.approvals.nextStep(request.planId) : approvalNextStep();
      return {
        ...this.blocked('approval', `plan ${request.planId} is not approved for this script (never approved, expired, already used, or the script changed). ${next}`, report),
        approval: { required: true, planId: request.planId, message: 'no valid operator approval' },
      };
    }

    // Other clusters' policies may require approval even when the run's own does not.
    const approvalsConfigured = policy.approvalClasses.size > 0 || this.deps.policyFor !== undefined;
    const mayNeedApproval = report ? report.needsApproval || (report.hasDynamicCalls && approvalsConfigured) : approvalsConfigured;
    if (!mayNeedApproval) return { ...this.finish(await this.phase('live', request.code, execute), 'live'), ...base };

    const probe = await this.phase('probe', request.code, execute);
    const plan = probe.plan as Plan;
    if (!probe.outcome.ok) {
      // The script failed while planning: report that run (nothing was sent) instead of asking.
      return { ...this.finish(probe, 'dry-run'), ...base, ...planFields(plan), approval: { required: false, message: 'the script failed during its dry-run planning pass; nothing was sent' } };
    }
    if (!plan.writes.some((w) => w.needsApproval)) return { ...this.finish(await this.phase('live', request.code, execute), 'live'), ...base };

    const planStored = this.storePlan(plan);
    const summary = summarizePlan(plan);
    const answer = await this.ask(plan, summary);
    const command = planStored && this.deps.approvals ? this.deps.approvals.approveCommand(plan.planId) : undefined;
    const approval: ApprovalInfo = { required: true, via: 'elicitation', answer, planId: plan.planId, message: approvalMessage(answer, plan.planId, command) };
    const unaudited = this.auditApproval<T>(approval);
    if (unaudited) return unaudited;
    if (answer !== 'accept') {
      return { ...this.blocked('approval', approval.message, report), ...planFields(plan), approval };
    }
    // Accepted here: the plan cannot also be approved out of band and run a second time.
    try {
      this.deps.approvals?.markConsumed(plan.planId, this.runId, 'elicitation');
    } catch (err) {
      return this.blocked('approval', `not executed: the approval could not be recorded in the approvals store (${err instanceof Error ? err.message : String(err)})`, report);
    }
    return this.approvedRun(request.code, plan, approval, execute, base);
  }

  /** Keep the plan for out-of-band approval; false when there is no store or it cannot be written. */
  private storePlan(plan: Plan): boolean {
    if (!this.deps.approvals) return false;
    try {
      this.deps.approvals.savePlan(plan);
      return true;
    } catch {
      return false;
    }
  }

  /** Record an approval decision; a blocked result when the audit cannot take it (fail closed). */
  private auditApproval<T>(approval: ApprovalInfo): SessionResult<T> | undefined {
    try {
      this.deps.audit?.append('approval', { runId: this.runId, ...approval });
      return undefined;
    } catch (err) {
      return this.blocked('audit', `not executed: the audit log cannot be written (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  private async approvedRun<T extends { ok: boolean }>(code: string, plan: Plan, approval: ApprovalInfo, execute: Execute<T>, base: { preflight?: PreflightReport }): Promise<SessionResult<T>> {
    const phase = await this.phase('approved', code, execute, new PlanBinding(plan));
    const unused = phase.binding?.remaining().map((w) => w.seq) ?? [];
    const told =
      unused.length > 0
        ? { ...approval, unusedSteps: unused, message: `${approval.message}; step${unused.length === 1 ? '' : 's'} ${unused.join(', ')} of the plan ${unused.length === 1 ? 'was' : 'were'} not made` }
        : approval;
    return { ...this.finish(phase, 'approved'), ...base, ...planFields(plan), approval: told, ...(unused.length > 0 ? { unusedPlanSteps: unused } : {}) };
  }

  private async ask(plan: Plan, summary: string): Promise<ElicitationAnswer> {
    if (!this.deps.approver) return 'unsupported';
    try {
      return await this.deps.approver.elicit({ planId: plan.planId, summary: this.secrets.scrub(summary), plan: this.secrets.scrubDeep(plan) });
    } catch {
      return 'unsupported';
    }
  }

  private async phase<T>(phase: ExecutePhase, code: string, execute: Execute<T>, binding?: PlanBinding): Promise<PhaseResult<T>> {
    const mode: RunMode = phase === 'probe' ? 'dry-run' : phase;
    const recorder = mode === 'dry-run' ? new PlanRecorder() : undefined;
    const counts = emptyCounts();
    const budgets = new Budgets(this.deps.defaultCluster, (cluster) => this.policyOf(cluster).budgetLimits);
    const audit = this.deps.audit;
    const handler = createBridgeHandler({
      runId: this.runId,
      defaultCluster: this.deps.defaultCluster,
      model: this.deps.model,
      client: this.deps.client,
      policy: this.deps.policy,
      ...(this.deps.policyFor ? { policyFor: this.deps.policyFor } : {}),
      budget: budgets.for(this.deps.defaultCluster),
      budgetFor: (cluster) => budgets.for(cluster),
      mode,
      counts,
      secrets: this.secrets,
      ...(recorder ? { plan: recorder } : {}),
      ...(binding ? { binding } : {}),
      ...(audit ? { audit: { append: (type, data) => audit.append(type, { ...data, phase }) } } : {}),
      ...(this.deps.onProgress ? { onProgress: this.deps.onProgress } : {}),
      ...(this.deps.defaultTaskTimeoutMs !== undefined ? { defaultTaskTimeoutMs: this.deps.defaultTaskTimeoutMs } : {}),
    });
    const outcome = await execute(handler, phase);
    return { outcome, counts, budgets, ...(recorder ? { plan: recorder.finish(code, this.deps.policy.name) } : {}), ...(binding ? { binding } : {}) };
  }

  private finish<T>(phase: PhaseResult<T>, mode: RunMode): SessionResult<T> {
    const byCluster = phase.budgets.usageByCluster();
    return { runId: this.runId, mode, outcome: phase.outcome, stats: { calls: phase.counts, budget: phase.budgets.usage(), ...(byCluster ? { budgetByCluster: byCluster } : {}) } };
  }

  private policyOf(cluster: string): Policy {
    return this.deps.policyFor ? this.deps.policyFor(cluster) : this.deps.policy;
  }

  private blocked<T>(reason: 'preflight' | 'approval' | 'audit', message: string, report?: PreflightReport): SessionResult<T> {
    return {
      runId: this.runId,
      mode: 'blocked',
      ...(report ? { preflight: report } : {}),
      blocked: { reason, message: this.secrets.scrub(message) },
      stats: { calls: emptyCounts(), budget: new Budget(this.deps.policy.budgetLimits).usage() },
    };
  }
}

function planFields(plan: Plan | undefined): { plan?: Plan; planSummary?: string } {
  return plan ? { plan, planSummary: summarizePlan(plan) } : {};
}

function approvalMessage(answer: ElicitationAnswer, planId: string, approveCommand: string | undefined): string {
  const outOfBand = approveCommand
    ? `The plan is saved: the operator can approve it with \`${approveCommand}\`, then run the same script again unchanged.`
    : 'The plan could not be stored (no approval store configured, or it is not writable), so out-of-band approval is not available.';
  switch (answer) {
    case 'accept':
      return `the user approved plan ${planId}`;
    case 'decline':
      return `The user declined plan ${planId}; nothing was sent. ${outOfBand}`;
    case 'unsupported':
      return `This MCP client cannot ask the user for approval (no elicitation support), so the writes that need approval were not sent. ${outOfBand}`;
  }
}
