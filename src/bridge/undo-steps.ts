/**
 * Undo on the bridge's side: what reverses a change, recorded with its intent before it is sent
 * (from the config the identity check read, or one read of the object before an update); the
 * safety snapshot the policy asks for before a risky change, taken in a live run or announced in
 * a plan; and `pve.undo(runId)`, an earlier run's reversing steps. Together because they share the
 * one-guest rule and the run's one safety snapshot per guest.
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { isPlainObject } from '../schema/schema-node.js';
import type { CallFacts } from '../policy/facts.js';
import type { GuestIdentity } from '../safety/identity.js';
import type { PlanRecorder } from '../safety/plan.js';
import { redactData } from '../safety/redact.js';
import type { ResolvedRequest } from '../policy/request.js';
import type { BridgeContext, UndoCall } from './protocol.js';
import { planUndo, undoReadsVia, undoRecordOf, updateRecordOf, type RecordedChange, type UndoGuest, type UndoPlan, type UndoRecord } from '../safety/undo.js';
import { canSnapshot, safetySnapshot, snapshotNote, wantsSafetySnapshot } from './safety-snapshot.js';
import { budgetRefusal, DEFAULT_TASK_TIMEOUT_MS, Refusal, type Runtime } from './runtime.js';

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
export async function prepareUndo(
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
export async function planSafetySnapshot(rt: Runtime, plan: PlanRecorder, cluster: string, req: ResolvedRequest, facts: CallFacts, current: GuestIdentity[], signal: AbortSignal): Promise<void> {
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
export async function handleUndo(rt: Runtime, call: UndoCall, ctx: BridgeContext, record: Record<string, unknown>): Promise<UndoPlan> {
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
