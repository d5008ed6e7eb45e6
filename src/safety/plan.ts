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
import { formatUpid, parseUpid } from '../pve/upid.js';
import { canonicalJson, sha256Hex } from './canonical.js';
import { capString, capValue } from './caps.js';
import type { GuestIdentity } from './identity.js';
import type { PlannedChange } from './change-preview.js';
import { type BlastRadius, blastRadiusLines, shownRadius } from './blast-radius.js';

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
  /** What it changes, read at plan time (src/safety/change-preview.ts); absent for writes not yet described. */
  change?: PlannedChange;
  /** What it reaches beyond its parameters, read at plan time (src/safety/blast-radius.ts); only for the families docs/plans.md lists. */
  blastRadius?: BlastRadius;
}

/** A call the dry-run's policy refused: never sent, not approvable; listed so the plan says so. */
export interface RefusedCall {
  cluster: string;
  method: HttpMethod;
  path: string;
  risk: RiskClass;
  /** Why (the policy's refusal, naming the rule). */
  message: string;
}

export interface Plan {
  version: 1;
  planId: string;
  /** SHA-256 of the script source. */
  codeHash: string;
  policy: string;
  createdAt: string;
  writes: PlannedWrite[];
  /** Calls the policy refused during the dry-run (not part of the planId: nothing to approve). */
  refused?: RefusedCall[];
  /**
   * What the human must know besides the writes (part of the planId: it was shown): what an undo
   * cannot reverse, the safety snapshots the bridge takes before risky changes.
   */
  notes?: string[];
}

export function hashCode(code: string): string {
  return sha256Hex(code);
}

export function writeFingerprint(cluster: string, method: HttpMethod, path: string, fullParams: Record<string, unknown>): string {
  return sha256Hex(canonicalJson({ cluster, method, path, params: fullParams }));
}

export function computePlanId(codeHash: string, writes: readonly PlannedWrite[], notes?: readonly string[]): string {
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
    // What the human was shown is part of what they approve.
    ...(w.change ? { change: w.change } : {}),
    ...(w.blastRadius ? { blastRadius: shownRadius(w.blastRadius) } : {}),
  }));
  return sha256Hex(canonicalJson({ v: 1, codeHash, writes: canonical, ...(notes && notes.length > 0 ? { notes } : {}) }));
}

/** Marker user in planned UPIDs: a real UPID never carries it. */
export const PLANNED_UPID_USER = 'planned@dry-run';

/** Refused calls kept in a plan at most (each one also failed in the script). */
const MAX_REFUSED = 20;
/** Notes kept in a plan at most. */
const MAX_NOTES = 50;

export class PlanRecorder {
  private readonly writes: PlannedWrite[] = [];
  private readonly refused: RefusedCall[] = [];
  private readonly notes: string[] = [];

  /** A call the policy refused in the dry-run. */
  refuse(call: RefusedCall): void {
    if (this.refused.length < MAX_REFUSED) this.refused.push({ ...call, message: capString(call.message) });
  }

  /** A note shown with the plan (once per text). */
  note(text: string): void {
    const capped = capString(text);
    if (this.notes.length < MAX_NOTES && !this.notes.includes(capped)) this.notes.push(capped);
  }

  record(entry: Omit<PlannedWrite, 'seq' | 'fingerprint' | 'upid'> & { fullParams: Record<string, unknown>; returnsTask: boolean; node?: string }): PlannedWrite {
    const seq = this.writes.length + 1;
    const { fullParams, returnsTask, node, ...rest } = entry;
    const write: PlannedWrite = {
      ...rest,
      params: capValue(rest.params) as Record<string, unknown>,
      seq,
      fingerprint: writeFingerprint(entry.cluster, entry.method, entry.path, fullParams),
    };
    if (returnsTask) write.upid = plannedUpid(seq, node, entry.targets[0]?.vmid);
    this.writes.push(write);
    return write;
  }

  /** The planned write behind a fake UPID, if it is one of ours. */
  byUpid(upid: string): PlannedWrite | undefined {
    const seq = plannedSeq(upid);
    if (seq === undefined) return undefined;
    const write = this.writes[seq - 1];
    return write?.upid === upid ? write : undefined;
  }

  get size(): number {
    return this.writes.length;
  }

  /** The last step so far that targets this guest: a later step's change is shown as read before it. */
  lastStepOn(cluster: string, vmid: number): number | undefined {
    for (let i = this.writes.length - 1; i >= 0; i--) {
      const w = this.writes[i];
      if (w && w.cluster === cluster && w.targets.some((t) => t.vmid === vmid)) return w.seq;
    }
    return undefined;
  }

  finish(code: string, policy: string, now: Date = new Date()): Plan {
    const codeHash = hashCode(code);
    const writes = this.writes.map((w) => ({ ...w }));
    return {
      version: 1,
      planId: computePlanId(codeHash, writes, this.notes),
      codeHash,
      policy,
      createdAt: now.toISOString(),
      writes,
      ...(this.refused.length > 0 ? { refused: this.refused.map((r) => ({ ...r })) } : {}),
      ...(this.notes.length > 0 ? { notes: [...this.notes] } : {}),
    };
  }
}

// A planned UPID: pid and pstart 0, the write's sequence number as its start time, the marker user.
function plannedUpid(seq: number, node: string | undefined, vmid: number | undefined): string {
  const parts = { node: node ?? 'planned', pid: 0, pstart: 0, starttime: seq, type: 'dryrun', id: vmid === undefined ? '' : String(vmid), user: PLANNED_UPID_USER };
  const upid = formatUpid(parts);
  // A node name a UPID cannot carry would make a task ID nothing can read back.
  return parseUpid(upid)?.node === parts.node ? upid : formatUpid({ ...parts, node: 'planned' });
}

function plannedSeq(upid: string): number | undefined {
  const parts = parseUpid(upid);
  return parts?.user === PLANNED_UPID_USER && parts.pid === 0 && parts.pstart === 0 ? parts.starttime : undefined;
}

export function isPlannedUpid(upid: string): boolean {
  return plannedSeq(upid) !== undefined;
}

/** How long a write for a later step waits for the earlier steps to be made (a `Promise.all` fan-out). */
export const PLAN_ORDER_WAIT_MS = 10_000;

/**
 * A step the run has claimed. `settle(true)` once its request went out (whatever PVE answered,
 * or if the answer was lost); `settle(false)` if it was stopped before it was sent (the guest
 * changed, say): the step is then not made, and the steps after it cannot go.
 */
export interface ClaimedStep {
  write: PlannedWrite;
  settle(sent: boolean): void;
}

export type BindingVerdict = ({ ok: true } & ClaimedStep) | { ok: false; reason: 'not-in-plan' | 'out-of-order'; message: string };

/**
 * Holds an approved run to its plan: exactly the approved writes, in the approved order. Each
 * write must match the next unused step with the same fingerprint (cluster, method, path, full
 * params). A write for a later step made in parallel waits, bounded, until every earlier step has
 * been claimed, and then until each of those has been answered, so PVE receives the writes in
 * plan order even when a `Promise.all` makes them at once. One that would skip a step, or is not
 * in the plan, is refused before it is sent. A run may stop early: steps it never makes are
 * reported as unused. A script can tell the approved run from its dry-run (by timing, say) and
 * change its mind; it still cannot reorder, skip or add.
 */
export class PlanBinding {
  /**
   * By step: claimed and not yet answered, made, or claimed and then stopped before it was sent
   * (the steps after it cannot go). Steps not in it have not been claimed.
   */
  private readonly state = new Map<number, 'in flight' | 'made' | 'not sent'>();
  private waiters: Array<() => void> = [];

  constructor(
    readonly plan: Plan,
    private readonly waitMs = PLAN_ORDER_WAIT_MS,
  ) {}

  async acquire(fingerprint: string, signal?: AbortSignal): Promise<BindingVerdict> {
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      // Looked up again after every wait: a parallel twin of this write may have claimed the step.
      const step = this.plan.writes.find((w) => w.fingerprint === fingerprint && !this.claimed(w.seq));
      if (!step) {
        const made = this.plan.writes.some((w) => w.fingerprint === fingerprint);
        return {
          ok: false,
          reason: 'not-in-plan',
          message: made ? 'this write was approved once and has already been made' : 'this write is not in the approved plan (or its params differ)',
        };
      }
      const earlier = this.plan.writes.filter((w) => w.seq < step.seq);
      const missing = earlier.find((w) => !this.claimed(w.seq));
      const pending = missing ?? earlier.find((w) => this.state.get(w.seq) === 'in flight');
      if (!pending) return this.claim(step);
      const left = deadline - performance.now();
      const stopped = missing !== undefined && this.state.get(missing.seq) === 'not sent';
      // Waiting for an earlier step's answer is bounded by the call's own signal, not the deadline.
      if (signal?.aborted || (missing && (stopped || left <= 0))) {
        return {
          ok: false,
          reason: 'out-of-order',
          message: `this write is step ${step.seq} of the approved plan, but step ${pending.seq} (${pending.method} ${visible(pending.path)}) has not been made${stopped ? ' (it was stopped before it was sent)' : ''}; an approved run makes the approved writes in their order`,
        };
      }
      await this.nextChange(missing ? left : undefined, signal);
    }
  }

  /** Planned writes the run has not made (yet). */
  remaining(): PlannedWrite[] {
    return this.plan.writes.filter((w) => !this.claimed(w.seq));
  }

  private claimed(seq: number): boolean {
    const state = this.state.get(seq);
    return state === 'in flight' || state === 'made';
  }

  private claim(step: PlannedWrite): BindingVerdict {
    this.state.set(step.seq, 'in flight');
    this.wake();
    let settled = false;
    return {
      ok: true,
      write: step,
      settle: (sent) => {
        if (settled) return;
        settled = true;
        this.state.set(step.seq, sent ? 'made' : 'not sent');
        this.wake();
      },
    };
  }

  private wake(): void {
    const wake = this.waiters;
    this.waiters = [];
    for (const w of wake) w();
  }

  private nextChange(ms: number | undefined, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.push(done);
    });
  }
}

/**
 * Characters that change how text looks without being seen: control characters, format
 * characters (bidi embeddings, overrides and isolates, zero-width joiners, the BOM), line and
 * paragraph separators. In text a human approves they are shown as `\u{202E}`, so a script cannot
 * push a step out of sight or make it read backwards.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

export function visible(text: string): string {
  return text.replace(INVISIBLE, (ch) => `\\u{${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** The whole summary at most (the counts at its top always cover every step). */
export const MAX_SUMMARY_CHARS = 8_000;
const MAX_STEP_CHARS = 1_200;
const MAX_RADIUS_CHARS = 2_000;
/** Change lines shown per step (a config write setting many keys lists the first ones). */
const MAX_CHANGE_LINES = 12;

/** The per-key lines of a change, unless the summary already says it all (one line). */
function changeLines(change: PlannedChange): string {
  if (change.lines.length <= 1) return '';
  const shown = change.lines.slice(0, MAX_CHANGE_LINES).map((l) => `\n   - ${visible(l)}`);
  const more = change.lines.length - MAX_CHANGE_LINES;
  return shown.join('') + (more > 0 ? `\n   - … ${more} more (the plan lists them all)` : '');
}

/**
 * The plan as a human approves it: the risky steps counted at the top, one line per step with
 * everything the script controls made visible and long values cut with their size and hash,
 * the whole capped; its last line is what to do next given `outcome` (default: only planned).
 */
export function summarizePlan(plan: Plan, outcome?: PlanOutcome): string {
  const refused = [...(plan.notes ?? []).map((n) => `note: ${visible(n)}`), ...(plan.refused ?? []).map((r) => `refused, not sent: ${r.method} ${visible(r.path)} [${r.risk}]: ${visible(r.message)}`)];
  if (plan.writes.length === 0) return [`Plan ${plan.planId}: no writes.`, ...refused, nextStep(plan, outcome)].join('\n');
  const showCluster = new Set(plan.writes.map((w) => w.cluster)).size > 1;
  const header = [`Plan ${plan.planId} (${plan.writes.length} write${plan.writes.length === 1 ? '' : 's'}, policy '${visible(plan.policy)}'):`];
  for (const risk of ['privileged', 'destructive'] as const) {
    const steps = plan.writes.filter((w) => w.risk === risk).map((w) => w.seq);
    if (steps.length > 0) header.push(`!! ${steps.length} ${risk} step${steps.length === 1 ? '' : 's'}: ${steps.join(', ')}`);
  }
  // Notes follow the steps and the summary is capped: that there are some is said up front.
  const notes = plan.notes?.length ?? 0;
  if (notes > 0) header.push(`!! ${notes} note${notes === 1 ? '' : 's'} after the steps (what is not undone, safety snapshots); the plan lists them all`);
  const lines: string[] = [];
  const next = nextStep(plan, outcome);
  let size = header.join('\n').length + next.length + 1;
  for (const w of plan.writes) {
    const line = stepLine(w, showCluster);
    // Room is kept for the line that says how many steps are not shown.
    if (size + line.length + 1 > MAX_SUMMARY_CHARS - 200) {
      lines.push(
        `… ${plan.writes.length - lines.length} more step${plan.writes.length - lines.length === 1 ? '' : 's'} not shown here (the summary is capped at ${MAX_SUMMARY_CHARS} characters; the plan lists them all)`,
      );
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  for (const line of refused) {
    if (size + line.length + 1 > MAX_SUMMARY_CHARS) break;
    lines.push(line);
    size += line.length + 1;
  }
  return [...header, ...lines, next].join('\n');
}

/**
 * What became of a plan, which its Next line follows: only planned (a dry run or an approval
 * probe that finished), stopped before the script's end (its writes after that point are not in
 * it), or run as approved.
 */
export type PlanOutcome =
  | { state: 'planned' }
  | { state: 'stopped'; kind: string; message: string }
  | { state: 'ran'; made: number; unused: readonly number[]; error?: { kind: string; message: string } };

/** What to do with this plan, as its last line: derived from what became of it, so it works when followed. */
export function nextStep(plan: Plan, outcome: PlanOutcome = { state: 'planned' }): string {
  if (outcome.state === 'ran') return ranStep(plan, outcome);
  if (outcome.state === 'stopped') return `Next: ${stoppedStep(outcome)}.`;
  const refused = plan.refused?.length ?? 0;
  const approval = plan.writes.filter((w) => w.needsApproval).length;
  const parts: string[] = [];
  if (refused > 0)
    parts.push(`${refused} call${refused === 1 ? ' was' : 's were'} refused by the policy and will not be sent: change the script, or ask the operator to change policy '${visible(plan.policy)}'`);
  if (approval > 0) {
    parts.push(
      `${approval} write${approval === 1 ? ' needs' : 's need'} approval: a human approves plan ${plan.planId} (asked through the client, or out of band), then the same script runs unchanged, bound to exactly these writes in this order`,
    );
  } else if (plan.writes.length > 0) {
    parts.push('every write runs directly: run the same script without dryRun');
  }
  return `Next: ${parts.join('; ') || 'nothing to do: the script makes no writes'}.`;
}

function ranStep(plan: Plan, o: Extract<PlanOutcome, { state: 'ran' }>): string {
  const made = `${o.made} of ${plan.writes.length} write${plan.writes.length === 1 ? '' : 's'} made`;
  const unused = o.unused.length > 0 ? `; step${o.unused.length === 1 ? '' : 's'} ${o.unused.join(', ')} not made` : '';
  const stopped = o.error ? `, then it stopped (${o.error.kind}: ${firstSentence(o.error.message)})` : '';
  return `Done: plan ${plan.planId} ran (${made}${unused})${stopped}. Its approval is used up: the same script again needs a new plan and approval; look at the changes before repeating any write.`;
}

/**
 * A run stopped early plans only what came before the stop, and the same script without dryRun
 * stops at the same point: the step says what to change instead. A budget stop names the limit
 * and how to stay within it.
 */
function stoppedStep(o: Extract<PlanOutcome, { state: 'stopped' }>): string {
  if (o.kind === 'budget') {
    const limit = /policy\.budget\.(\w+)/.exec(o.message)?.[1];
    const per = /(?:\(|limit )(\d+)/.exec(o.message)?.[1];
    const raise = limit ? ` or ask the operator to raise policy.budget.${limit}` : ' or ask the operator to raise the policy budget';
    const how: Record<string, string> = {
      guests: `act on at most ${per ?? 'the limit of'} guests per run: run the script once per slice of the list (e.g. guests.slice(0, ${per ?? 'N'}), then the next slice)`,
      write: `make at most ${per ?? 'the limit of'} write calls per run: split the batch over several runs`,
      destructive: `make at most ${per ?? 'the limit of'} destructive calls per run: split the batch over several runs`,
      privileged: `make at most ${per ?? 'the limit of'} privileged calls per run: split the batch over several runs`,
      read: 'read less per run: one list call (e.g. GET /cluster/resources) instead of one call per object, or split the work',
      calls: 'make fewer calls per run: one list call (e.g. GET /cluster/resources) instead of one per object, or split the work',
      taskWaitMs: 'wait for fewer tasks per run: start them, then check their status in a later run, or split the batch',
    };
    return `the run stopped at a per-run budget (${firstSentence(o.message)}), and the same script without dryRun stops at the same call; ${how[limit ?? ''] ?? 'split the work over several runs'},${raise}`;
  }
  return `the run stopped before the script's end (${o.kind}: ${firstSentence(o.message)}), so this plan holds only the writes before that point: fix the script and dry-run it again before running it for real`;
}

function firstSentence(message: string): string {
  const cut = message.split(/;|\n/)[0] ?? message;
  return visible(cut.length > 200 ? `${cut.slice(0, 200)}…` : cut).trim();
}

function stepLine(w: PlannedWrite, showCluster: boolean): string {
  const risky = w.risk === 'destructive' || w.risk === 'privileged';
  const approval = w.needsApproval ? `, needs approval${w.why ? `: ${visible(w.why)}` : ''}` : ', runs directly';
  const targets = w.targets
    .map((t) => (t.exists ? `VMID ${t.vmid}${t.name ? ` '${visible(t.name)}'` : ''}${t.digest ? ` (config ${t.digest.slice(0, 12)})` : ''}` : `VMID ${t.vmid} (new)`))
    .join(', ');
  const params = Object.keys(w.params).length > 0 ? ` ${visible(JSON.stringify(capValue(w.params)))}` : '';
  const call = `${w.method} ${visible(w.path)}${params} [${risky ? w.risk.toUpperCase() : w.risk}${approval}]${targets ? ` → ${targets}` : ''}${showCluster ? ` on cluster ${visible(w.cluster)}` : ''}`;
  // The change first, in plain words; the call it is made with below it.
  const line = w.change ? `${w.seq}. ${visible(w.change.summary)}${changeLines(w.change)}\n   call: ${call}` : `${w.seq}. ${call}`;
  const step = line.length > MAX_STEP_CHARS ? `${line.slice(0, MAX_STEP_CHARS)}…[step line cut at ${MAX_STEP_CHARS} characters]` : line;
  // The blast radius below the call, with its own cap: a long call must not push it out of sight.
  const radius = w.blastRadius
    ? blastRadiusLines(w.blastRadius)
        .map((l) => `\n   ${visible(l)}`)
        .join('')
    : '';
  return step + (radius.length > MAX_RADIUS_CHARS ? `${radius.slice(0, MAX_RADIUS_CHARS)}…[blast radius cut at ${MAX_RADIUS_CHARS} characters; the plan lists it all]` : radius);
}
