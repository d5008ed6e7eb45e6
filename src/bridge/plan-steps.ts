/**
 * What a write's preview says and how an approval is held to it: the change and blast radius a
 * dry-run shows (read with the policy's own credentials, redacted as the script's reads are), a
 * live write's blast radius decided as its worst case when a read fails, and an approved step
 * refused when what it would do now is not what the human approved. One module, so the plan and
 * the checks against it read a change the same way.
 */
import { type HttpMethod, RISK_CLASSES, type RiskClass } from '../schema/model.js';
import { approvalNextStep } from '../safety/approval.js';
import type { ClusterHandle } from '../policy/clusters.js';
import type { Decision } from '../policy/decide.js';
import type { CallFacts } from '../policy/facts.js';
import type { GuestIdentity } from '../safety/identity.js';
import { previewChange, type PlannedChange } from '../safety/change-preview.js';
import { type BlastRadius, shownRadius, worstCaseDecision } from '../safety/blast-radius.js';
import { computeBlastRadius } from '../safety/blast-radius-compute.js';
import type { PlannedWrite, PlanRecorder } from '../safety/plan.js';
import { redactData } from '../safety/redact.js';
import type { ResolvedRequest } from '../policy/request.js';
import { Refusal, type Runtime } from './runtime.js';

/**
 * What a planned write changes, from the config the identity check read and (dry-run only) a
 * status or snapshot-list read with the policy's own credentials. Values are redacted as the
 * script's reads are; a failed read makes the change say so rather than fail the plan.
 */
export async function plannedChange(
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
export async function holdToWorstCase(
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
export function withEarlierSteps(plan: PlanRecorder, cluster: string, vmids: readonly number[], change: PlannedChange | undefined): PlannedChange | undefined {
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
export async function holdToShownChange(
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
