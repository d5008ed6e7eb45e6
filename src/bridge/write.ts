/**
 * A change, from the policy's decision to the wire (src/bridge/handler.ts hands every write
 * here): the guest budget, approval or plan binding, the guests' identity and `digest`, the holds
 * to what the plan showed or to the worst case, then the dry-run plan's record, or undo's record,
 * the intent written ahead in the audit and the send. Apart from the handler because a change
 * takes steps a read never does.
 */
import type { HttpMethod } from '../schema/model.js';
import { parseUpid } from '../pve/upid.js';
import { approvalNextStep } from '../safety/approval.js';
import { capValue } from '../safety/caps.js';
import type { Budget } from '../safety/budget.js';
import type { ClusterHandle } from '../policy/clusters.js';
import type { Decision } from '../policy/decide.js';
import { touchedGuests, type CallFacts } from '../policy/facts.js';
import { takesGuestDigest, type GuestIdentity } from '../safety/identity.js';
import { radiusBeforeSteps, worstCaseDecision } from '../safety/blast-radius.js';
import { writeFingerprint, type ClaimedStep } from '../safety/plan.js';
import { redactData, redactInPlace } from '../safety/redact.js';
import type { ResolvedRequest } from '../policy/request.js';
import { SENT_GRACE_MS, type BridgeContext } from './protocol.js';
import type { UndoRecord } from '../safety/undo.js';
import { budgetRefusal, markTainted, Refusal, type Runtime } from './runtime.js';
import { holdToShownChange, holdToWorstCase, plannedChange, withEarlierSteps } from './plan-steps.js';
import { planSafetySnapshot, prepareUndo } from './undo-steps.js';

/** What the audit and the counters need to know of a change once it reached the send step. */
export interface ChangeAttempt {
  cluster: string;
  method: HttpMethod;
  path: string;
}

export async function write(
  rt: Runtime,
  budget: Budget,
  target: ClusterHandle,
  req: ResolvedRequest,
  facts: CallFacts,
  decision: Decision,
  ctx: BridgeContext,
  record: Record<string, unknown>,
): Promise<unknown> {
  const cluster = target.name;
  const risk = facts.risk;
  const where = { method: req.method, path: req.concretePath, risk };
  const guestBudget = budget.touchGuests(touchedGuests(facts));
  if (guestBudget) throw budgetRefusal(guestBudget, where);

  const needsApproval = decision.outcome === 'approval';
  const fingerprint = writeFingerprint(cluster, req.method, req.concretePath, req.params);
  let claim: ClaimedStep | undefined;
  if (rt.mode === 'live' && needsApproval) {
    rt.counts.needsApproval++;
    throw new Refusal({
      kind: 'approval',
      message: `${req.method} ${req.concretePath} is ${decision.reason}; nothing was sent. ${approvalNextStep()}`,
      ...where,
    });
  }
  if (rt.mode === 'approved' && rt.binding) {
    const bound = await rt.binding.acquire(fingerprint, ctx.signal);
    if (!bound.ok) {
      rt.counts.needsApproval++;
      record.binding = bound.reason;
      throw new Refusal({
        kind: 'approval',
        message: `${req.method} ${req.concretePath}: ${bound.message} (plan ${rt.binding.plan.planId}). Nothing was sent; an approved run makes exactly the approved writes in order — re-plan with dryRun: true if the script changed its mind`,
        ...where,
      });
    }
    claim = bound;
    record.planSeq = bound.write.seq;
  }
  // Settled whatever happens next, so a later step of a parallel fan-out waits for this one's answer.
  let sent = false;
  try {
    const hint = guestHint(req);
    const ownDoing = facts.targets.vmids.some((v) => rt.identity.wroteTo(cluster, v));
    const verdict = await rt.identity.check(cluster, facts.targets.vmids, hint, claim?.write.targets, ctx.signal);
    if (!verdict.ok) throw new Refusal({ kind: 'identity', message: verdict.message, ...where });
    record.targets = verdict.current.map(shortIdentity);
    if (claim && (claim.write.change || claim.write.blastRadius) && !ownDoing) {
      // After earlier steps of the plan were made, what reaches beyond one guest was shown as it was before them: not held again.
      const first = claim.write.seq === 1;
      await holdToShownChange(rt, target, req, verdict.current, verdict.configs, claim.write, { change: first || facts.targets.vmids.length > 0, radius: first }, ctx.signal, where);
    }
    // A write allowed outright still has its blast radius read: one that cannot be read counts as its worst case.
    if (rt.mode === 'live' && !needsApproval) await holdToWorstCase(rt, target, req, facts, decision, verdict.current, verdict.configs, ctx.signal, where);

    if (rt.mode === 'dry-run' && rt.plan) {
      await planSafetySnapshot(rt, rt.plan, cluster, req, facts, verdict.current, ctx.signal);
      const preview = await plannedChange(rt, target, req, verdict.current, verdict.configs, ctx.signal);
      const change = withEarlierSteps(rt.plan, cluster, facts.targets.vmids, preview.change);
      const blastRadius = preview.blastRadius && radiusBeforeSteps(preview.blastRadius, rt.plan.size);
      const shown = blastRadius ? worstCaseDecision(facts, target.policy, blastRadius, decision) : decision;
      if (shown.outcome === 'deny') {
        rt.counts.denied++;
        rt.plan.refuse({ cluster, method: req.method, path: req.concretePath, risk, message: shown.message });
        throw new Refusal({ kind: 'denied', message: shown.message, ...where });
      }
      const entry = rt.plan.record({
        cluster,
        method: req.method,
        path: req.concretePath,
        template: req.operation.path,
        params: redactData(req.params, req.concretePath, rt.secrets) as Record<string, unknown>,
        risk,
        needsApproval: shown.outcome === 'approval',
        ...(shown.outcome === 'approval' ? { why: shown.reason } : {}),
        targets: verdict.current,
        fullParams: req.params,
        returnsTask: returnsString(req),
        ...(req.pathValues.node !== undefined ? { node: req.pathValues.node } : {}),
        ...(change ? { change } : {}),
        ...(blastRadius ? { blastRadius } : {}),
      });
      rt.counts.planned++;
      record.planned = true;
      record.planSeq = entry.seq;
      return entry.upid ?? null;
    }

    let params = withGuestDigest(req, verdict.current);
    const client = target.byClass[risk];
    record.change = { cluster, method: req.method, path: req.concretePath } satisfies ChangeAttempt;
    const halt = rt.halted?.();
    if (halt !== undefined) throw new Refusal({ kind: 'halted', message: `${req.method} ${req.concretePath}: ${halt}`, ...where });
    const { undo, digest } = await prepareUndo(rt, cluster, req, facts, verdict.current, verdict.configs, ctx.signal, where);
    // A safety snapshot moved the config's digest (and nothing else): the change is held to the new one.
    if (digest && params.digest === digest.from) params = { ...params, digest: digest.to };
    writeIntent(rt, cluster, req, params, facts, record, undo);
    sent = true;
    const grace = graceAfter(ctx.signal, SENT_GRACE_MS);
    let data: unknown;
    try {
      data = await client.send(params === req.params ? req : { ...req, params }, { signal: grace.signal });
    } finally {
      grace.dispose();
    }
    rt.identity.noteWrite(cluster, facts.targets.vmids);
    if (typeof data === 'string' && parseUpid(data) !== undefined) {
      record.upid = data;
      rt.taskClass.set(data, risk);
      // A batch's progress counts the tasks started, not only those waited for.
      rt.onProgress?.({ cluster, upid: data, status: 'started', lines: [] });
    }
    // A guest-agent command's answer is the guest's own words.
    return markTainted(rt, req, redactInPlace(data, req.concretePath, rt.secrets), record);
  } finally {
    claim?.settle(sent);
  }
}

/**
 * The change's intent, durable in the audit before anything is sent; the outcome entry links to
 * it. Without an audit (tests, a handler called directly) there is nothing to write ahead to.
 */
function writeIntent(rt: Runtime, cluster: string, req: ResolvedRequest, params: Record<string, unknown>, facts: CallFacts, record: Record<string, unknown>, undo?: UndoRecord): void {
  if (!rt.audit) return;
  const intent: Record<string, unknown> = {
    runId: rt.runId,
    mode: rt.mode,
    cluster,
    method: req.method,
    path: req.concretePath,
    template: req.operation.path,
    risk: facts.risk,
    params: capValue(redactData(params, req.concretePath, rt.secrets)),
    ...(req.pathValues.node !== undefined ? { node: req.pathValues.node } : {}),
    ...(facts.targets.vmids.length > 0 ? { vmids: facts.targets.vmids } : {}),
    ...(record.planSeq !== undefined ? { planSeq: record.planSeq } : {}),
    ...(undo ? { undo } : {}),
  };
  try {
    record.intent = rt.audit.intend(intent).seq;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Refusal({
      kind: 'audit',
      message: `${req.method} ${req.concretePath} was not sent: its intent could not be written to the audit log (${why}). Nothing changed; run again once the audit is writable`,
      method: req.method,
      path: req.concretePath,
      risk: facts.risk,
    });
  }
}

/**
 * A signal that fires `ms` after `signal` does: a change already on the wire keeps its chance to
 * answer for a while after its run ended, so its outcome is known rather than `unknown`.
 */
function graceAfter(signal: AbortSignal, ms: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const start = (): void => {
    timer = setTimeout(() => controller.abort(signal.reason), ms);
  };
  if (signal.aborted) start();
  else signal.addEventListener('abort', start, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', start);
    },
  };
}

function guestHint(req: ResolvedRequest): { node?: string; type?: 'qemu' | 'lxc' } {
  const m = /^\/nodes\/\{node\}\/(qemu|lxc)(\/|$)/.exec(req.operation.path);
  return {
    ...(req.pathValues.node !== undefined ? { node: req.pathValues.node } : {}),
    ...(m ? { type: m[1] as 'qemu' | 'lxc' } : {}),
  };
}

/** Pass the guest's config digest where the endpoint takes it, unless the script set one. */
function withGuestDigest(req: ResolvedRequest, current: GuestIdentity[]): Record<string, unknown> {
  const digest = current.length === 1 ? current[0]?.digest : undefined;
  if (digest === undefined || Object.hasOwn(req.params, 'digest')) return req.params;
  if (
    !takesGuestDigest(
      req.operation.path,
      req.operation.params.map((p) => p.name),
    )
  )
    return req.params;
  return { ...req.params, digest };
}

function returnsString(req: ResolvedRequest): boolean {
  const t = req.operation.returns.type;
  return t === 'string' || (Array.isArray(t) && t.includes('string'));
}

function shortIdentity(t: GuestIdentity): Record<string, unknown> {
  return { vmid: t.vmid, exists: t.exists, ...(t.name ? { name: t.name } : {}), ...(t.digest ? { digest: t.digest } : {}) };
}
