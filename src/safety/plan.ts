/**
 * Whole-script dry-run plans.
 *
 * In dry-run mode reads run for real and every other call is recorded instead of sent; the script
 * gets a fake UPID (visibly marked as planned) for operations that return a task, and `waitTask`
 * on it resolves as planned. The resulting plan lists the writes in order with method, path,
 * redacted params, risk and target guests (name and config digest from a real read).
 *
 * `planId` = SHA-256 over the script hash and the canonical plan. Each write also carries a
 * fingerprint over its full, unredacted params, so an approved run can be held to exactly the
 * approved writes without the plan having to show secrets.
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import type { GuestIdentity } from './identity.js';

export interface PlannedWrite {
  /** 1-based position in the plan. */
  seq: number;
  cluster: string;
  method: HttpMethod;
  /** Concrete path (unencoded values). */
  path: string;
  template: string;
  /** Params with secrets redacted. */
  params: Record<string, unknown>;
  risk: RiskClass;
  needsApproval: boolean;
  /** Why it needs approval (its class and what raised it, or the target rule that asks). */
  why?: string;
  /** Guests the write targets, as they were when planned. */
  targets: GuestIdentity[];
  /** SHA-256 over cluster, method, path and the full params. */
  fingerprint: string;
  /** Fake UPID handed to the script when the operation returns a task. */
  upid?: string;
}

export interface Plan {
  version: 1;
  planId: string;
  /** SHA-256 of the script source. */
  codeHash: string;
  policy: string;
  createdAt: string;
  writes: PlannedWrite[];
}

export function hashCode(code: string): string {
  return sha256Hex(code);
}

export function writeFingerprint(cluster: string, method: HttpMethod, path: string, fullParams: Record<string, unknown>): string {
  return sha256Hex(canonicalJson({ cluster, method, path, params: fullParams }));
}

export function computePlanId(codeHash: string, writes: readonly PlannedWrite[]): string {
  const canonical = writes.map((w) => ({
    cluster: w.cluster,
    method: w.method,
    path: w.path,
    template: w.template,
    params: w.params,
    risk: w.risk,
    needsApproval: w.needsApproval,
    fingerprint: w.fingerprint,
    targets: w.targets.map((t) => ({ vmid: t.vmid, exists: t.exists, name: t.name, digest: t.digest })),
  }));
  return sha256Hex(canonicalJson({ v: 1, codeHash, writes: canonical }));
}

/** Marker user in planned UPIDs: a real UPID never carries it. */
export const PLANNED_UPID_USER = 'planned@dry-run';
const PLANNED_UPID = /^UPID:[^:]+:00000000:00000000:([0-9A-F]{8}):[^:]+:[^:]*:planned@dry-run:$/;

export class PlanRecorder {
  private readonly writes: PlannedWrite[] = [];

  record(entry: Omit<PlannedWrite, 'seq' | 'fingerprint' | 'upid'> & { fullParams: Record<string, unknown>; returnsTask: boolean; node?: string }): PlannedWrite {
    const seq = this.writes.length + 1;
    const { fullParams, returnsTask, node, ...rest } = entry;
    const write: PlannedWrite = {
      ...rest,
      seq,
      fingerprint: writeFingerprint(entry.cluster, entry.method, entry.path, fullParams),
    };
    if (returnsTask) write.upid = plannedUpid(seq, node, entry.targets[0]?.vmid);
    this.writes.push(write);
    return write;
  }

  /** The planned write behind a fake UPID, if it is one of ours. */
  byUpid(upid: string): PlannedWrite | undefined {
    const m = PLANNED_UPID.exec(upid);
    if (!m?.[1]) return undefined;
    const write = this.writes[parseInt(m[1], 16) - 1];
    return write?.upid === upid ? write : undefined;
  }

  get size(): number {
    return this.writes.length;
  }

  finish(code: string, policy: string, now: Date = new Date()): Plan {
    const codeHash = hashCode(code);
    const writes = this.writes.map((w) => ({ ...w }));
    return { version: 1, planId: computePlanId(codeHash, writes), codeHash, policy, createdAt: now.toISOString(), writes };
  }
}

function plannedUpid(seq: number, node: string | undefined, vmid: number | undefined): string {
  const safeNode = node && /^[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?$/.test(node) ? node : 'planned';
  const hex = seq.toString(16).toUpperCase().padStart(8, '0');
  return `UPID:${safeNode}:00000000:00000000:${hex}:dryrun:${vmid ?? ''}:${PLANNED_UPID_USER}:`;
}

export function isPlannedUpid(upid: string): boolean {
  return PLANNED_UPID.test(upid);
}

/**
 * Holds an approved run to its plan: each write must match an unused planned write with the same
 * fingerprint (cluster, method, path, full params). Order is not enforced, so `Promise.all`
 * fan-outs may arrive in any order; each planned write can be used once.
 */
export class PlanBinding {
  private readonly used = new Set<number>();

  constructor(readonly plan: Plan) {}

  consume(fingerprint: string): PlannedWrite | undefined {
    const write = this.plan.writes.find((w) => w.fingerprint === fingerprint && !this.used.has(w.seq));
    if (write) this.used.add(write.seq);
    return write;
  }

  /** Planned writes the run has not made (yet). */
  remaining(): PlannedWrite[] {
    return this.plan.writes.filter((w) => !this.used.has(w.seq));
  }
}

/** One line per write, for elicitation prompts, the CLI and results. */
export function summarizePlan(plan: Plan): string {
  if (plan.writes.length === 0) return `Plan ${plan.planId}: no writes.`;
  const showCluster = new Set(plan.writes.map((w) => w.cluster)).size > 1;
  const lines = plan.writes.map((w) => {
    const approval = w.needsApproval ? `, needs approval${w.why ? `: ${w.why}` : ''}` : '';
    const targets = w.targets
      .map((t) => (t.exists ? `VMID ${t.vmid}${t.name ? ` '${t.name}'` : ''}${t.digest ? ` (config ${t.digest.slice(0, 12)})` : ''}` : `VMID ${t.vmid} (new)`))
      .join(', ');
    const params = Object.keys(w.params).length > 0 ? ` ${JSON.stringify(w.params)}` : '';
    return `${w.seq}. ${w.method} ${w.path}${params} [${w.risk}${approval}]${targets ? ` → ${targets}` : ''}${showCluster ? ` on cluster ${w.cluster}` : ''}`;
  });
  return [`Plan ${plan.planId} (${plan.writes.length} write${plan.writes.length === 1 ? '' : 's'}, policy '${plan.policy}'):`, ...lines].join('\n');
}
