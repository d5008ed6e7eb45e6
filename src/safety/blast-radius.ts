/**
 * The blast radius of a planned write: what it reaches beyond its own parameters, read at plan
 * time. Deleting a storage definition names one storage, yet every guest with a disk on it loses
 * that disk; destroying a guest names one VMID, yet its HA resource, backup jobs and linked
 * clones go with it. Each family (docs/plans.md lists them with their reads) computes the things
 * reached and what happens to each.
 *
 * A blast radius is only as good as its reads: when one fails, the radius says which and is
 * marked incomplete, and an incomplete radius counts as the worst case — the call is decided
 * again by the policy's one pure decision (`decideCall`) as if it were destructive and reached
 * everything (`worstCaseDecision`), so it needs approval or is refused wherever the policy
 * would for its worst case.
 */
import { decideCall, type Decision } from '../policy/decide.js';
import type { CallFacts } from '../policy/facts.js';
import type { Policy } from '../policy/policy.js';
import { z } from 'zod';
import { capString } from './caps.js';
import { visible } from './plan.js';

export const BLAST_ITEM_KINDS = ['guest', 'disk', 'backup', 'ha', 'job', 'replication', 'clone', 'snapshot', 'interface', 'firewall', 'acl', 'token', 'user', 'storage'] as const;

export const BLAST_FAMILIES = [
  'storage-remove',
  'storage-disable',
  'disk-delete',
  'disk-move',
  'guest-destroy',
  'firewall-management',
  'network-apply',
  'pool-delete',
  'user-delete',
  'token-delete',
  'acl-change',
  'ha-change',
  'migration',
] as const;

export type BlastFamily = (typeof BLAST_FAMILIES)[number];

/** One thing a write reaches and what happens to it. */
export interface BlastItem {
  /** What kind of thing is reached. */
  kind: (typeof BLAST_ITEM_KINDS)[number];
  /** The thing, named as an operator knows it: `VM 112 'app-02' on pve1`. */
  what: string;
  /** What happens to it: `loses disk scsi0 (its boot disk: it will not boot)`. */
  effect: string;
  /** The guest it is, or belongs to. */
  vmid?: number;
  /** The effect breaks something outright (a guest that will not boot, the API cut off, a job that fails). */
  severe?: boolean;
}

export interface BlastRadius {
  /** The family that computed it (docs/plans.md): `storage-remove`, `guest-destroy`… */
  family: BlastFamily;
  /** One plain-language line: `3 guests lose a disk; 1 of them will not boot`. */
  summary: string;
  items: BlastItem[];
  /** The GET paths it was computed from, in the order read. */
  reads: string[];
  /** Reads that failed (`GET /cluster/ha/resources: 403 …`); non-empty means incomplete. */
  failed: string[];
  /** False when a read failed: what is listed is a lower bound, and the call counts as its worst case. */
  complete: boolean;
}

/** A stored plan's blast radius, as read back from the approvals store (its trust boundary). */
export const BlastRadiusSchema = z.object({
  family: z.enum(BLAST_FAMILIES),
  summary: z.string(),
  items: z.array(
    z.object({
      kind: z.enum(BLAST_ITEM_KINDS),
      what: z.string(),
      effect: z.string(),
      vmid: z.number().int().optional(),
      severe: z.boolean().optional(),
    }),
  ),
  reads: z.array(z.string()),
  failed: z.array(z.string()),
  complete: z.boolean(),
});

/** Items kept per radius; the summary still counts them all. */
export const MAX_BLAST_ITEMS = 50;

/** The reads of one computation: each GET is recorded, and a failed one noted rather than thrown. */
export class BlastReads {
  readonly reads: string[] = [];
  readonly failed: string[] = [];
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(private readonly read: (path: string) => Promise<unknown>) {}

  /** The answer, or undefined when the read failed (recorded in `failed`). Each path is read once. */
  async get(path: string): Promise<unknown> {
    let pending = this.cache.get(path);
    if (!pending) {
      this.reads.push(`GET ${path}`);
      pending = this.read(path).catch((err: unknown) => {
        const status = (err as { status?: unknown })?.status;
        const message = err instanceof Error ? err.message : String(err);
        this.failed.push(`GET ${path}: ${typeof status === 'number' ? `${status} ` : ''}${message.length > 160 ? `${message.slice(0, 160)}…` : message}`);
        return FAILED;
      });
      this.cache.set(path, pending);
    }
    const value = await pending;
    return value === FAILED ? undefined : value;
  }

  /** An array answer's objects, or undefined when the read failed or did not answer a list. */
  async list(path: string): Promise<Array<Record<string, unknown>> | undefined> {
    const data = await this.get(path);
    if (data === undefined) return undefined;
    if (!Array.isArray(data)) {
      this.failed.push(`GET ${path}: the answer is not a list`);
      return undefined;
    }
    return data.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x));
  }

  async object(path: string): Promise<Record<string, unknown> | undefined> {
    const data = await this.get(path);
    return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  }

  /** Notes a bound that stopped the computation early: the radius is then incomplete too. */
  incomplete(why: string): void {
    this.failed.push(why);
  }

  finish(family: BlastFamily, summary: string, items: BlastItem[]): BlastRadius {
    const kept = items.slice(0, MAX_BLAST_ITEMS).map((i) => ({ ...i, what: show(i.what), effect: show(i.effect) }));
    const more = items.length > MAX_BLAST_ITEMS ? ` (${items.length - MAX_BLAST_ITEMS} more not listed)` : '';
    const failed = this.failed.length > 0;
    const worst = failed ? `; INCOMPLETE: ${this.failed.length} read${this.failed.length === 1 ? '' : 's'} failed, so it may reach more and counts as the worst case` : '';
    return { family, summary: show(`${summary}${more}${worst}`), items: kept, reads: [...this.reads], failed: this.failed.map(show), complete: !failed };
  }
}

const FAILED = Symbol('failed');

/**
 * The decision for a call whose blast radius could not be read: the same facts, raised to
 * destructive and unresolved (reaching everything), through the policy's one decision. Never
 * milder than `current`: an allowed call may become an approval or a refusal, never the reverse.
 */
export function worstCaseDecision(facts: CallFacts, policy: Policy, radius: BlastRadius, current: Decision): Decision {
  if (radius.complete || current.outcome === 'deny') return current;
  const why = `its blast radius could not be read (${radius.failed[0] ?? 'a read failed'})`;
  const raised: CallFacts = {
    ...facts,
    risk: facts.risk === 'privileged' ? 'privileged' : 'destructive',
    // Destructive, not privileged: an unread radius raises the class, it does not need its own enabling.
    escalations: [...facts.escalations, { param: '(blast radius)', class: 'bulk', risk: 'destructive', rule: 'blast-radius', reason: why }],
    unresolved: [...facts.unresolved, why],
  };
  const worst = decideCall(raised, policy);
  if (worst.outcome === 'allow') return current;
  if (worst.outcome === 'approval' && current.outcome === 'approval') return current;
  return worst;
}

/** The radius as plan text lines (indented under its step). */
export function blastRadiusLines(radius: BlastRadius, maxItems = 12): string[] {
  const lines = [`blast radius: ${radius.summary}`];
  for (const item of radius.items.slice(0, maxItems)) lines.push(`  ${item.severe ? '!! ' : ''}${item.what}: ${item.effect}`);
  if (radius.items.length > maxItems) lines.push(`  … ${radius.items.length - maxItems} more (the plan lists them)`);
  for (const f of radius.failed.slice(0, 3)) lines.push(`  read failed: ${f}`);
  return lines;
}

/**
 * A radius read while earlier steps of the plan were only planned says so: it shows the state
 * before them, and an approved run does not hold a later step to it (the earlier steps changed it).
 */
export function radiusBeforeSteps(radius: BlastRadius, earlierSteps: number): BlastRadius {
  if (earlierSteps === 0) return radius;
  const steps = earlierSteps === 1 ? 'step 1 of this plan is' : `steps 1–${earlierSteps} of this plan are`;
  return { ...radius, summary: `${radius.summary} [as it is now, before ${steps} made]` };
}

/** What of a radius binds an approval: what was shown, not the list of reads behind it. */
export function shownRadius(radius: BlastRadius | undefined): unknown {
  if (!radius) return undefined;
  return { family: radius.family, summary: radius.summary, items: radius.items, complete: radius.complete };
}

export function show(text: string): string {
  return visible(capString(text));
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
