/**
 * Approvals the model cannot forge.
 *
 * Writes in risk classes the policy marks as needing approval run only in an approved run, and a
 * run is approved in one of two ways, neither of which the model can produce:
 *   (a) the MCP client shows the plan summary to the human through elicitation and the human
 *       accepts (`Approver`, implemented by the MCP server);
 *   (b) the operator approves the planId out of band: `pve-code-mcp approve <planId>` appends an
 *       approval to `approvals.jsonl` in the state directory (`ApprovalStore.approve`).
 * Dry-run plans are stored under `plans/<planId>.json` so the CLI can show what it approves and
 * the approved run can be held to it. Approvals expire and are used once, across processes and
 * channels (see ApprovalStore).
 */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Plan } from './plan.js';
import { type ApprovalBackend, FileApprovalBackend, type RecordScope } from './approval-backend.js';
import { ApprovalError } from './approval-errors.js';
import { type ApprovalRecord, type ConsumeRecord, PLAN_ID, PlanSchema, RecordSchema, type RequestRecord, type StoreRecord } from './approval-records.js';
import { computePlanId } from './plan.js';

export type { ApprovalRecord, ConsumeRecord } from './approval-records.js';

/**
 * `url`: the client was asked to open the console's page of the plan (URL-mode elicitation); the
 * call ends and is retried once the human has decided there.
 */
export type ElicitationAnswer = 'accept' | 'decline' | 'unsupported' | 'url';

export interface ApprovalRequest {
  planId: string;
  /** Human-readable plan (see summarizePlan); what the person is asked to approve. */
  summary: string;
  plan: Plan;
}

/** Implemented by the MCP server with MCP elicitation; `unsupported` when the client cannot elicit. */
export interface Approver {
  elicit(request: ApprovalRequest): Promise<ElicitationAnswer>;
}

export const DEFAULT_APPROVAL_TTL_MS = 60 * 60_000;

/** Whose record this is: an approval is for its requester, a consume is its run's principal. */
function ownerOf(r: ApprovalRecord | ConsumeRecord): string | undefined {
  return r.type === 'approve' ? r.requestedBy : r.principal;
}

export interface ApprovalMatch {
  approval: ApprovalRecord;
  plan: Plan;
}

/** A stored plan and where it stands, for `pve-code-mcp approve` without a planId. */
export interface StoredPlanStatus {
  plan: Plan;
  /** `pending`: no valid approval and never run; `approved`: an unused approval is waiting; `ran`: consumed. */
  status: 'pending' | 'approved' | 'ran';
  approval?: ApprovalRecord;
  lastRun?: ConsumeRecord;
  /** Principals that asked for the plan (remote HTTP users); empty for plans from runs without a principal. */
  requestedBy: string[];
}

/**
 * Plans and approvals, shared by every server and CLI process of the user (the state directory) or
 * of a deployment (PostgreSQL: src/safety/approval-postgres.ts).
 *
 * Every change and every read-then-change (claim, approve) happens under the backend's lock
 * (`approvals.jsonl.lock`, the audit's lock mechanism; a PostgreSQL advisory lock), so the
 * append-only records have one order, and an approval is consumed once however many processes
 * race for it. Validity is decided by that order: an approval is spent by any `consume` of its plan that
 * comes after it — including one recorded for a run the human accepted through elicitation, so a
 * plan that already ran is never run again on an approval given before it ran, and `approve`
 * refuses a plan that already ran unless the operator says `again`.
 *
 * Principals (remote HTTP users, see src/server/auth): a store bound to a principal
 * (`forPrincipal`) records who asked for each plan it stores, and claims and consumes only
 * approvals given for that principal. Approvals and runs are kept per principal: an approval is
 * for one requester, only that requester's runs can use it, and one principal's runs never spend
 * another's approval. An unbound store (stdio, the CLI) sees only records without a principal,
 * which is exactly the behaviour from before principals existed.
 */
export class ApprovalStore {
  /** Where plans and records are kept: the state directory, or a database shared by replicas. */
  readonly backend: ApprovalBackend;

  constructor(
    /** A state directory (the file backend), or another backend. */
    store: string | ApprovalBackend,
    /** The principal whose plans and approvals this view handles; undefined: runs without one. */
    readonly principal?: string,
    /** Four eyes for this principal's plans (from its policies): recorded with each plan it asks for. */
    private readonly approversOf?: (plan: Plan) => ApproverRequirement | undefined,
    /**
     * Whether this server answers `POST /approvals/<planId>` (OAuth mode only): hints offer it only
     * then, since in static-token mode it answers 404.
     */
    readonly approvesOverHttp = false,
    /** The web console's page of a plan, when this server serves a console: hints offer it. */
    readonly consolePage?: (planId: string) => string,
  ) {
    this.backend = typeof store === 'string' ? new FileApprovalBackend(store) : store;
  }

  /** Where the plans and approvals are (a directory, or a database without its password), for messages. */
  get where(): string {
    return this.backend.where;
  }

  /** The same store seen by one principal; `approvers` says which of its plans need another principal's approval. */
  forPrincipal(principal: string, approvers?: (plan: Plan) => ApproverRequirement | undefined): ApprovalStore {
    return new ApprovalStore(this.backend, principal, approvers, this.approvesOverHttp, this.consolePage);
  }

  private checkedId(planId: string): string {
    if (!PLAN_ID.test(planId)) throw new ApprovalError(`'${planId}' is not a planId (64 hex characters from a dry-run result)`, 'bad-plan-id');
    return planId;
  }

  private locked<T>(fn: () => T): T {
    return this.backend.locked(fn);
  }

  /** Whether this plan needs another principal's approval (four eyes): the asker's own client is then not asked. */
  needsOtherApprover(plan: Plan): boolean {
    return this.approversOf?.(plan) !== undefined;
  }

  /** The command an operator runs from a plain shell to approve this plan (it names this store). */
  approveCommandLine(planId: string): string {
    return this.cli(`approve ${planId}`);
  }

  /**
   * Every way to approve this plan that works where this store's server runs, for a hint. Callers
   * quote it in backticks, so each alternative is written to come out quoted as well. On the host,
   * the command and, where this server serves no console, the local one (`pve-code-mcp console`).
   */
  approveCommand(planId: string): string {
    const command = this.approveCommandLine(planId);
    const local = this.cli('console');
    // A remote principal's plan: the approver may not be on the host.
    if (this.principal !== undefined && this.approvesOverHttp) {
      const group = this.approversFor(planId, this.principal)?.group;
      const who = group !== undefined ? `a member of group '${group}'` : 'another principal';
      const onHost = this.consolePage ? `${command}\` on the server host` : `${command}\` or the local web console \`${local}\` on the server host`;
      const page = this.consolePage ? `\`, or in the web console: \`${this.consolePage(planId)}` : '';
      return `${onHost}, or by ${who} with the approve scope over HTTP: \`POST /approvals/${planId}${page}`;
    }
    if (this.consolePage) return `${command}\`, or in the web console: \`${this.consolePage(planId)}`;
    return `${command}\`, or in the local web console (it prints a one-time login link): \`${local}`;
  }

  /** What to tell the agent about a plan: approve it (the exact command), or that it already ran. */
  nextStep(planId: string): string {
    const status = this.status(planId);
    if (!status) return approvalNextStep();
    if (status.status === 'ran') {
      return `Plan ${planId} already ran (run ${status.lastRun?.runId ?? '?'} at ${status.lastRun?.at ?? '?'}); an approval is used once. To run it again the operator approves it again: \`${this.approveCommandLine(planId)} --again\`, then run the same script unchanged`;
    }
    if (status.status === 'approved') return `Plan ${planId} is approved until ${status.approval?.expiresAt ?? '?'}: run the same script again unchanged`;
    return `Plan ${planId} is stored: ask the operator to approve it with \`${this.approveCommand(planId)}\`, then run the same script again unchanged`;
  }

  /** Keep a dry-run plan so it can be approved and enforced later (replaced whole, never seen half written). */
  savePlan(plan: Plan): void {
    this.backend.savePlan(this.checkedId(plan.planId), JSON.stringify(plan, null, 2) + '\n');
    const principal = this.principal;
    if (principal !== undefined) {
      const approvers = this.approversOf?.(plan);
      this.locked(() => {
        // The newest request of a principal carries its current requirement (its policy may have changed).
        const last = this.records({ planId: plan.planId })
          .filter((r): r is RequestRecord => r.type === 'request' && r.planId === plan.planId && r.principal === principal)
          .pop();
        if (!last || JSON.stringify(last.approvers) !== JSON.stringify(approvers)) {
          this.append({ type: 'request', planId: plan.planId, at: new Date().toISOString(), principal, ...(approvers ? { approvers } : {}) });
        }
      });
    }
  }

  /** Who may approve a principal's plan: undefined when its own client may (no four eyes). */
  approversFor(planId: string, principal: string): ApproverRequirement | undefined {
    return requirementIn(this.records({ planId }), planId, principal);
  }

  /** The principals that asked for a plan, in the order they first did. */
  requesters(planId: string): string[] {
    return requestersIn(this.records({ planId }), planId);
  }

  loadPlan(planId: string): Plan | undefined {
    const text = this.backend.loadPlan(this.checkedId(planId));
    if (text === undefined) return undefined;
    const parsed = PlanSchema.safeParse(safeJson(text));
    if (!parsed.success) throw new ApprovalError(`stored plan ${planId} is unreadable or was modified; run the script with dryRun: true again`, 'plan-modified');
    const plan = parsed.data as Plan;
    // The file name, the recorded id and the content must agree: an edited plan is not the approved one.
    if (plan.planId !== planId || computePlanId(plan.codeHash, plan.writes, plan.notes) !== planId) {
      throw new ApprovalError(`stored plan ${planId} does not match its id (edited?); run the script with dryRun: true again`, 'plan-modified');
    }
    return plan;
  }

  /** The full planId of a stored plan from a unique prefix (at least 8 hex characters). */
  resolvePlanId(idOrPrefix: string): string | undefined {
    const wanted = idOrPrefix.trim().toLowerCase();
    if (PLAN_ID.test(wanted)) return wanted;
    if (!/^[0-9a-f]{8,63}$/.test(wanted)) throw new ApprovalError(`'${idOrPrefix}' is not a planId (64 hex characters from a dry-run result, or a unique prefix of at least 8)`, 'bad-plan-id');
    const hits = this.backend.planIds().filter((id) => id.startsWith(wanted));
    if (hits.length > 1) throw new ApprovalError(`'${idOrPrefix}' matches ${hits.length} stored plans; give more characters`, 'bad-plan-id');
    return hits[0];
  }

  /**
   * Record the operator's approval of a stored plan. Refused (`already-run`) when the plan already
   * ran, unless `again`; an approval that is still valid is returned instead of adding another.
   *
   * The approval is for the principal who asked for the plan (`for`, or the only one who did);
   * a plan nobody asked for remotely is approved for runs without a principal. `approver` is a
   * principal approving over HTTP: it becomes `approvedBy`, and it may not approve its own plan.
   */
  approve(given: string, opts: ApproveOptions = {}): ApprovalRecord {
    // As an operator types or pastes it: surrounding blanks and upper-case hex are the same id.
    const planId = given.trim().toLowerCase();
    const plan = this.loadPlan(planId);
    if (!plan) {
      throw new ApprovalError(`no dry-run plan ${planId} in ${this.where}; run the script with dryRun: true and approve the planId it reports`, 'no-plan');
    }
    const now = opts.now ?? new Date();
    return this.locked(() => {
      const records = this.records({ planId });
      const requesters = requestersIn(records, planId);
      let target: string | undefined;
      if (opts.for !== undefined) {
        if (!requesters.includes(opts.for)) {
          throw new ApprovalError(
            `principal '${opts.for}' never asked for plan ${planId}${requesters.length > 0 ? ` (asked by: ${requesters.join(', ')})` : ' (no remote principal asked for it)'}; approve it for one who did`,
            'not-requested',
          );
        }
        target = opts.for;
      } else if (requesters.length === 1) {
        target = requesters[0];
      } else if (requesters.length > 1) {
        throw new ApprovalError(
          `plan ${planId} was asked for by ${requesters.length} principals (${requesters.join(', ')}); say whom the approval is for ("for" in POST /approvals/${planId})`,
          'ambiguous-requester',
        );
      }
      // A person logged in to the console may approve what its own agent asked for, as it could
      // through its client's elicitation, unless the asker's policy wants four eyes.
      const ownAllowed = opts.interactive === true && target !== undefined && requirementIn(records, planId, target) === undefined;
      if (opts.approver !== undefined && target !== undefined && opts.approver === target && !ownAllowed) {
        throw new ApprovalError(
          `principal '${opts.approver}' asked for plan ${planId} and cannot approve it too: another principal with the approve scope (or the operator on the server host) has to`,
          'self-approval',
        );
      }
      // The host operator approving under the asker's own name is the asker approving itself too.
      const hostUser = opts.approver === undefined ? (opts.approvedBy ?? currentUser()) : undefined;
      if (hostUser !== undefined && target !== undefined && hostUser === target) {
        throw new ApprovalError(
          `plan ${planId} was asked for by '${target}', the user approving it here: an approval needs a second person (another principal over HTTP, or another operator account)`,
          'self-approval',
        );
      }
      const required = target !== undefined ? requirementIn(records, planId, target) : undefined;
      // The host operator (no `approver`) is not checked against the group: whoever can run
      // `pve-code-mcp approve` can write this store, so a check there would protect nothing.
      if (required?.group !== undefined && opts.approver !== undefined && !(opts.approverGroups ?? []).includes(required.group)) {
        throw new ApprovalError(
          `plan ${planId} of '${target}' needs an approver in group '${required.group}', and principal '${opts.approver}' is not in it: ask a member of '${required.group}' (or the operator on the server host)`,
          'not-an-approver',
        );
      }
      const state = this.planState(planId, records, now, target);
      if (state.valid) return state.valid;
      if (state.lastRun && !opts.again) {
        throw new ApprovalError(
          `plan ${planId} already ran (run ${state.lastRun.runId} at ${state.lastRun.at}, approved ${state.lastRun.via === 'elicitation' ? 'by the user through the MCP client' : 'by an operator'}); ` +
            'an approval is used once: to let the same plan run once more, approve it again with --again',
          'already-run',
        );
      }
      const record: ApprovalRecord = {
        type: 'approve',
        planId,
        codeHash: plan.codeHash,
        approvedAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + (opts.ttlMs ?? DEFAULT_APPROVAL_TTL_MS)).toISOString(),
        approvedBy: opts.approver ?? hostUser ?? currentUser(),
        id: randomUUID(),
        via: opts.via ?? (opts.approver !== undefined ? 'http' : 'cli'),
        ...(target !== undefined ? { requestedBy: target } : {}),
      };
      this.append(record);
      return record;
    });
  }

  /**
   * Find a valid approval for this script and consume it, atomically across processes: of several
   * runs racing for one approval exactly one gets it. What an approved run should call.
   */
  claim(query: { planId?: string; codeHash: string }, runId: string, now: Date = new Date()): ApprovalMatch | undefined {
    return this.locked(() => {
      const match = this.findIn(this.records({ codeHash: query.codeHash }), query, now);
      if (match)
        this.append({
          type: 'consume',
          planId: match.plan.planId,
          at: now.toISOString(),
          runId,
          via: 'operator',
          ...(match.approval.id ? { approvalId: match.approval.id } : {}),
          ...this.principalField(),
        });
      return match;
    });
  }

  /**
   * Mark an approval used by a run; each approval authorizes one run. Throws `already-consumed`
   * when no valid approval of the plan is left (another run, maybe in another process, took it).
   */
  consume(planId: string, runId: string, now: Date = new Date()): void {
    this.locked(() => {
      const state = this.planState(planId, this.records({ planId }), now, this.principal);
      if (!state.valid) throw new ApprovalError(`the approval of plan ${planId} was already used by another run (or expired); nothing may run on it`, 'already-consumed');
      this.append({ type: 'consume', planId, at: now.toISOString(), runId, via: 'operator', ...(state.valid.id ? { approvalId: state.valid.id } : {}), ...this.principalField() });
    });
  }

  /**
   * Record that a plan ran on another channel's approval (the human accepted it through
   * elicitation): operator approvals given before are spent, and `approve` refuses the plan
   * unless `again`.
   */
  markConsumed(planId: string, runId: string, via: 'elicitation' | 'operator' = 'elicitation', now: Date = new Date()): void {
    if (!PLAN_ID.test(planId)) throw new ApprovalError(`'${planId}' is not a planId`, 'bad-plan-id');
    this.locked(() => this.append({ type: 'consume', planId, at: now.toISOString(), runId, via, ...this.principalField() }));
  }

  /**
   * A valid (approved, unexpired, unused) approval for this script, by planId or else by the
   * script's hash, together with its stored plan. Read-only: use `claim` to run on it.
   */
  find(query: { planId?: string; codeHash: string }, now: Date = new Date()): ApprovalMatch | undefined {
    return this.findIn(this.records({ codeHash: query.codeHash }), query, now);
  }

  /** Where a stored plan stands. */
  status(planId: string, now: Date = new Date()): StoredPlanStatus | undefined {
    const plan = this.loadPlan(planId);
    if (!plan) return undefined;
    return this.statusIn(plan, this.records({ planId }), now);
  }

  /** Where a plan stands for this store's principal, or (unbound) for its only requester, else for runs without a principal. */
  private statusIn(plan: Plan, records: StoreRecord[], now: Date): StoredPlanStatus {
    const requestedBy = requestersIn(records, plan.planId);
    const subject = this.principal ?? (requestedBy.length === 1 ? requestedBy[0] : undefined);
    const state = this.planState(plan.planId, records, now, subject);
    return {
      plan,
      status: state.valid ? 'approved' : state.lastRun ? 'ran' : 'pending',
      ...(state.valid ? { approval: state.valid } : {}),
      ...(state.lastRun ? { lastRun: state.lastRun } : {}),
      requestedBy,
    };
  }

  private principalField(): { principal?: string } {
    return this.principal !== undefined ? { principal: this.principal } : {};
  }

  /** Stored plans, newest first (unreadable ones skipped), with their status. */
  list(now: Date = new Date()): StoredPlanStatus[] {
    const records = this.records();
    const out: StoredPlanStatus[] = [];
    for (const id of this.backend.planIds()) {
      let plan: Plan | undefined;
      try {
        plan = this.loadPlan(id);
      } catch {
        continue;
      }
      if (!plan) continue;
      out.push(this.statusIn(plan, records, now));
    }
    return out.sort((a, b) => Date.parse(b.plan.createdAt) - Date.parse(a.plan.createdAt));
  }

  /**
   * The valid approval of a plan for one principal (the newest approval for it after its last
   * run, unexpired) and that principal's last run of it.
   */
  private planState(planId: string, records: StoreRecord[], now: Date, principal: string | undefined): { valid?: ApprovalRecord; lastRun?: ConsumeRecord } {
    let valid: ApprovalRecord | undefined;
    let lastRun: ConsumeRecord | undefined;
    for (const r of records) {
      if (r.planId !== planId || r.type === 'request' || ownerOf(r) !== principal) continue;
      if (r.type === 'consume') {
        lastRun = r;
        valid = undefined; // a run spends every approval recorded before it
      } else {
        valid = r;
      }
    }
    if (valid && Date.parse(valid.expiresAt) <= now.getTime()) valid = undefined;
    return { ...(valid ? { valid } : {}), ...(lastRun ? { lastRun } : {}) };
  }

  private findIn(records: StoreRecord[], query: { planId?: string; codeHash: string }, now: Date): ApprovalMatch | undefined {
    const candidates = new Set<string>();
    for (const r of records) {
      if (r.type === 'approve' && r.requestedBy === this.principal && r.codeHash === query.codeHash && (query.planId === undefined || r.planId === query.planId)) candidates.add(r.planId);
    }
    const valid = [...candidates]
      .map((id) => this.planState(id, records, now, this.principal).valid)
      .filter((a): a is ApprovalRecord => a !== undefined && a.codeHash === query.codeHash)
      .sort((a, b) => Date.parse(b.approvedAt) - Date.parse(a.approvedAt));
    for (const approval of valid) {
      const plan = this.loadPlan(approval.planId);
      if (plan && plan.codeHash === query.codeHash) return { approval, plan };
    }
    return undefined;
  }

  /** The records (of the scope) that parse, in their order; others (another version's, a torn line) are skipped. */
  private records(scope?: RecordScope): StoreRecord[] {
    const out: StoreRecord[] = [];
    for (const raw of this.backend.records(scope)) {
      const parsed = RecordSchema.safeParse(raw);
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }

  /** Append one record; the caller holds the lock. */
  private append(record: StoreRecord): void {
    this.backend.append(record);
  }

  /** A `pve-code-mcp` command line that names this store. */
  private cli(command: string): string {
    return `pve-code-mcp ${command}${this.backend.cliArgs ? ` ${this.backend.cliArgs}` : ''}`;
  }
}

export interface ApproveOptions {
  ttlMs?: number;
  /** Who approved (default: the OS user); for an approval over HTTP use `approver`. */
  approvedBy?: string;
  now?: Date;
  again?: boolean;
  /** The principal the approval is for; default: the only principal that asked for the plan. */
  for?: string;
  /** A principal approving (over HTTP): recorded as `approvedBy`; refused for its own plan. */
  approver?: string;
  /** The approving principal's groups, checked against the asker's `approvers.group`. */
  approverGroups?: readonly string[];
  /**
   * The approver is a person logged in interactively (the console's OpenID Connect login), not
   * a bearer of a token an agent may hold: it may approve a plan it asked for itself when the
   * asker's policy wants no four eyes. Under four eyes it is refused like any self-approval.
   */
  interactive?: boolean;
  /** Where the approval is given (recorded); default `http` with an `approver`, else `cli`. */
  via?: 'http' | 'cli' | 'console';
}

/** Four eyes for one plan of one principal: another principal approves, from `group` when set. */
export interface ApproverRequirement {
  group?: string;
}

/** The requirement of a principal's newest request of a plan. */
function requirementIn(records: StoreRecord[], planId: string, principal: string): ApproverRequirement | undefined {
  let found: ApproverRequirement | undefined;
  for (const r of records) if (r.type === 'request' && r.planId === planId && r.principal === principal) found = r.approvers;
  return found;
}

function requestersIn(records: StoreRecord[], planId: string): string[] {
  const out: string[] = [];
  for (const r of records) if (r.type === 'request' && r.planId === planId && !out.includes(r.principal)) out.push((r as RequestRecord).principal);
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function currentUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** What to tell the agent when a write needs approval it does not have. */
export function approvalNextStep(): string {
  return (
    'Run the same script with dryRun: true to get its plan and planId, then ask the operator to approve it ' +
    '(`pve-code-mcp approve <planId>`) and run the script again unchanged; or use an MCP client that supports elicitation so the user can approve it directly'
  );
}
