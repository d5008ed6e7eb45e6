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
 */
import { type HttpMethod, RISK_CLASSES, type RiskClass } from '../schema/model.js';
import { isPlainObject } from '../schema/schema-node.js';
import { parseUpid } from '../pve/upid.js';
import { approvalNextStep } from '../safety/approval.js';
import { capValue } from '../safety/caps.js';
import type { Budget, BudgetRefusal, Budgets } from '../safety/budget.js';
import type { ClusterHandle, RunClusters } from '../policy/clusters.js';
import { decideCall, type Decision } from '../policy/decide.js';
import { describeFor, lookUpFacts, resolveFacts, touchedGuests, type CallFacts } from '../policy/facts.js';
import { GuestDirectory } from '../policy/guests.js';
import { IdentityGuard, takesGuestDigest, type GuestIdentity } from '../safety/identity.js';
import { previewChange, type PlannedChange } from '../safety/change-preview.js';
import { type BlastRadius, radiusBeforeSteps, shownRadius, worstCaseDecision } from '../safety/blast-radius.js';
import { computeBlastRadius } from '../safety/blast-radius-compute.js';
import { isPlannedUpid, writeFingerprint, type ClaimedStep, type PlanBinding, type PlannedWrite, type PlanRecorder } from '../safety/plan.js';
import { redactData, redactInPlace, redactText, SecretScrubber } from '../safety/redact.js';
import type { TaskResult } from '../client/client-like.js';
import { PveTaskFailedError } from '../client/errors.js';
import { toBridgeError } from './errors.js';
import { InvalidCallError, taskNode } from '../policy/call-shape.js';
import { resolveRequest, type ResolvedRequest } from '../policy/request.js';
import {
  SENT_GRACE_MS,
  type BridgeCall,
  type BridgeContext,
  type BridgeError,
  type BridgeHandler,
  type BridgeReply,
  type CallOutcome,
  type RequestCall,
  type UndoCall,
  type WaitTaskCall,
} from './protocol.js';
import { countChange, countTainted, emptyCounts, type CallCounts } from './stats.js';
import { taintedParts, taintSource } from '../policy/taint.js';
import { planUndo, undoReadsVia, undoRecordOf, updateRecordOf, type RecordedChange, type UndoGuest, type UndoPlan, type UndoRecord } from '../safety/undo.js';
import { canSnapshot, safetySnapshot, snapshotNote, wantsSafetySnapshot } from './safety-snapshot.js';

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

const DEFAULT_TASK_TIMEOUT_MS = 300_000;

/** The resolved request behind a call's audit record, whose params the record gets when it is written. */
const auditedParams = new WeakMap<Record<string, unknown>, ResolvedRequest>();

/** A call stopped by the bridge itself; carries the reply. */
class Refusal extends Error {
  constructor(readonly error: BridgeError) {
    super(error.message);
  }
}

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

type Runtime = BridgeDeps & {
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

/** What the audit and the counters need to know of a change once it reached the send step. */
interface ChangeAttempt {
  cluster: string;
  method: HttpMethod;
  path: string;
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
  const risk = described.facts.risk;
  // Charged before anything is looked up: a call over its budget costs the cluster nothing.
  const budget = rt.budgets.for(cluster);
  const charged = budget.chargeCall(risk);
  if (charged?.limit === 'calls') throw budgetRefusal(charged);
  Object.assign(record, { path: req.concretePath, template: op.path, risk });
  // Redacted and capped for the audit after the answer left, off the call's path.
  auditedParams.set(record, req);
  if (described.facts.escalations.length > 0) record.escalations = described.facts.escalations.map((e) => `${e.param} (${e.rule})`);
  const where = { method: req.method, path: req.concretePath, risk };
  rt.counts.byRisk[risk]++;
  if (charged) throw budgetRefusal(charged, where);
  const facts = described.lookup ? await lookUpFacts(described.facts, rt.guests, ctx.signal) : described.facts;

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

/** A task's log is read as `GET …/tasks/{upid}/log` is, and carries what guests and hook scripts printed. */
function markTaskLog(rt: Runtime, upid: string, log: readonly string[], record: Record<string, unknown>): void {
  if (!log.some((l) => l.trim() !== '')) return;
  record.tainted = ['log'];
  countTainted(rt.counts, `waitTask ${upid}: log`);
}

/** Note, in the call's audit record and the run's counters, text guests or other people control in this answer. */
function markTainted(rt: Runtime, req: ResolvedRequest, data: unknown, record: Record<string, unknown>): unknown {
  const parts = taintedParts(req.method, req.operation.path, data);
  if (parts.length === 0) return data;
  record.tainted = parts;
  countTainted(rt.counts, taintSource(req.method, req.concretePath, parts));
  return data;
}

async function write(
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

/** A guest of one target, as undo names it; undefined unless the write targets exactly one existing guest. */
function soleGuest(current: GuestIdentity[]): UndoGuest | undefined {
  const t = current.length === 1 ? current[0] : undefined;
  return t?.exists && t.node !== undefined && t.type !== undefined ? { node: t.node, type: t.type, vmid: t.vmid } : undefined;
}

/**
 * What reverses this write, recorded with its intent (the config the identity check just read
 * gives the previous values: no extra read); and the safety snapshot the policy asks for before
 * a risky change, taken first (a failed one stops the change).
 */
async function prepareUndo(
  rt: Runtime,
  cluster: string,
  req: ResolvedRequest,
  facts: CallFacts,
  current: GuestIdentity[],
  configs: Map<number, Record<string, unknown>>,
  signal: AbortSignal,
  where: { method: HttpMethod; path: string; risk: RiskClass },
): Promise<{ undo?: UndoRecord; digest?: { from: string; to: string } }> {
  const audit = rt.audit;
  if (!audit) return {};
  const guest = soleGuest(current);
  const config = guest ? configs.get(guest.vmid) : undefined;
  const configPath = guest ? `/nodes/${guest.node}/${guest.type}/${guest.vmid}/config` : req.concretePath;
  let undo = undoRecordOf({
    method: req.method,
    template: req.operation.path,
    pathValues: req.pathValues,
    params: req.params,
    ...(config ? { config } : {}),
    redact: (v) => redactData(v, configPath, rt.secrets) as Record<string, unknown>,
  });
  if (undo.kind === 'none') undo = (await readBeforeUpdate(rt, cluster, req, signal)) ?? undo;
  const key = guest ? `${cluster}\u0000${guest.vmid}` : '';
  if (!guest || rt.snapshotted.has(key) || !wantsSafetySnapshot(rt.clusters.get(cluster).policy, facts.risk, req.operation.path, req.method)) return { undo };
  let taken: 'taken' | 'unsupported';
  try {
    taken = await safetySnapshot({
      runId: rt.runId,
      guest,
      get: (path, params) => rt.clusters.get(cluster).client.request('GET', path, params, { signal }),
      intend: (data) => audit.intend({ runId: rt.runId, mode: rt.mode, cluster, ...data }).seq,
      post: (path, params) => rt.clusters.get(cluster).byClass.write.request('POST', path, params, { signal }),
      waitTask: (upid) => rt.clusters.get(cluster).byClass.write.waitTask(upid, { timeoutMs: rt.defaultTaskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS, signal }),
      outcome: (data) => audit.append('call', { runId: rt.runId, mode: rt.mode, cluster, risk: 'write', ...data }),
    });
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw new Refusal({
      kind: 'api',
      message: `${req.method} ${req.concretePath} was not sent: the safety snapshot the policy asks for before it could not be taken (${err instanceof Error ? err.message : String(err)}). Free the guest (a lock, a snapshot in progress) and run again`,
      ...where,
    });
  }
  // Only once it is taken (or cannot be): after a failed one, the next change to the guest tries again.
  rt.snapshotted.add(key);
  if (taken !== 'taken' || !config || typeof config.digest !== 'string') return { undo };
  rt.identity.noteWrite(cluster, [guest.vmid]);
  return { undo, digest: { from: config.digest, to: await digestAfterSnapshot(rt, cluster, configPath, config, signal, where) } };
}

/**
 * The config's digest once the safety snapshot is taken. The snapshot changes only its `parent`
 * (and so the digest); anything else that differs was changed by someone else meanwhile, and the
 * change, checked against the config before, is not sent.
 */
async function digestAfterSnapshot(
  rt: Runtime,
  cluster: string,
  configPath: string,
  before: Record<string, unknown>,
  signal: AbortSignal,
  where: { method: HttpMethod; path: string; risk: RiskClass },
): Promise<string> {
  const settings = (c: Record<string, unknown>): string =>
    JSON.stringify(
      Object.entries(c)
        .filter(([k]) => k !== 'digest' && k !== 'parent')
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  const now = await rt.clusters.get(cluster).client.request('GET', configPath, {}, { signal });
  if (isPlainObject(now) && typeof now.digest === 'string' && settings(now) === settings(before)) return now.digest;
  throw new Refusal({ kind: 'identity', message: `${where.method} ${where.path} was not sent: the guest's config changed while the safety snapshot was taken; read it again and re-plan`, ...where });
}

/**
 * Another update (a `PUT` whose path a `GET` reads back): under the policy's
 * `undo.readBeforeUpdate` (default on) the object is read first (one GET with the policy's own
 * credentials), so undo can put its previous values back. A failed read only leaves the change
 * without a reversal.
 */
async function readBeforeUpdate(rt: Runtime, cluster: string, req: ResolvedRequest, signal: AbortSignal): Promise<UndoRecord | undefined> {
  if (req.method !== 'PUT' || !rt.clusters.get(cluster).policy.config.undo.readBeforeUpdate || !rt.clusters.get(cluster).model.get('GET', req.operation.path)) return undefined;
  let current: unknown;
  try {
    current = await rt.clusters.get(cluster).client.request('GET', req.urlPath, {}, { signal });
  } catch {
    return undefined;
  }
  if (!isPlainObject(current)) return undefined;
  return updateRecordOf({
    method: req.method,
    template: req.operation.path,
    pathValues: req.pathValues,
    params: req.params,
    path: req.concretePath,
    current,
    // A `delete` list of keys (a pool's boolean `delete` removes members instead).
    canDelete: req.operation.params.some((p) => p.name === 'delete' && p.type === 'string'),
    redact: (v) => redactData(v, req.concretePath, rt.secrets) as Record<string, unknown>,
  });
}

/** In a dry-run: say in the plan whether a safety snapshot will be taken before this step. */
async function planSafetySnapshot(rt: Runtime, plan: PlanRecorder, cluster: string, req: ResolvedRequest, facts: CallFacts, current: GuestIdentity[], signal: AbortSignal): Promise<void> {
  const guest = soleGuest(current);
  const key = guest ? `${cluster}\u0000${guest.vmid}` : '';
  if (!guest || rt.snapshotted.has(key) || !wantsSafetySnapshot(rt.clusters.get(cluster).policy, facts.risk, req.operation.path, req.method)) return;
  rt.snapshotted.add(key);
  const can = await canSnapshot(guest, (path, params) => rt.clusters.get(cluster).client.request('GET', path, params, { signal }));
  plan.note(snapshotNote(guest, plan.size + 1, can));
}

/**
 * `pve.undo(runId)`: the reversing steps of an earlier run, from its audit records and the
 * cluster as it is now; the script makes them as ordinary requests. In a dry-run what cannot be
 * undone goes into the plan, so the human reads it before approving the steps.
 */
async function handleUndo(rt: Runtime, call: UndoCall, ctx: BridgeContext, record: Record<string, unknown>): Promise<UndoPlan> {
  Object.assign(record, { kind: 'undo', undoOf: call.runId });
  if (!rt.runChanges) throw new Refusal({ kind: 'invalid', message: 'pve.undo is not available here: this server keeps no audit log to read the run from' });
  if (call.runId === rt.runId) throw new Refusal({ kind: 'invalid', message: 'a run cannot undo itself: undo it from a later run' });
  let changes: RecordedChange[];
  try {
    changes = rt.runChanges(call.runId);
  } catch (err) {
    throw new Refusal({ kind: 'audit', message: `the audit log could not be read for run ${call.runId} (${err instanceof Error ? err.message : String(err)}); nothing was planned` });
  }
  if (changes.length === 0) {
    throw new Refusal({
      kind: 'invalid',
      message: `run ${call.runId} made no recorded changes of yours in this server's audit (a dry-run records none; another principal's run is theirs to undo): check the id, the changes.runId of the run's answer`,
    });
  }
  const refusal = rt.budgets.for(call.cluster ?? rt.clusters.home.name).chargeRisk('read');
  if (refusal) throw budgetRefusal(refusal);
  const plan = await planUndo(
    call.runId,
    changes,
    undoReadsVia((cluster, path) => rt.clusters.get(cluster).client.request('GET', path, {}, { signal: ctx.signal })),
  );
  for (const text of plan.cannot) rt.plan?.note(`not undone: ${text}`);
  record.undoSteps = plan.steps.length;
  return redactData(plan, undefined, rt.secrets) as UndoPlan;
}

/**
 * What a planned write changes, from the config the identity check read and (dry-run only) a
 * status or snapshot-list read with the policy's own credentials. Values are redacted as the
 * script's reads are; a failed read makes the change say so rather than fail the plan.
 */
async function plannedChange(
  rt: Runtime,
  target: ClusterHandle,
  req: ResolvedRequest,
  current: GuestIdentity[],
  configs: Map<number, Record<string, unknown>>,
  signal: AbortSignal,
): Promise<{ change?: PlannedChange; blastRadius?: BlastRadius }> {
  const input = previewInput(rt, target, req, current, configs, signal);
  const [change, blastRadius] = await Promise.all([previewChange(input), computeBlastRadius(input)]);
  return { ...(change ? { change } : {}), ...(blastRadius ? { blastRadius } : {}) };
}

function previewInput(rt: Runtime, target: ClusterHandle, req: ResolvedRequest, current: GuestIdentity[], configs: Map<number, Record<string, unknown>>, signal: AbortSignal) {
  const guest = current.length === 1 ? current[0] : undefined;
  const raw = guest ? configs.get(guest.vmid) : undefined;
  const configPath = guest?.node && guest.type ? `/nodes/${guest.node}/${guest.type}/${guest.vmid}/config` : req.concretePath;
  return {
    method: req.method,
    template: req.operation.path,
    pathValues: req.pathValues,
    params: redactData(req.params, req.concretePath, rt.secrets) as Record<string, unknown>,
    ...(guest ? { target: guest } : {}),
    ...(raw ? { config: redactData(raw, configPath, rt.secrets) as Record<string, unknown> } : {}),
    read: (path: string) => target.client.request('GET', path, {}, { signal }),
    // Every credential this server uses on the cluster (main and per class): deleting one cuts it off.
    ownAuthIds: [...new Set([target.client, ...RISK_CLASSES.map((c) => target.byClass[c])].map((c) => c.authId).filter((id): id is string => id !== undefined))],
  };
}

/**
 * A live write the policy allows outright: its blast radius is read too, and when a read fails
 * the call is decided again as its worst case (src/safety/blast-radius.ts), which may ask for
 * approval or refuse. Writes of no blast-radius family read nothing here.
 */
async function holdToWorstCase(
  rt: Runtime,
  target: ClusterHandle,
  req: ResolvedRequest,
  facts: CallFacts,
  decision: Decision,
  current: GuestIdentity[],
  configs: Map<number, Record<string, unknown>>,
  signal: AbortSignal,
  where: { method: HttpMethod; path: string; risk: RiskClass },
): Promise<void> {
  const blastRadius = await computeBlastRadius(previewInput(rt, target, req, current, configs, signal));
  if (!blastRadius || blastRadius.complete) return;
  const worst = worstCaseDecision(facts, target.policy, blastRadius, decision);
  if (worst.outcome === 'deny') throw new Refusal({ kind: 'denied', message: worst.message, ...where });
  if (worst.outcome === 'approval') {
    rt.counts.needsApproval++;
    throw new Refusal({ kind: 'approval', message: `${req.method} ${req.concretePath} is ${worst.reason}; nothing was sent. ${approvalNextStep()}`, ...where });
  }
}

/** A change read while earlier steps of the plan on the same guest were only planned says so. */
function withEarlierSteps(plan: PlanRecorder, cluster: string, vmids: readonly number[], change: PlannedChange | undefined): PlannedChange | undefined {
  if (!change) return undefined;
  const earlier = vmids.map((v) => plan.lastStepOn(cluster, v)).filter((s): s is number => s !== undefined);
  if (earlier.length === 0) return change;
  return { ...change, summary: `${change.summary} [as it is now, before step ${Math.max(...earlier)} of this plan also changes this guest]` };
}

/**
 * The approval binds to what was shown: an approved step whose change, read again now, differs
 * from what the plan showed (the guest was started meanwhile, the snapshot is another one) is a
 * different plan, refused before it is sent. Config writes are already held by the config digest;
 * this covers the state the digest does not (a power state, a snapshot's date). A guest this run
 * has written to is skipped: the plan showed it as it was before the run's own earlier steps.
 */
async function holdToShownChange(
  rt: Runtime,
  target: ClusterHandle,
  req: ResolvedRequest,
  current: GuestIdentity[],
  configs: Map<number, Record<string, unknown>>,
  step: PlannedWrite,
  hold: { change: boolean; radius: boolean },
  signal: AbortSignal,
  where: { method: HttpMethod; path: string; risk: RiskClass },
): Promise<void> {
  if (!hold.change && !hold.radius) return;
  const { change: now, blastRadius } = await plannedChange(rt, target, req, current, configs, signal);
  const sameChange = !hold.change || step.change === undefined || (now !== undefined && now.summary === step.change.summary && JSON.stringify(now.lines) === JSON.stringify(step.change.lines));
  const sameRadius = !hold.radius || JSON.stringify(shownRadius(blastRadius)) === JSON.stringify(shownRadius(step.blastRadius));
  if (sameChange && sameRadius) return;
  const [was, is] = sameChange ? [step.blastRadius?.summary ?? '(no blast radius)', blastRadius?.summary ?? '(no blast radius)'] : [step.change?.summary ?? '', now?.summary ?? '(not described)'];
  throw new Refusal({
    kind: 'identity',
    message: `${req.method} ${req.concretePath}: the approved plan showed "${was}", and now it would be "${is}": what the human approved no longer holds, so this is a different plan; nothing was sent. Dry-run the script again and have the new plan approved`,
    ...where,
  });
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

async function handleWait(rt: Runtime, call: WaitTaskCall, reached: Reached, ctx: BridgeContext, record: Record<string, unknown>): Promise<TaskResult & { planned?: true }> {
  rt.counts.taskWaits++;
  Object.assign(record, { kind: 'waitTask', upid: call.upid });
  const planned = rt.plan?.byUpid(call.upid);
  if (planned) {
    record.planned = true;
    return plannedTask(call.upid, planned);
  }
  if (isPlannedUpid(call.upid)) {
    throw new Refusal({ kind: 'invalid', message: `${call.upid} is a planned task from a dry-run, not a real one; it cannot be waited for in this run` });
  }
  const target = reach(rt, reached);
  const cluster = target.name;
  await decideTaskRead(rt, target, call.upid, ctx, record);
  const budget = rt.budgets.for(cluster);
  const remaining = budget.remainingWaitMs();
  if (remaining <= 0) throw budgetRefusal(budget.waitRefusal());
  const timeoutMs = Math.min(call.timeoutMs ?? rt.defaultTaskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS, remaining);
  const started = performance.now();
  try {
    const result = await target.byClass[rt.taskClass.get(call.upid) ?? 'read'].waitTask(call.upid, {
      timeoutMs,
      signal: ctx.signal,
      onProgress: (lines, status) => rt.onProgress?.({ cluster, upid: call.upid, status: status.status, lines: lines.map((l) => redactText(l, rt.secrets)) }),
    });
    record.exitstatus = result.exitstatus;
    markTaskLog(rt, call.upid, result.log, record);
    return rt.secrets.scrubDeep({ ...result, log: result.log.map((l) => redactText(l)) });
  } catch (err) {
    // A failed task's error carries its log's tail to the script.
    if (err instanceof PveTaskFailedError) markTaskLog(rt, call.upid, err.log, record);
    throw err;
  } finally {
    budget.chargeWait(performance.now() - started);
  }
}

/**
 * Waiting for a task reads its status and log: it is decided as those GETs are (path rules, node
 * scope, the task's guest), and charged as one read.
 */
async function decideTaskRead(rt: Runtime, target: ClusterHandle, upid: string, ctx: BridgeContext, record: Record<string, unknown>): Promise<void> {
  const { name: cluster, model, policy } = target;
  record.policy = policy.name;
  let node: string;
  try {
    node = taskNode(upid);
  } catch (err) {
    if (!(err instanceof InvalidCallError)) throw err;
    rt.counts.invalid++;
    throw new Refusal({ kind: 'invalid', message: err.message });
  }
  for (const leaf of ['status', 'log'] as const) {
    let req: ResolvedRequest;
    try {
      req = resolveRequest(model, 'GET', `/nodes/${node}/tasks/${upid}/${leaf}`, {});
    } catch (err) {
      if (!(err instanceof InvalidCallError)) throw err;
      rt.counts.invalid++;
      throw new Refusal({ kind: 'invalid', message: `'${upid}' is not a task ID this cluster can look up: ${err.message}` });
    }
    const facts = await resolveFacts({ cluster, operation: req.operation, pathValues: req.pathValues, params: req.params, concretePath: req.concretePath }, policy, rt.guests, ctx.signal);
    const decision = decideCall(facts, policy);
    record.rule = decision.rule;
    if (decision.outcome === 'deny') {
      rt.counts.denied++;
      throw new Refusal({ kind: 'denied', message: `waiting for task ${upid} reads its ${leaf}: ${decision.message}`, method: 'GET', path: req.concretePath, risk: 'read' });
    }
  }
  const refusal = rt.budgets.for(cluster).chargeRisk('read');
  if (refusal) throw budgetRefusal(refusal);
}

/** The cluster a call names, resolved once: its handle, or why this run cannot reach it. */
type Reached = { handle: ClusterHandle } | { error: string };

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

/** The cluster a call goes to; one the run cannot reach is refused as `invalid`. */
function reach(rt: Runtime, reached: Reached): ClusterHandle {
  if ('handle' in reached) return reached.handle;
  rt.counts.invalid++;
  throw new Refusal({ kind: 'invalid', message: reached.error });
}

/** Counts an attempt against the budget of the cluster it reaches (the run's own when it reaches none). */
function chargeAttempt(rt: Runtime, reached: Reached): void {
  const refusal = rt.budgets.for('handle' in reached ? reached.handle.name : rt.clusters.home.name).chargeAttempt();
  if (refusal) throw budgetRefusal(refusal);
}

function budgetRefusal(refusal: BudgetRefusal, where?: { method: HttpMethod; path: string; risk: RiskClass }): Refusal {
  return new Refusal({ kind: 'budget', message: refusal.message, ...(where ?? {}) });
}

function scrubError(rt: Runtime, error: BridgeError): BridgeError {
  return rt.secrets.scrubDeep(error);
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

function plannedTask(upid: string, write: PlannedWrite): TaskResult & { planned: true } {
  return {
    upid,
    node: upid.split(':')[1] ?? '',
    status: 'stopped',
    exitstatus: 'OK',
    ok: true,
    log: [`dry-run: ${write.method} ${write.path} was planned (plan step ${write.seq}), not sent`],
    planned: true,
  };
}

/** Task status/log reads for a planned UPID are answered from the plan (plain data, nothing secret), not sent. */
function plannedTaskRead(plan: PlanRecorder, req: ResolvedRequest): unknown {
  const upid = req.pathValues.upid;
  if (upid === undefined) return undefined;
  const write = plan.byUpid(upid);
  if (!write) return undefined;
  const task = plannedTask(upid, write);
  if (req.operation.path.endsWith('/status')) return { upid, node: task.node, status: task.status, exitstatus: task.exitstatus, type: 'dryrun', planned: true };
  if (req.operation.path.endsWith('/log')) return task.log.map((t, i) => ({ n: i + 1, t }));
  return undefined;
}
