/**
 * The run pipeline: one `run_script` call from its source to its result, crossing each step once.
 *
 *   compile (size, syntax, type check — in the executor, before any cluster is read)
 *   → remote preflight (the static calls against the policy and the token's privileges)
 *   → mode (dry-run / operator-approved / approval probe + human / live)
 *   → execute the one compiled script in each phase, against that phase's bridge handler
 *   → result, and the audit's run-start, approval and run-end records.
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
 *
 * Per-run caches: one guest directory serves the preflight and every phase (a VMID's node, pool
 * and tags are read once per run), except that a run approved by a human after a wait starts a
 * fresh one; identity checks before each write read the guest fresh anyway. `/access/permissions`
 * is cached across runs (`PermissionCache`, one per server).
 */
import { randomUUID } from 'node:crypto';
import { createBridgeHandler } from '../bridge/handler.js';
import type { RunMode, TaskProgressEvent } from '../bridge/runtime.js';
import { emptyCounts, type CallCounts } from '../bridge/stats.js';
import { CallClock, type CallDeadline, type DeadlineReport } from './deadline.js';
import type { CompileAnswer, Executor, OutcomeLike } from './executor.js';
import { auditSource, withheldSource } from '../safety/script-secrets.js';
import { approvalNextStep, type ApprovalStore, type Approver, type ElicitationAnswer } from '../safety/approval.js';
import { Budget, Budgets, type BudgetUsage } from '../safety/budget.js';
import { GuestDirectory } from '../policy/guests.js';
import { hashCode, PlanBinding, PlanRecorder, summarizePlan, type Plan, type PlanOutcome } from '../safety/plan.js';
import type { RunClusters } from '../policy/clusters.js';
import type { TypeChecker } from '../script/checker.js';
import { preflight, type PreflightReport } from '../policy/preflight.js';
import { PermissionCache } from '../policy/privileges.js';
import { SecretScrubber } from '../safety/redact.js';
import { bindArgs, type ArgValues } from '../script/args.js';
import type { StandingApproval, StandingWrite } from '../safety/standing.js';
import type { StandingStore } from '../safety/standing-store.js';
import type { RecordedChange } from '../safety/undo.js';

/** The audit surface a run writes to (the audit's `AuditSink`, src/audit/sink.ts, satisfies it). */
export interface RunAudit {
  append(type: 'run-start' | 'call' | 'approval' | 'run-end', data: Record<string, unknown>): unknown;
  /** A change's intent, durable before the change is sent (see `CallAudit.intend`, src/bridge/runtime.ts). */
  intend(data: Record<string, unknown>): { seq: number };
}

export interface PipelineDeps<S, O extends OutcomeLike> {
  /** Compiles the script once and executes it in each phase (the sandbox engine, given once). */
  executor: Executor<S, O>;
  /**
   * The clusters the run reaches, each resolved once: the home cluster's policy is the run's
   * (budget limits, name in the audit); calls through `pve.cluster('x')` are decided by x's.
   */
  clusters: RunClusters;
  /** Whose run it is (the fair share of sandbox workers); the local user's when absent. */
  principal?: string;
  /** The home cluster's type-checker; the script is not type-checked without one. */
  checker?: TypeChecker;
  /** Where dry-run plans and operator approvals live (state dir). Without it plans are not stored. */
  approvals?: ApprovalStore;
  /** MCP elicitation; absent means the client cannot ask the human (treated as `unsupported`). */
  approver?: Approver;
  audit?: RunAudit;
  secrets?: SecretScrubber;
  /** Shared across runs: `/access/permissions` per cluster and auth ID. */
  permissions?: PermissionCache;
  onProgress?(event: TaskProgressEvent): void;
  /** Standing approvals of runbooks; without it a runbook's writes are asked for like any script's. */
  standing?: StandingStore;
  /** Who runs (a principal's id, else the host's user): four eyes compares it with a standing approval's giver. */
  runner?: string;
  /** The policy wants a person for every write of this run (taint.writes `approval` and the session is tainted): no standing approval applies. */
  tainted?: boolean;
  /** The kill switch (`BridgeDeps.halted`): asked before every change. */
  halted?(): string | undefined;
  /** Console lines as they are produced (not the approval probe's: the run after it prints them again). */
  onLog?(line: string): void;
  defaultTaskTimeoutMs?: number;
  /** An earlier run's recorded changes, for `pve.undo` (`BridgeDeps.runChanges`). */
  runChanges?(runId: string): RecordedChange[];
}

export interface RunInput {
  code: string;
  /**
   * Argument values for the script (`args`), checked against what a file-form script declares
   * before anything is read from a cluster: typed JSON, or with `argsFromText` the strings of
   * `--arg name=value`.
   */
  args?: Record<string, unknown>;
  argsFromText?: boolean;
  /** The runbook this code is (its saved file): a standing approval for it may stand in for asking (src/safety/standing.ts). */
  runbook?: string;
  /** Test declared `pattern`s (a runbook's or the operator's own file; never an agent's script: src/script/args.ts). */
  argPatterns?: boolean;
  dryRun?: boolean;
  /** Names an out-of-band approved plan to use; it is a reference, never an approval by itself. */
  planId?: string;
  /** Skip the permission preflight (default: run it). */
  preflight?: boolean;
  /**
   * Aborts the preflight, approval lookups and the phases when the client goes away, and a compile
   * in a sandbox worker; a type check already with the type-check process is let finish.
   */
  signal?: AbortSignal;
  /**
   * The whole-call deadline (from the moment the tool call arrived): compile, preflight, the wait
   * for a worker and every phase count against it; each run may use what remains.
   */
  deadline?: CallDeadline;
}

export type ExecutePhase = 'live' | 'dry-run' | 'probe' | 'approved';

export interface ApprovalInfo {
  required: boolean;
  /** Steps of the approved plan the run did not make (it may stop early; they stay unmade). */
  unusedSteps?: number[];
  via?: 'elicitation' | 'operator' | 'standing';
  /** The standing approval the run ran under (`via: 'standing'`). */
  standingId?: string;
  /** Why no standing approval of the runbook covered this run (it was asked for as usual). */
  standing?: string;
  /** `four-eyes`: the policy wants another principal's approval, so the asker's client was not asked. */
  answer?: ElicitationAnswer | 'approved' | 'four-eyes';
  /** Who approved: the operator approval's approver, or the principal (else `mcp-client`) that accepted the elicitation. */
  approvedBy?: string;
  planId?: string;
  message: string;
}

/** What the bridge counted and charged in the phase whose outcome is returned. */
export interface BridgeStats {
  calls: CallCounts;
  /** The run's own cluster. */
  budget: BudgetUsage;
  /** Each cluster the run reached, when it reached others than its own (each charged to its own policy's limits). */
  budgetByCluster?: Record<string, BudgetUsage>;
}

export interface RunResult<O> {
  runId: string;
  /** The mode of the run whose outcome is returned; `blocked` when the script did not run for real. */
  mode: RunMode | 'blocked';
  outcome?: O;
  preflight?: PreflightReport;
  plan?: Plan;
  planSummary?: string;
  approval?: ApprovalInfo;
  stats: BridgeStats;
  /** Why the script did not run (or not for real): preflight errors, approval declined/unsupported, no audit, the deadline… */
  blocked?: { reason: BlockedReason; message: string };
  /** The whole-call deadline passed: where, where the time went, and what the answer says. */
  deadline?: DeadlineReport;
  /** The run's final audit entry could not be written (the run itself had finished). */
  auditError?: string;
  /** Planned writes an approved run did not make. */
  unusedPlanSteps?: number[];
}

export type BlockedReason = 'preflight' | 'approval' | 'audit' | 'deadline' | 'arguments';

interface PhaseResult<O> {
  outcome: O;
  counts: CallCounts;
  budgets: Budgets;
  plan?: Plan;
  binding?: PlanBinding;
}

export class RunPipeline<S, O extends OutcomeLike> {
  readonly runId = randomUUID();
  private secrets: SecretScrubber;
  private readonly permissions: PermissionCache;
  private guests: GuestDirectory;

  constructor(private readonly deps: PipelineDeps<S, O>) {
    this.secrets = deps.secrets ?? new SecretScrubber();
    this.permissions = deps.permissions ?? new PermissionCache();
    this.guests = this.freshGuests();
  }

  async run(request: RunInput): Promise<RunResult<O>> {
    const clock = new CallClock(request.deadline, request.signal);
    try {
      return await this.timedRun(request, clock);
    } finally {
      clock.dispose();
    }
  }

  private async timedRun(request: RunInput, clock: CallClock): Promise<RunResult<O>> {
    const codeHash = hashCode(request.code);
    // Local checks first, in the process that parses the script (never this one): a script that
    // cannot run reads nothing from any cluster, and is audited as a run all the same.
    const { principal, checker } = this.deps;
    const compiled = await clock.time('compile', () =>
      this.deps.executor.compile({ code: request.code, signal: clock.signal, typecheck: checker !== undefined, ...(checker ? { checker } : {}), ...(principal ? { principal } : {}) }),
    );
    // Secrets written into the source leave the stored source, and this run's outputs and records.
    const literals = compiled?.secrets?.literals ?? [];
    if (literals.length > 0) this.secrets = this.secrets.with(literals);
    try {
      this.deps.audit?.append('run-start', {
        runId: this.runId,
        codeHash,
        source: compiled ? auditSource(request.code, compiled.secrets) : withheldSource("the compile did not finish within the call's deadline"),
        policy: this.deps.clusters.home.policy.name,
        dryRun: request.dryRun === true,
        ...(request.planId ? { planId: request.planId } : {}),
        ...(request.runbook ? { runbook: request.runbook } : {}),
        ...(request.args && Object.keys(request.args).length > 0 ? { args: this.secrets.scrubDeep(request.args) } : {}),
      });
    } catch (err) {
      // No audit, no run: fail closed.
      return this.blocked('audit', `not executed: the audit log cannot be written (${err instanceof Error ? err.message : String(err)})`);
    }
    let result = !compiled || clock.expired ? this.pastDeadline() : await this.decide({ ...request, signal: clock.signal }, codeHash, compiled, clock);
    // A run that finished as the deadline passed keeps its own answer.
    const deadline = result.outcome?.ok ? undefined : clock.report();
    if (deadline) result = { ...result, deadline };
    try {
      this.deps.audit?.append('run-end', {
        runId: this.runId,
        mode: result.mode,
        ok: result.outcome?.ok ?? false,
        ...(result.outcome?.error !== undefined ? { error: this.secrets.scrubDeep(result.outcome.error) } : {}),
        ...(result.blocked ? { blocked: result.blocked } : {}),
        ...(result.deadline ? { deadline: { limitMs: result.deadline.limitMs, phase: result.deadline.phase, spentMs: result.deadline.spentMs } } : {}),
        ...(result.plan ? { plan: result.plan } : {}),
        ...(result.approval ? { approval: result.approval } : {}),
        stats: result.stats,
      });
    } catch (err) {
      result.auditError = err instanceof Error ? err.message : String(err);
    }
    return result;
  }

  private async decide(request: RunInput, codeHash: string, compiled: CompileAnswer<S, O>, clock: CallClock): Promise<RunResult<O>> {
    const clusters = this.deps.clusters;
    const policy = clusters.home.policy;
    if (!compiled.ok) return { ...this.emptyResult(request.dryRun ? 'dry-run' : 'live'), outcome: compiled.outcome };
    // Arguments before any cluster is read: a missing or malformed one runs nothing.
    const bound = bindArgs(compiled.args, request.args ?? {}, { fromText: request.argsFromText === true, patterns: request.argPatterns === true });
    if (!bound.ok) return this.blocked('arguments', `not executed: ${bound.message}`);
    const values = bound.values;
    const execute = (phase: ExecutePhase, binding?: PlanBinding) => this.phase(phase, request, compiled.script, clock, binding, values);

    let report: PreflightReport | undefined;
    if (request.preflight !== false) {
      try {
        report = await clock.time('preflight', () =>
          preflight(compiled.calls, {
            defaultCluster: clusters.home.name,
            model: (name) => clusters.get(name).model,
            client: (name, risk) => (risk ? clusters.get(name).byClass[risk] : clusters.get(name).client),
            policy,
            ...(clusters.reachesOthers ? { policyFor: (name: string) => clusters.get(name).policy } : {}),
            permissions: this.permissions,
            guests: this.guests,
            ...(request.signal ? { signal: request.signal } : {}),
          }),
        );
      } catch (err) {
        // Reads the deadline interrupted fail in their own words; the deadline is the cause.
        if (!clock.expired) throw err;
      }
      if (!report || clock.expired) return this.pastDeadline();
      if (!report.ok) {
        const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.line}:${p.col} ${p.message}`);
        return this.blocked('preflight', `not executed: the preflight found problems before any call was made:\n${errors.join('\n')}`, report);
      }
    }
    const base = { ...(report ? { preflight: report } : {}) };

    if (request.dryRun) {
      const phase = await execute('dry-run');
      if (phase.plan && phase.plan.writes.length > 0) this.storePlan(phase.plan);
      return { ...this.finish(phase, 'dry-run'), ...base, ...planFields(phase.plan, planOutcome(phase.outcome)) };
    }

    // Found and consumed in one step across processes: of runs racing for one approval, one gets it.
    let stored: ReturnType<ApprovalStore['claim']>;
    try {
      stored = this.deps.approvals?.claim({ codeHash, ...(request.planId ? { planId: request.planId } : {}) }, this.runId);
    } catch (err) {
      return this.blocked('approval', `not executed: the approvals store cannot be read (${err instanceof Error ? err.message : String(err)})`, report);
    }
    if (stored) {
      const approval: ApprovalInfo = {
        required: true,
        via: 'operator',
        answer: 'approved',
        approvedBy: stored.approval.approvedBy,
        planId: stored.plan.planId,
        message: `running the plan approved by ${stored.approval.approvedBy} at ${stored.approval.approvedAt}`,
      };
      const unaudited = this.auditApproval(approval);
      if (unaudited) return unaudited;
      return this.approvedRun(stored.plan, approval, execute, base);
    }
    if (request.planId) {
      const next = this.deps.approvals ? this.deps.approvals.nextStep(request.planId) : approvalNextStep();
      return {
        ...this.blocked('approval', `plan ${request.planId} is not approved for this script (never approved, expired, already used, or the script changed). ${next}`, report),
        approval: { required: true, planId: request.planId, message: 'no valid operator approval' },
      };
    }

    // Other clusters' policies may require approval even when the run's own does not.
    const approvalsConfigured = policy.approvalClasses.size > 0 || this.deps.clusters.reachesOthers;
    const mayNeedApproval = report ? report.needsApproval || (report.hasDynamicCalls && approvalsConfigured) : approvalsConfigured;
    if (!mayNeedApproval) return { ...this.finish(await execute('live'), 'live'), ...base };

    const probe = await execute('probe');
    const plan = probe.plan as Plan;
    if (!probe.outcome.ok) {
      // The script failed while planning: report that run (nothing was sent) instead of asking.
      return {
        ...this.finish(probe, 'dry-run'),
        ...base,
        ...planFields(plan, planOutcome(probe.outcome)),
        approval: { required: false, message: 'the script failed during its dry-run planning pass; nothing was sent' },
      };
    }
    if (!plan.writes.some((w) => w.needsApproval)) return { ...this.finish(await execute('live'), 'live'), ...base };

    // A runbook's standing approval, judged on the plan the probe built: inside its bounds the
    // run is bound to that plan as if a person had approved it; outside, it is asked as usual.
    let standing: string | undefined;
    if (request.runbook && this.deps.standing) {
      const found = await this.standingFor(request.runbook, codeHash, values, plan, request.signal);
      if ('approval' in found) {
        const a = found.approval;
        const approval: ApprovalInfo = {
          required: true,
          via: 'standing',
          answer: 'approved',
          approvedBy: a.approvedBy,
          standingId: a.id,
          planId: plan.planId,
          message: `running under standing approval ${a.id} of runbook '${a.runbook}' given by ${a.approvedBy} until ${a.expiresAt} (${a.used.writes} of ${a.maxWrites} writes and ${a.used.runs}${a.maxRuns !== undefined ? ` of ${a.maxRuns}` : ''} runs used)`,
        };
        const unaudited = this.auditApproval(approval);
        if (unaudited) return unaudited;
        return this.approvedRun(plan, approval, execute, base);
      }
      standing = found.reasons.length > 0 ? found.reasons.join('; ') : `no standing approval for runbook '${request.runbook}'`;
    }
    const withStanding = (info: ApprovalInfo): ApprovalInfo => (standing ? { ...info, standing } : info);

    const planStored = this.storePlan(plan);
    // Four eyes: the asker's own client is not asked; another principal approves out of band.
    if (this.deps.approvals?.needsOtherApprover(plan)) {
      const how = planStored ? `approval: \`${this.deps.approvals.approveCommand(plan.planId)}\`, then run the same script again unchanged` : 'the plan could not be stored, so it cannot be approved';
      const approval: ApprovalInfo = withStanding({
        required: true,
        answer: 'four-eyes',
        planId: plan.planId,
        message: `Plan ${plan.planId} needs another person's approval (four eyes); nothing was sent. ${how}`,
      });
      const unaudited = this.auditApproval(approval);
      if (unaudited) return unaudited;
      return { ...this.blocked('approval', approval.message, report), ...planFields(plan), approval };
    }
    const summary = summarizePlan(plan);
    clock.pause();
    const answer = await this.ask(plan, summary, request.signal);
    clock.resume();
    if (answer === 'cancelled') {
      return { ...this.blocked('approval', 'not executed: the run was cancelled while it waited for the approval; nothing was sent', report), ...planFields(plan) };
    }
    const command = planStored && this.deps.approvals ? this.deps.approvals.approveCommand(plan.planId) : undefined;
    const approval: ApprovalInfo = withStanding({
      required: true,
      via: 'elicitation',
      answer,
      ...(answer === 'accept' ? { approvedBy: this.deps.approvals?.principal ?? 'mcp-client' } : {}),
      planId: plan.planId,
      message: approvalMessage(answer, plan.planId, command),
    });
    const unaudited = this.auditApproval(approval);
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
    // The human may have taken minutes: pools and tags are read again for the approved run.
    this.guests = this.freshGuests();
    return this.approvedRun(plan, approval, execute, base);
  }

  /** The standing approval that covers this plan, charged with it; else why none does. */
  private async standingFor(runbook: string, contentHash: string, args: ArgValues, plan: Plan, signal?: AbortSignal): Promise<{ approval: StandingApproval } | { reasons: string[] }> {
    if (plan.writes.some((w) => w.cluster !== this.deps.clusters.home.name))
      return { reasons: [`the run writes to another cluster than ${this.deps.clusters.home.name}, which no standing approval covers`] };
    const writes: StandingWrite[] = [];
    for (const w of plan.writes) {
      const targets: StandingWrite['targets'] = [];
      for (const t of w.targets) {
        const info = await this.guests.lookup(w.cluster, t.vmid, signal);
        targets.push({ vmid: t.vmid, ...(info?.pool !== undefined ? { pool: info.pool } : {}), tags: info?.tags ?? [] });
      }
      writes.push({ seq: w.seq, risk: w.risk, needsApproval: w.needsApproval, targets });
    }
    try {
      return (this.deps.standing as StandingStore).use({
        runbook,
        contentHash,
        cluster: this.deps.clusters.home.name,
        args,
        writes,
        now: new Date(),
        runner: this.deps.runner ?? 'local',
        fourEyes: this.deps.approvals?.needsOtherApprover(plan) ?? false,
        tainted: this.deps.tainted === true,
      });
    } catch (err) {
      return { reasons: [`the standing approvals cannot be read (${err instanceof Error ? err.message : String(err)})`] };
    }
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
  private auditApproval(approval: ApprovalInfo): RunResult<O> | undefined {
    try {
      this.deps.audit?.append('approval', { runId: this.runId, ...approval });
      return undefined;
    } catch (err) {
      return this.blocked('audit', `not executed: the audit log cannot be written (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  private async approvedRun(
    plan: Plan,
    approval: ApprovalInfo,
    execute: (phase: ExecutePhase, binding?: PlanBinding) => Promise<PhaseResult<O>>,
    base: { preflight?: PreflightReport },
  ): Promise<RunResult<O>> {
    const phase = await execute('approved', new PlanBinding(plan));
    const unused = phase.binding?.remaining().map((w) => w.seq) ?? [];
    const told =
      unused.length > 0
        ? { ...approval, unusedSteps: unused, message: `${approval.message}; step${unused.length === 1 ? '' : 's'} ${unused.join(', ')} of the plan ${unused.length === 1 ? 'was' : 'were'} not made` }
        : approval;
    const error = phase.outcome.ok ? undefined : errorOf(phase.outcome);
    const ran: PlanOutcome = { state: 'ran', made: phase.counts.changes.done, unused, ...(error ? { error } : {}) };
    return { ...this.finish(phase, 'approved'), ...base, ...planFields(plan, ran), approval: told, ...(unused.length > 0 ? { unusedPlanSteps: unused } : {}) };
  }

  /** The human's answer; `cancelled` when the run was cancelled (or the server is stopping) before it came. */
  private async ask(plan: Plan, summary: string, signal: AbortSignal | undefined): Promise<ElicitationAnswer | 'cancelled'> {
    if (!this.deps.approver) return 'unsupported';
    if (signal?.aborted) return 'cancelled';
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => {
      onAbort = () => resolve('cancelled');
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.deps.approver.elicit({ planId: plan.planId, summary: this.secrets.scrub(summary), plan: this.secrets.scrubDeep(plan) }), cancelled]);
    } catch {
      return 'unsupported';
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  private async phase(phase: ExecutePhase, { code, signal }: RunInput, script: S, clock: CallClock, binding?: PlanBinding, args?: ArgValues): Promise<PhaseResult<O>> {
    const mode: RunMode = phase === 'probe' ? 'dry-run' : phase;
    const recorder = mode === 'dry-run' ? new PlanRecorder() : undefined;
    const counts = emptyCounts();
    const clusters = this.deps.clusters;
    const budgets = new Budgets(clusters.home.name, (cluster) => clusters.get(cluster).policy.budgetLimits);
    const audit = this.deps.audit;
    const handler = createBridgeHandler({
      runId: this.runId,
      clusters,
      budgets,
      guests: this.guests,
      mode,
      counts,
      secrets: this.secrets,
      ...(recorder ? { plan: recorder } : {}),
      ...(binding ? { binding } : {}),
      ...(audit ? { audit: { append: (type, data) => audit.append(type, { ...data, phase }), intend: (data) => audit.intend({ ...data, phase }) } } : {}),
      ...(this.deps.onProgress ? { onProgress: this.deps.onProgress } : {}),
      ...(this.deps.halted ? { halted: this.deps.halted } : {}),
      ...(this.deps.defaultTaskTimeoutMs !== undefined ? { defaultTaskTimeoutMs: this.deps.defaultTaskTimeoutMs } : {}),
      ...(this.deps.runChanges ? { runChanges: this.deps.runChanges } : {}),
    });
    // The probe's lines would arrive again from the run that follows it; a probe that is itself
    // the answer (it failed) returns its lines with its result.
    const onLog = phase === 'probe' ? undefined : this.deps.onLog;
    const principal = this.deps.principal;
    const outcome = await clock.execute(() =>
      this.deps.executor.execute(script, handler, {
        ...(onLog ? { onLog } : {}),
        ...(signal ? { signal } : {}),
        pastDeadline: () => clock.lapsed(),
        ...(principal ? { principal } : {}),
        ...(args && Object.keys(args).length > 0 ? { args } : {}),
      }),
    );
    return { outcome, counts, budgets, ...(recorder ? { plan: recorder.finish(code, clusters.home.policy.name) } : {}), ...(binding ? { binding } : {}) };
  }

  private finish(phase: PhaseResult<O>, mode: RunMode): RunResult<O> {
    const byCluster = phase.budgets.usageByCluster();
    return { runId: this.runId, mode, outcome: phase.outcome, stats: { calls: phase.counts, budget: phase.budgets.usage(), ...(byCluster ? { budgetByCluster: byCluster } : {}) } };
  }

  /** The deadline passed before the script ran: nothing was sent. `run` adds the report. */
  private pastDeadline(): RunResult<O> {
    return this.blocked('deadline', 'not executed: the call deadline passed before the script ran; nothing was sent');
  }

  private blocked(reason: BlockedReason, message: string, report?: PreflightReport): RunResult<O> {
    return {
      ...this.emptyResult('blocked'),
      ...(report ? { preflight: report } : {}),
      blocked: { reason, message: this.secrets.scrub(message) },
    };
  }

  /** A result of a run that made no call. */
  private emptyResult(mode: RunResult<O>['mode']): RunResult<O> {
    return { runId: this.runId, mode, stats: { calls: emptyCounts(), budget: new Budget(this.deps.clusters.home.policy.budgetLimits).usage() } };
  }

  private freshGuests(): GuestDirectory {
    return new GuestDirectory((c) => this.deps.clusters.get(c).client);
  }
}

/** The plan and its summary, whose Next line follows what became of the plan (default: only planned). */
function planFields(plan: Plan | undefined, outcome?: PlanOutcome): { plan?: Plan; planSummary?: string } {
  return plan ? { plan, planSummary: summarizePlan(plan, outcome) } : {};
}

/** A planning pass that stopped early planned only what came before the stop. */
function planOutcome(outcome: OutcomeLike): PlanOutcome {
  const error = outcome.ok ? undefined : errorOf(outcome);
  return error ? { state: 'stopped', ...error } : { state: 'planned' };
}

function errorOf(outcome: OutcomeLike): { kind: string; message: string } {
  const e = outcome.error as { kind?: unknown; message?: unknown } | undefined;
  return { kind: typeof e?.kind === 'string' ? e.kind : 'error', message: typeof e?.message === 'string' ? e.message : 'the script failed' };
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
    case 'url':
      return `The user was asked to approve plan ${planId} in the console (URL elicitation); nothing was sent. Run the same script again unchanged once it is approved there.`;
    case 'unsupported':
      return `This MCP client cannot ask the user for approval (no elicitation support), so the writes that need approval were not sent. ${outOfBand}`;
  }
}
