/**
 * `pve.waitTask`: decided as the GETs of the task's status and log it makes are, charged as one
 * read and against the task-wait budget, its log marked as text guests control; and a dry-run's
 * planned task, answered from the plan (to a wait, or to a read of its status or log) rather than
 * sent. Apart from the handler because a wait runs on a budget and a clock of its own.
 */
import { isPlannedUpid, type PlannedWrite, type PlanRecorder } from '../safety/plan.js';
import { redactText } from '../safety/redact.js';
import type { TaskResult } from '../client/client-like.js';
import { PveTaskFailedError } from '../client/task-errors.js';
import type { ClusterHandle } from '../policy/clusters.js';
import { decideCall } from '../policy/decide.js';
import { resolveFacts } from '../policy/facts.js';
import { InvalidCallError, taskNode } from '../policy/call-shape.js';
import { resolveRequest, type ResolvedRequest } from '../policy/request.js';
import type { BridgeContext, WaitTaskCall } from './protocol.js';
import { countTainted } from './stats.js';
import { budgetRefusal, DEFAULT_TASK_TIMEOUT_MS, reach, Refusal, type Reached, type Runtime } from './runtime.js';

export async function handleWait(rt: Runtime, call: WaitTaskCall, reached: Reached, ctx: BridgeContext, record: Record<string, unknown>): Promise<TaskResult & { planned?: true }> {
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

/** A task's log is read as `GET …/tasks/{upid}/log` is, and carries what guests and hook scripts printed. */
function markTaskLog(rt: Runtime, upid: string, log: readonly string[], record: Record<string, unknown>): void {
  if (!log.some((l) => l.trim() !== '')) return;
  record.tainted = ['log'];
  countTainted(rt.counts, `waitTask ${upid}: log`);
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
export function plannedTaskRead(plan: PlanRecorder, req: ResolvedRequest): unknown {
  const upid = req.pathValues.upid;
  if (upid === undefined) return undefined;
  const write = plan.byUpid(upid);
  if (!write) return undefined;
  const task = plannedTask(upid, write);
  if (req.operation.path.endsWith('/status')) return { upid, node: task.node, status: task.status, exitstatus: task.exitstatus, type: 'dryrun', planned: true };
  if (req.operation.path.endsWith('/log')) return task.log.map((t, i) => ({ n: i + 1, t }));
  return undefined;
}
