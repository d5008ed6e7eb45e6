/**
 * Standing approvals: an operator approves a runbook (a saved script) once for a bounded use —
 * its content hash, argument values or ranges, target selectors (pools, tags, VMIDs), risk
 * classes, a budget of writes and runs, an expiry — and a run inside those bounds needs no new
 * approval. This module is the one pure decision (`standingVerdict`), made on the plan a run's
 * dry-run probe built, so it judges the writes with their concrete parameters and the targets as
 * the cluster showed them; the approved run is then bound to that plan (PlanBinding) like any
 * other. What it does not decide, because it is decided elsewhere on every call and always wins:
 * the kill switch (asked by the bridge before each change), the policy's refusals (a standing
 * approval only stands in for a human's yes, never for an allow) and identity checks.
 */
import type { ArgValue, ArgValues } from '../script/args.js';
import type { RiskClass } from '../schema/model.js';

/** The values an argument may take: a list, or a numeric range (inclusive). */
export interface ArgBound {
  values?: ArgValue[];
  min?: number;
  max?: number;
}

export interface TargetSelectors {
  pools?: string[];
  /** Lower-case; a guest matches when it has one of them. */
  tags?: string[];
  vmids?: number[];
}

export interface StandingApproval {
  /** 16 hex characters. */
  id: string;
  runbook: string;
  /** `hashCode` of the runbook file's content as approved: a changed file is not covered. */
  contentHash: string;
  /** The cluster it is for; absent: any cluster the run's policy allows. */
  cluster?: string;
  /** Arguments not named here are not bounded by the approval (the targets and risks still are). */
  args: Record<string, ArgBound>;
  targets: TargetSelectors;
  /** The risk classes of writes it covers (`write`, `destructive`…). */
  risks: RiskClass[];
  /** Writes over all its uses. */
  maxWrites: number;
  maxRuns?: number;
  approvedBy: string;
  approvedAt: string;
  expiresAt: string;
  used: { runs: number; writes: number };
  revokedAt?: string;
}

/** A planned write as the decision sees it: its class and its targets' pool and tags as read now. */
export interface StandingWrite {
  seq: number;
  risk: RiskClass;
  needsApproval: boolean;
  targets: Array<{ vmid: number; pool?: string; tags: string[] }>;
}

export interface StandingUse {
  runbook: string;
  contentHash: string;
  cluster: string;
  args: ArgValues;
  writes: StandingWrite[];
  now: Date;
  /** Who runs it (a principal's id, else the host's user). */
  runner: string;
  /** The plan needs another principal's approval (four eyes). */
  fourEyes: boolean;
  /**
   * The session had received text guests or other people control, and the run's policy wants a
   * person for every write after that (`taint.writes: approval`).
   */
  tainted: boolean;
}

export type StandingVerdict = { covered: true } | { covered: false; reason: string };

export function standingVerdict(a: StandingApproval, use: StandingUse): StandingVerdict {
  const no = (reason: string): StandingVerdict => ({ covered: false, reason: `standing approval ${a.id}: ${reason}` });
  if (a.revokedAt) return no(`revoked at ${a.revokedAt}`);
  if (Date.parse(a.expiresAt) <= use.now.getTime()) return no(`expired at ${a.expiresAt}`);
  if (a.runbook !== use.runbook) return no(`is for runbook '${a.runbook}'`);
  if (a.contentHash !== use.contentHash) return no(`the runbook '${a.runbook}' changed since it was approved; approve it again after reviewing it`);
  if (a.cluster !== undefined && a.cluster !== use.cluster) return no(`is for cluster '${a.cluster}'`);
  // The policy wants a person for each write once the model read text others control.
  if (use.tainted) return no("this session has read text that guests or other people control, and the policy's taint.writes asks a person for each write");
  if (use.fourEyes && a.approvedBy === use.runner) return no(`four eyes: it was given by ${a.approvedBy}, who is running it`);
  for (const [name, bound] of Object.entries(a.args)) {
    const problem = argOutside(name, bound, use.args[name]);
    if (problem) return no(problem);
  }
  for (const w of use.writes) {
    if (!w.needsApproval) continue;
    if (!a.risks.includes(w.risk)) return no(`write ${w.seq} is ${w.risk}; it covers ${a.risks.join(', ')}`);
    const outside = targetOutside(a.targets, w);
    if (outside) return no(`write ${w.seq}: ${outside}`);
  }
  if (a.maxRuns !== undefined && a.used.runs >= a.maxRuns) return no(`its ${a.maxRuns} run(s) are used up`);
  const writes = use.writes.length;
  if (a.used.writes + writes > a.maxWrites) return no(`this run plans ${writes} write(s) and ${a.maxWrites - a.used.writes} of its ${a.maxWrites} remain`);
  return { covered: true };
}

/** The first approval that covers the use, else why none does (one reason per approval). */
export function findStanding(approvals: readonly StandingApproval[], use: StandingUse): { approval: StandingApproval } | { reasons: string[] } {
  const reasons: string[] = [];
  for (const a of approvals) {
    if (a.runbook !== use.runbook) continue;
    const verdict = standingVerdict(a, use);
    if (verdict.covered) return { approval: a };
    reasons.push(verdict.reason);
  }
  return { reasons };
}

function argOutside(name: string, bound: ArgBound, value: ArgValue | undefined): string | undefined {
  if (value === undefined) return `argument '${name}' is bounded but not given`;
  if (bound.values && !bound.values.includes(value)) return `argument '${name}' = ${JSON.stringify(value)} is not one of ${bound.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (bound.min !== undefined || bound.max !== undefined) {
    if (typeof value !== 'number') return `argument '${name}' = ${JSON.stringify(value)} is not a number in ${bound.min ?? ''}..${bound.max ?? ''}`;
    if ((bound.min !== undefined && value < bound.min) || (bound.max !== undefined && value > bound.max)) return `argument '${name}' = ${value} is outside ${bound.min ?? ''}..${bound.max ?? ''}`;
  }
  return undefined;
}

function targetOutside(sel: TargetSelectors, w: StandingWrite): string | undefined {
  const bounded = Boolean(sel.pools?.length || sel.tags?.length || sel.vmids?.length);
  if (!bounded) return undefined;
  if (w.targets.length === 0) return 'it targets no guest, and the approval is bounded to guests';
  for (const t of w.targets) {
    if (sel.vmids?.length && !sel.vmids.includes(t.vmid)) return `guest ${t.vmid} is not one of VMIDs ${sel.vmids.join(', ')}`;
    if (sel.pools?.length && !(t.pool !== undefined && sel.pools.includes(t.pool))) return `guest ${t.vmid} is in pool ${t.pool ?? '(none)'}, not ${sel.pools.join(', ')}`;
    if (sel.tags?.length && !t.tags.some((tag) => sel.tags?.includes(tag))) return `guest ${t.vmid} has none of the tags ${sel.tags.join(', ')}`;
  }
  return undefined;
}

/** `7d`, `12h`, `30m` → milliseconds; undefined when malformed. */
export function durationMs(text: string): number | undefined {
  const m = /^(\d+)([mhd])$/.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n * (m[2] === 'm' ? 60_000 : m[2] === 'h' ? 3_600_000 : 86_400_000);
}
