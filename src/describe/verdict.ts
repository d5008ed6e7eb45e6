/**
 * What a cluster's policy says about an operation before any call is made: the verdict at its
 * default parameters (no values, nothing looked up) and, for each parameter that raises its class
 * (escalations.ts), the verdict once that parameter escalates. search_api and get_schema show
 * these so the model sees the policy up front instead of after a refusal.
 *
 * Nothing is decided here: the facts come from `describeCall` (an operation with empty params and
 * no concrete path) and the decision from the bridge's own `decideCall`, so the verdict shown
 * cannot disagree with what the bridge does with the same facts. A raising parameter is shown as
 * the same facts with that one escalation added.
 */
import { decideCall, type Decision } from '../policy/decide.js';
import { escalatingParams, higherRisk, type EscalationClass } from '../policy/escalations.js';
import { describeCall, type CallFacts } from '../policy/facts.js';
import type { Policy } from '../policy/policy.js';
import type { Operation, RiskClass } from '../schema/model.js';

/**
 * `allowed`: runs directly; `approval`: runs once a human approves; `refused`: the policy refuses
 * it; `scoped`: refused as it stands because the policy's scopes need its targets, so it runs only
 * for targets inside them (a VMID, node… in scope).
 */
export type Verdict = 'allowed' | 'approval' | 'refused' | 'scoped';

export const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  allowed: 'allowed',
  approval: 'needs approval',
  refused: 'refused',
  scoped: 'in scope only',
};

export interface RaisingParam {
  /** The parameter (`forceStop`, `scsi[n]` for a family). */
  param: string;
  /** The class the call takes when the parameter escalates. */
  risk: RiskClass;
  class: EscalationClass;
  verdict: Verdict;
  /** What the parameter does (the escalation rule's reason). */
  reason: string;
}

export interface OperationVerdict {
  cluster: string;
  /** The policy's name. */
  policy: string;
  /** The class at default parameters (raised only by escalations that apply without any value, such as a bulk action without `vms`). */
  risk: RiskClass;
  verdict: Verdict;
  /** The rule that decided (`preset 'operator'`, `deny[0] '…'`, `scopes`). */
  rule: string;
  /** Why, for approval and refusals: the decision's own words. */
  why?: string;
  /** Parameters that raise the class, each with its own verdict. */
  raisedBy: RaisingParam[];
}

export interface PolicyContext {
  cluster: string;
  policy: Policy;
}

export function operationVerdict(op: Operation, ctx: PolicyContext): OperationVerdict {
  const facts = describeCall({ cluster: ctx.cluster, operation: op, pathValues: {}, params: {} });
  const base = decideCall(facts, ctx.policy);
  const applied = new Set(facts.escalations.map((e) => e.rule));
  const seen = new Set<string>();
  const raisedBy: RaisingParam[] = [];
  for (const { param, rule } of escalatingParams(op)) {
    if (applied.has(rule.id) || seen.has(`${param} ${rule.id}`)) continue;
    seen.add(`${param} ${rule.id}`);
    const raised: CallFacts = {
      ...facts,
      risk: higherRisk(facts.risk, rule.risk),
      escalations: [...facts.escalations, { rule: rule.id, class: rule.class, risk: rule.risk, param, reason: rule.reason }],
    };
    raisedBy.push({ param, risk: raised.risk, class: rule.class, verdict: verdictOf(decideCall(raised, ctx.policy)), reason: rule.reason });
  }
  const why = base.outcome === 'approval' ? base.reason : base.outcome === 'deny' ? base.message : undefined;
  return {
    cluster: ctx.cluster,
    policy: ctx.policy.name,
    risk: base.risk,
    verdict: verdictOf(base),
    rule: base.rule,
    ...(why !== undefined ? { why } : {}),
    raisedBy: mergeByParam(raisedBy),
  };
}

/** The parameters that raise an operation's class, without a policy (first rule per parameter, highest class). */
export function raisingParams(op: Operation): Array<Omit<RaisingParam, 'verdict'>> {
  const out = new Map<string, Omit<RaisingParam, 'verdict'>>();
  for (const { param, rule } of escalatingParams(op)) {
    const prior = out.get(param);
    if (!prior || higherRisk(prior.risk, rule.risk) !== prior.risk) out.set(param, { param, risk: rule.risk, class: rule.class, reason: rule.reason });
  }
  return [...out.values()];
}

export function verdictOf(decision: Decision): Verdict {
  if (decision.outcome === 'allow') return 'allowed';
  if (decision.outcome === 'approval') return 'approval';
  return decision.rule.startsWith('scopes') ? 'scoped' : 'refused';
}

/** One entry per parameter: where two rules raise the same parameter, the higher class (and its verdict) stands. */
function mergeByParam(list: RaisingParam[]): RaisingParam[] {
  const byParam = new Map<string, RaisingParam>();
  for (const r of list) {
    const prior = byParam.get(r.param);
    if (!prior || higherRisk(prior.risk, r.risk) !== prior.risk) byParam.set(r.param, r);
  }
  return [...byParam.values()];
}

/**
 * The get_schema lines: the verdict, then the raising parameters grouped by the class they raise
 * to and the verdict there:
 *   // policy 'operator': allowed
 *   // raises: forceStop → destructive, needs approval (a shutdown with forceStop cuts power…)
 *   // raises: hookscript, args → privileged, refused
 */
export function verdictLines(v: OperationVerdict): string[] {
  return [verdictHead(v), ...raisesLines(v.raisedBy)];
}

/** `// raises: …` lines grouped by class (and verdict, when there is one). */
export function raisesLines(raisedBy: ReadonlyArray<Omit<RaisingParam, 'verdict'> & { verdict?: Verdict }>): string[] {
  const groups = new Map<string, Array<(typeof raisedBy)[number]>>();
  for (const r of raisedBy) {
    const key = `${r.risk} ${r.verdict ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0] as (typeof raisedBy)[number];
    const note = group.length === 1 ? ` (${first.reason})` : '';
    return `// raises: ${group.map((r) => r.param).join(', ')} → ${first.risk}${first.verdict ? `, ${VERDICT_TEXT[first.verdict]}` : ''}${note}`;
  });
}

function verdictHead(v: OperationVerdict): string {
  const why = v.verdict === 'scoped' ? ` — only for targets inside the policy's scopes (pve://${v.cluster}/policy)` : v.verdict !== 'allowed' && v.why ? ` — ${v.why}` : '';
  return `// policy '${v.policy}' on ${v.cluster}: ${VERDICT_TEXT[v.verdict]}${why}`;
}
