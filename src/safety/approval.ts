/**
 * Approvals the model cannot forge.
 *
 * Writes in risk classes the policy marks as needing approval run only in an approved run, and a
 * run is approved in one of two ways, neither of which the model can produce:
 *   (a) the MCP client shows the plan summary to the human through elicitation and the human
 *       accepts (`Approver`, implemented by the MCP server);
 *   (b) the operator approves the planId out of band: `pve-code-mcp approve <planId>` appends an
 *       approval to `approvals.jsonl` in the state directory (`approvePlan`).
 * Dry-run plans are stored under `plans/<planId>.json` so the CLI can show what it approves and
 * the approved run can be held to it. Approvals expire and are used once.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { HTTP_METHODS, RISK_CLASSES } from '../schema/model.js';
import type { Plan } from './plan.js';
import { computePlanId } from './plan.js';

export type ElicitationAnswer = 'accept' | 'decline' | 'unsupported';

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

const PLAN_ID = /^[0-9a-f]{64}$/;

export class ApprovalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ApprovalError';
  }
}

const GuestIdentitySchema = z.object({
  vmid: z.number().int(),
  exists: z.boolean(),
  type: z.enum(['qemu', 'lxc']).optional(),
  node: z.string().optional(),
  name: z.string().optional(),
  digest: z.string().optional(),
});

const PlanSchema = z.object({
  version: z.literal(1),
  planId: z.string().regex(PLAN_ID),
  codeHash: z.string().regex(PLAN_ID),
  policy: z.string(),
  createdAt: z.string(),
  writes: z.array(
    z.object({
      seq: z.number().int().min(1),
      cluster: z.string(),
      method: z.enum(HTTP_METHODS),
      path: z.string(),
      template: z.string(),
      params: z.record(z.string(), z.unknown()),
      risk: z.enum(RISK_CLASSES),
      needsApproval: z.boolean(),
      targets: z.array(GuestIdentitySchema),
      fingerprint: z.string().regex(PLAN_ID),
      upid: z.string().optional(),
    }),
  ),
});

const RecordSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('approve'),
    planId: z.string().regex(PLAN_ID),
    codeHash: z.string().regex(PLAN_ID),
    approvedAt: z.string(),
    expiresAt: z.string(),
    approvedBy: z.string(),
  }),
  z.object({ type: z.literal('consume'), planId: z.string().regex(PLAN_ID), at: z.string(), runId: z.string() }),
]);

export type ApprovalRecord = Extract<z.infer<typeof RecordSchema>, { type: 'approve' }>;

export interface ApprovalMatch {
  approval: ApprovalRecord;
  plan: Plan;
}

export class ApprovalStore {
  constructor(readonly dir: string) {}

  private get approvalsFile(): string {
    return join(this.dir, 'approvals.jsonl');
  }

  private planFile(planId: string): string {
    if (!PLAN_ID.test(planId)) throw new ApprovalError(`'${planId}' is not a planId (64 hex characters from a dry-run result)`);
    return join(this.dir, 'plans', `${planId}.json`);
  }

  /** Keep a dry-run plan so it can be approved and enforced later (owner-only file). */
  savePlan(plan: Plan): void {
    const file = this.planFile(plan.planId);
    mkdirSync(join(this.dir, 'plans'), { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify(plan, null, 2) + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
  }

  loadPlan(planId: string): Plan | undefined {
    let text: string;
    try {
      text = readFileSync(this.planFile(planId), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const parsed = PlanSchema.safeParse(safeJson(text));
    if (!parsed.success) throw new ApprovalError(`stored plan ${planId} is unreadable or was modified; run the script with dryRun: true again`);
    const plan = parsed.data as Plan;
    // The file name, the recorded id and the content must agree: an edited plan is not the approved one.
    if (plan.planId !== planId || computePlanId(plan.codeHash, plan.writes) !== planId) {
      throw new ApprovalError(`stored plan ${planId} does not match its id (edited?); run the script with dryRun: true again`);
    }
    return plan;
  }

  /** Record the operator's approval of a stored plan. */
  approve(planId: string, opts: { ttlMs?: number; approvedBy?: string; now?: Date } = {}): ApprovalRecord {
    const plan = this.loadPlan(planId);
    if (!plan) {
      throw new ApprovalError(`no dry-run plan ${planId} in ${this.dir}; run the script with dryRun: true and approve the planId it reports`);
    }
    const now = opts.now ?? new Date();
    const record: ApprovalRecord = {
      type: 'approve',
      planId,
      codeHash: plan.codeHash,
      approvedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + (opts.ttlMs ?? DEFAULT_APPROVAL_TTL_MS)).toISOString(),
      approvedBy: opts.approvedBy ?? currentUser(),
    };
    this.append(record);
    return record;
  }

  /** Mark an approval used by a run; each approval authorizes one run. */
  consume(planId: string, runId: string, now: Date = new Date()): void {
    this.append({ type: 'consume', planId, at: now.toISOString(), runId });
  }

  /**
   * A valid (approved, unexpired, unused) approval for this script, by planId or else by the
   * script's hash, together with its stored plan.
   */
  find(query: { planId?: string; codeHash: string }, now: Date = new Date()): ApprovalMatch | undefined {
    const records = this.records();
    const consumed = new Set(records.filter((r) => r.type === 'consume').map((r) => r.planId));
    const approvals = records
      .filter((r): r is ApprovalRecord => r.type === 'approve')
      .filter((r) => !consumed.has(r.planId) && Date.parse(r.expiresAt) > now.getTime() && r.codeHash === query.codeHash)
      .filter((r) => query.planId === undefined || r.planId === query.planId)
      .reverse();
    for (const approval of approvals) {
      const plan = this.loadPlan(approval.planId);
      if (plan && plan.codeHash === query.codeHash) return { approval, plan };
    }
    return undefined;
  }

  private records(): Array<z.infer<typeof RecordSchema>> {
    let text: string;
    try {
      text = readFileSync(this.approvalsFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<z.infer<typeof RecordSchema>> = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      const parsed = RecordSchema.safeParse(safeJson(line));
      if (parsed.success) out.push(parsed.data);
    }
    return out;
  }

  private append(record: z.infer<typeof RecordSchema>): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    appendFileSync(this.approvalsFile, JSON.stringify(record) + '\n', { mode: 0o600 });
  }
}

/** CLI entry: `pve-code-mcp approve <planId>`. Returns the record; throws ApprovalError with the next step. */
export function approvePlan(planId: string, storeDir: string, opts: { ttlMs?: number; approvedBy?: string; now?: Date } = {}): ApprovalRecord {
  return new ApprovalStore(storeDir).approve(planId.trim().toLowerCase(), opts);
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
  return 'Run the same script with dryRun: true to get its plan and planId, then ask the operator to approve it ' +
    '(`pve-code-mcp approve <planId>`) and run the script again unchanged; or use an MCP client that supports elicitation so the user can approve it directly';
}
