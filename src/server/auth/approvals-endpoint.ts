/**
 * Approval from anywhere: an operator who is not on the server host approves a stored plan over
 * HTTP with an access token that has the approve scope.
 *
 *   GET  /approvals              plans waiting for approval (and their status), newest first
 *   GET  /approvals/<planId>     one plan: its summary and every planned write
 *   POST /approvals/<planId>     approve it; body (optional): {"for": "<principal>", "ttlMinutes": 60, "again": false}
 *
 * It is not an MCP tool on purpose: a model can call tools, and it must never approve its own
 * writes. The approval is for the principal who asked for the plan; the approver is recorded
 * beside it, and a principal cannot approve a plan it asked for itself (four eyes), so a token
 * that has both the write and the approve scope still needs a second person. When the asker's
 * policy names an approvers group (`approval.approvers.group`), the approver must be in it.
 */
import type { ServerResponse } from 'node:http';
import { type ApprovalStore, type StoredPlanStatus } from '../../safety/approval.js';
import { ApprovalError } from '../../safety/approval-errors.js';
import { summarizePlan } from '../../safety/plan.js';
import type { Principal } from './principal.js';

export const APPROVALS_PATH = '/approvals';

const PLAN_ID_OR_PREFIX = /^[0-9a-f]{8,64}$/;

export interface ApprovalsRequest {
  method: string;
  /** The part after /approvals: '' or '/<planId>'. */
  rest: string;
  principal: Principal;
  body: unknown;
  onApproved?(event: { planId: string; approver: string; for?: string; expiresAt: string }): void;
}

export function handleApprovals(store: ApprovalStore, request: ApprovalsRequest, res: ServerResponse): void {
  const { method, rest, principal } = request;
  if (rest === '' || rest === '/') {
    if (method !== 'GET') return methodNotAllowed(res, 'GET');
    const plans = store
      .list()
      .filter((s) => s.status !== 'ran')
      .map((s) => brief(s));
    return json(res, 200, { plans });
  }
  const idText = rest.slice(1).toLowerCase();
  if (!PLAN_ID_OR_PREFIX.test(idText)) return problem(res, 400, 'bad-plan-id', `'${rest.slice(1)}' is not a planId (64 hex characters, or a unique prefix of at least 8)`);
  let planId: string | undefined;
  try {
    planId = store.resolvePlanId(idText);
  } catch (err) {
    return approvalProblem(res, err);
  }
  if (!planId) return problem(res, 404, 'no-plan', `no stored plan ${idText}: the agent runs the script with dryRun: true and reports its planId`);
  if (method === 'GET') {
    let status: StoredPlanStatus | undefined;
    try {
      status = store.status(planId);
    } catch (err) {
      return approvalProblem(res, err);
    }
    if (!status) return problem(res, 404, 'no-plan', `no stored plan ${planId}`);
    return json(res, 200, { ...brief(status), writes: status.plan.writes, ...(status.plan.refused ? { refused: status.plan.refused } : {}) });
  }
  if (method !== 'POST') return methodNotAllowed(res, 'GET, POST');
  const body = request.body ?? {};
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return problem(res, 400, 'bad-body', 'the body must be a JSON object: {"for"?: string, "ttlMinutes"?: number, "again"?: boolean}');
  const { for: forWhom, ttlMinutes, again, ...unknown } = body as Record<string, unknown>;
  if (Object.keys(unknown).length > 0) return problem(res, 400, 'bad-body', `unknown key(s) ${Object.keys(unknown).join(', ')}; known: for, ttlMinutes, again`);
  if (forWhom !== undefined && (typeof forWhom !== 'string' || forWhom === '')) return problem(res, 400, 'bad-body', '"for" must be the id of the principal who asked for the plan');
  if (ttlMinutes !== undefined && (typeof ttlMinutes !== 'number' || !Number.isFinite(ttlMinutes) || ttlMinutes < 1 || ttlMinutes > 24 * 60)) {
    return problem(res, 400, 'bad-body', '"ttlMinutes" must be a number from 1 to 1440');
  }
  if (again !== undefined && typeof again !== 'boolean') return problem(res, 400, 'bad-body', '"again" must be true or false');
  try {
    const record = store.approve(planId, {
      approver: principal.id,
      approverGroups: principal.groups,
      ...(typeof forWhom === 'string' ? { for: forWhom } : {}),
      ...(typeof ttlMinutes === 'number' ? { ttlMs: Math.round(ttlMinutes * 60_000) } : {}),
      ...(again === true ? { again: true } : {}),
    });
    request.onApproved?.({ planId, approver: record.approvedBy, ...(record.requestedBy ? { for: record.requestedBy } : {}), expiresAt: record.expiresAt });
    return json(res, 200, {
      approved: { planId, for: record.requestedBy ?? null, approvedBy: record.approvedBy, approvedAt: record.approvedAt, expiresAt: record.expiresAt },
      next: `${record.requestedBy ?? 'the user'} runs the same script again unchanged; the approval is used once`,
    });
  } catch (err) {
    return approvalProblem(res, err);
  }
}

function brief(s: StoredPlanStatus): Record<string, unknown> {
  return {
    planId: s.plan.planId,
    createdAt: s.plan.createdAt,
    policy: s.plan.policy,
    status: s.status,
    requestedBy: s.requestedBy,
    ...(s.approval ? { approval: { for: s.approval.requestedBy ?? null, approvedBy: s.approval.approvedBy, expiresAt: s.approval.expiresAt } } : {}),
    summary: summarizePlan(s.plan),
  };
}

const STATUS: Record<string, number> = {
  'bad-plan-id': 400,
  'no-plan': 404,
  'plan-modified': 409,
  'already-run': 409,
  'already-consumed': 409,
  'ambiguous-requester': 409,
  'not-requested': 409,
  'self-approval': 403,
  'not-an-approver': 403,
  'store-locked': 503,
  'store-unavailable': 503,
};

function approvalProblem(res: ServerResponse, err: unknown): void {
  if (err instanceof ApprovalError) return problem(res, STATUS[err.code] ?? 400, err.code, err.message);
  return problem(res, 500, 'internal', `the approvals store failed: ${err instanceof Error ? err.message : String(err)}`);
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  problem(res, 405, 'method', `use ${allow}`);
}

function problem(res: ServerResponse, status: number, code: string, message: string): void {
  json(res, status, { error: { code, message } });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}
