/**
 * The host BridgeHandler: every call a sandboxed script makes goes through here, and everything
 * is enforced with the concrete parameters of that call (its envelope read by src/bridge/contract.ts,
 * its path and params checked once, by request resolution, src/policy/request.ts):
 *
 *   resolve path to an operation → risk class → budget (the attempt and its class, one step; a
 *   call refused before it resolves is charged where it is refused) → the cluster's knowledge of
 *   its targets → policy (deny wins, privileged one by one) → scopes → for writes: guest budget, approval or
 *   plan binding, guest identity (+ `digest`) → intent in the audit (durable) → send, or record
 *   in dry-run → redact → audit the outcome.
 *
 * The handler always resolves: every failure becomes a `BridgeError` the script can act on, with
 * the call's `outcome`. Write-ahead: a change is sent only once its intent is in the audit, so a
 * crash at any later point leaves an intent that a starting server can look up on PVE.
 *
 * This file holds the call itself: its envelope, resolution, decision, reads and audit record.
 * A change's further steps each have a module of their own, so each is read on its own: the
 * change from its decision to the wire (write.ts), what a plan shows and an approved step is held
 * to (plan-steps.ts), undo and the safety snapshot (undo-steps.ts), task waits (task-wait.ts),
 * and what they all share (runtime.ts).
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { capValue } from '../safety/caps.js';
import type { ClusterHandle } from '../policy/clusters.js';
import { decideCall } from '../policy/decide.js';
import { describeFor, lookUpFacts } from '../policy/facts.js';
import { GuestDirectory } from '../policy/guests.js';
import { IdentityGuard } from '../safety/identity.js';
import { redactData, redactInPlace, SecretScrubber } from '../safety/redact.js';
import { toBridgeError } from './errors.js';
import { InvalidCallError } from '../policy/call-shape.js';
import { resolveRequest, type ResolvedRequest } from '../policy/request.js';
import type { CallOutcome } from '../client/outcome.js';
import type { BridgeCall, BridgeContext, BridgeError, BridgeHandler, BridgeReply, RequestCall } from './protocol.js';
import { countChange, emptyCounts } from './stats.js';
import { budgetRefusal, markTainted, reach, Refusal, type BridgeDeps, type Reached, type Runtime } from './runtime.js';
import { write, type ChangeAttempt } from './write.js';
import { handleWait, plannedTaskRead } from './task-wait.js';
import { handleUndo } from './undo-steps.js';

/** The resolved request behind a call's audit record, whose params the record gets when it is written. */
const auditedParams = new WeakMap<Record<string, unknown>, ResolvedRequest>();

export function createBridgeHandler(deps: BridgeDeps): BridgeHandler {
  if (deps.mode === 'dry-run' && !deps.plan) throw new Error('dry-run mode needs a PlanRecorder (deps.plan)');
  if (deps.mode === 'approved' && !deps.binding) throw new Error('approved mode needs a PlanBinding (deps.binding)');
  // The policy's own lookups (guest directory, identity) see what the main credentials see: a read
  // token that cannot see a protected guest must not make it look absent to a target rule.
  const guests = deps.guests ?? new GuestDirectory((c) => deps.clusters.get(c).client);
  const rt: Runtime = {
    ...deps,
    guests,
    identity: deps.identity ?? new IdentityGuard((c) => deps.clusters.get(c).client, guests),
    taskClass: new Map(),
    snapshotted: new Set(),
    counts: deps.counts ?? emptyCounts(),
    secrets: deps.secrets ?? new SecretScrubber(),
  };
  return async (call: BridgeCall, ctx: BridgeContext): Promise<BridgeReply> => {
    try {
      return await handle(rt, call, ctx);
    } catch (err) {
      // Last line of defence: handle() records and answers its own failures.
      return { ok: false, error: scrubError(rt, toBridgeError(err, {})) };
    }
  };
}

async function handle(rt: Runtime, call: BridgeCall, ctx: BridgeContext): Promise<BridgeReply> {
  const started = performance.now();
  rt.counts.total++;
  const record: Record<string, unknown> = { runId: rt.runId, mode: rt.mode };
  if (rt.auditError !== undefined) {
    return {
      ok: false,
      error: {
        kind: 'audit',
        outcome: 'not-sent',
        message: `the audit log cannot be written (${rt.auditError}); this call was not sent, and no further calls are made in this run. Run again once the audit is writable (the server's log says why)`,
      },
    };
  }
  let reply: BridgeReply;
  try {
    // The cluster is resolved once per call; an attempt on one this run cannot reach counts against the run's own.
    const reached = reachOf(rt, call);
    // A request on a cluster it reaches is charged once resolved, attempt and class in one step
    // (handleRequest); every other call, and a request refused before, is charged here.
    if (call.kind !== 'request' || !('handle' in reached) || ctx.signal.aborted) chargeAttempt(rt, reached);
    if (call.kind === 'rejected') {
      if (call.error.kind === 'invalid') rt.counts.invalid++;
      record.channel = 'refused before parsing';
      throw new Refusal(call.error);
    }
    record.cluster = call.cluster ?? rt.clusters.home.name;
    if (ctx.signal.aborted) throw new Refusal({ kind: 'cancelled', message: 'the run has ended; the call was not made' });
    const data =
      call.kind === 'request'
        ? await handleRequest(rt, call, reached, ctx, record)
        : call.kind === 'waitTask'
          ? await handleWait(rt, call, reached, ctx, record)
          : await handleUndo(rt, call, ctx, record);
    reply = { ok: true, data };
    record.status = 'ok';
    record.outcome = 'done';
  } catch (err) {
    const error =
      err instanceof Refusal
        ? { outcome: 'not-sent' as const, ...err.error }
        : toBridgeError(err, record as { method?: HttpMethod; path?: string; risk?: RiskClass }, !failedBeforeSending(call, record));
    reply = { ok: false, error: scrubError(rt, error) };
    record.status = error.kind;
    record.outcome = error.outcome;
    if (error.status !== undefined) record.httpStatus = error.status;
    if (error.upid !== undefined) record.upid = error.upid;
    if (error.exitstatus !== undefined) record.exitstatus = error.exitstatus;
    record.message = reply.error.message;
  }
  const change = record.change as ChangeAttempt | undefined;
  if (change) {
    delete record.change;
    countChange(rt.counts, record.outcome as CallOutcome, { ...change, ...(typeof record.upid === 'string' ? { upid: record.upid } : {}) });
  }
  record.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const audit = (): void => {
    const req = auditedParams.get(record);
    if (req) record.params = capValue(redactData(req.params, req.concretePath));
    try {
      rt.audit?.append('call', record);
    } catch (err) {
      rt.auditError = err instanceof Error ? err.message : String(err);
    }
  };
  if (ctx.afterReply) ctx.afterReply(audit);
  else audit();
  return reply;
}

async function handleRequest(rt: Runtime, call: RequestCall, reached: Reached, ctx: BridgeContext, record: Record<string, unknown>): Promise<unknown> {
  const target = reach(rt, reached);
  const cluster = target.name;
  record.method = call.method;
  record.path = call.path;
  let req: ResolvedRequest;
  try {
    req = resolveRequest(target.model, call.method, call.path, call.params);
  } catch (err) {
    if (err instanceof InvalidCallError) {
      chargeAttempt(rt, reached);
      rt.counts.invalid++;
      throw new Refusal({ kind: 'invalid', message: err.message, method: call.method, path: call.path });
    }
    throw err;
  }
  const op = req.operation;
  const policy = target.policy;
  record.policy = policy.name;
  const described = describeFor({ cluster, operation: op, pathValues: req.pathValues, params: req.params, concretePath: req.concretePath }, policy);
  let risk = described.facts.risk;
  // Charged before anything is looked up: a call over its budget costs the cluster nothing.
  const budget = rt.budgets.for(cluster);
  const charged = budget.chargeCall(risk);
  if (charged?.limit === 'calls') throw budgetRefusal(charged);
  Object.assign(record, { path: req.concretePath, template: op.path, risk });
  // Redacted and capped for the audit after the answer left, off the call's path.
  auditedParams.set(record, req);
  if (described.facts.escalations.length > 0) record.escalations = described.facts.escalations.map((e) => `${e.param} (${e.rule})`);
  rt.counts.byRisk[risk]++;
  if (charged) throw budgetRefusal(charged, { method: req.method, path: req.concretePath, risk });
  const facts = described.lookup ? await lookUpFacts(described.facts, rt.guests, ctx.signal) : described.facts;
  if (facts.risk !== risk) {
    // Raised by what the lookup found (an HA-managed guest's shutdown, a flag on a privileged container): counted and audited as that.
    rt.counts.byRisk[risk]--;
    rt.counts.byRisk[facts.risk]++;
    const raised = budget.raiseRisk(risk, facts.risk);
    risk = facts.risk;
    Object.assign(record, { risk, escalations: facts.escalations.map((e) => `${e.param} (${e.rule})`) });
    if (raised) throw budgetRefusal(raised, { method: req.method, path: req.concretePath, risk });
  }
  const where = { method: req.method, path: req.concretePath, risk };

  const decision = decideCall(facts, policy);
  record.rule = decision.rule;
  if (decision.outcome === 'deny') {
    rt.counts.denied++;
    if (risk !== 'read') rt.plan?.refuse({ cluster, method: req.method, path: req.concretePath, risk, message: decision.message });
    throw new Refusal({ kind: 'denied', message: decision.message, ...where });
  }
  if (risk === 'read') return read(rt, target, req, ctx, record);
  return write(rt, budget, target, req, facts, decision, ctx, record);
}

async function read(rt: Runtime, target: ClusterHandle, req: ResolvedRequest, ctx: BridgeContext, record: Record<string, unknown>): Promise<unknown> {
  const planned = rt.plan ? plannedTaskRead(rt.plan, req) : undefined;
  if (planned !== undefined) {
    record.planned = true;
    return planned;
  }
  const data = await target.byClass.read.send(req, { signal: ctx.signal });
  rt.identity.observe(target.name, req.operation.path, req.pathValues, data);
  // The client parsed this body for this call alone: redact it where it is rather than copy it.
  return markTainted(rt, req, redactInPlace(data, req.concretePath, rt.secrets), record);
}

/**
 * A change that failed before its own request left (a lookup of the policy or the identity check
 * failed, the run ended first): whatever the failure, nothing was sent. A read, or a change past
 * its send step, is classified by the failure itself.
 */
function failedBeforeSending(call: BridgeCall, record: Record<string, unknown>): boolean {
  if (call.kind !== 'request') return false;
  if (record.risk === undefined) return true;
  return record.risk !== 'read' && record.change === undefined;
}

/** The run's own cluster without a lookup; another one through the run's clusters (resolved once per run). */
function reachOf(rt: Runtime, call: BridgeCall): Reached {
  const name = call.kind === 'rejected' ? undefined : call.cluster;
  if (name === undefined || name === rt.clusters.home.name) return { handle: rt.clusters.home };
  try {
    return { handle: rt.clusters.get(name) };
  } catch (err) {
    return { error: `unknown cluster '${name}': ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Counts an attempt against the budget of the cluster it reaches (the run's own when it reaches none). */
function chargeAttempt(rt: Runtime, reached: Reached): void {
  const refusal = rt.budgets.for('handle' in reached ? reached.handle.name : rt.clusters.home.name).chargeAttempt();
  if (refusal) throw budgetRefusal(refusal);
}

function scrubError(rt: Runtime, error: BridgeError): BridgeError {
  return rt.secrets.scrubDeep(error);
}
