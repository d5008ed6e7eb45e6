/**
 * The one policy decision: facts × policy → allow, send for approval, or refuse. Pure: no I/O,
 * no clock, no state; the preflight (before a run, for every call it can read from the source)
 * and the bridge (every live call) both call it with facts from facts.ts.
 *
 * Order (the first refusal wins):
 *   1. path `deny` rules;
 *   2. target rules with action `deny` (by VMID, node, pool, tag or storage, over every target);
 *   3. privileged: the operation enabled in `privileged`, and each parameter that escalates the
 *      call to privileged enabled with `+param`;
 *   4. the operation allowed at its own class: `allow` rules or the preset;
 *   5. scopes (nodes, then VMIDs/pools/tags) over every target the call reaches;
 *   6. approval: the call's class needs approval, or a target rule with action `approval` matches,
 *      or the session has received text guests or other people control under `taint.writes:
 *      'approval'` (the policy's `taintedBy`, taint.ts).
 */
import type { CallFacts, GuestFact } from './facts.js';
import { matchesOp } from './glob.js';
import type { OperationRef, Policy, TargetRule } from './policy.js';
import type { PresetName } from './presets.js';
import type { RiskClass } from '../schema/model.js';
import { listOf } from '../pve/list-value.js';

/** What the path rules alone say of an operation. */
export type PolicyDecision = { allowed: true; rule: string } | { allowed: false; rule: string; message: string };

export type Decision =
  | { outcome: 'allow'; risk: RiskClass; rule: string }
  | { outcome: 'approval'; risk: RiskClass; rule: string; reason: string }
  | { outcome: 'deny'; risk: RiskClass; rule: string; message: string };

export function decideCall(facts: CallFacts, policy: Policy): Decision {
  const risk = facts.risk;
  const shown = `${facts.method} ${facts.concretePath ?? facts.template}`;
  const deny = (rule: string, message: string): Decision => ({ outcome: 'deny', risk, rule, message });
  const op: OperationRef = { method: facts.method, template: facts.template, risk: facts.baseRisk, ...(facts.concretePath !== undefined ? { concretePath: facts.concretePath } : {}) };
  const why = escalationNote(facts);

  // 1 + 4 (and 3 for privileged operations): the path rules at the operation's own class.
  const byPath = pathDecision(policy, op);
  if (!byPath.allowed && byPath.rule.startsWith('deny[')) return deny(byPath.rule, byPath.message);

  // 2. Target rules that refuse.
  for (const rule of policy.targetRules) {
    if (rule.action !== 'deny' || !rule.risk.has(risk)) continue;
    const hit = targetRuleHit(rule, facts);
    if (hit) return deny(rule.label, `${shown} (${risk}${why}) ${hit}, protected by policy '${policy.name}' ${rule.label}${rule.comment ? `: ${rule.comment}` : ''}; nothing was sent`);
  }

  // 3. Escalations to privileged are enabled per parameter.
  for (const e of facts.escalations) {
    if (e.risk !== 'privileged') continue;
    if (enabledEscalation(policy, op, [e.param, familyOf(e.param), e.rule])) continue;
    return deny(
      'privileged',
      `${shown} is privileged with parameter '${e.param}' (${e.reason}) and policy '${policy.name}' has not enabled it; ` +
        `the operator enables it per parameter (policy.privileged: ['${facts.method} ${facts.template} +${familyOf(e.param)}'])`,
    );
  }
  if (!byPath.allowed) return deny(byPath.rule, why ? `${byPath.message}${why}` : byPath.message);

  // 5. Scopes.
  const scope = scopeRefusal(facts, policy, op, shown);
  if (scope) return deny(scope.rule, scope.message);

  // 6. Approval.
  if (risk !== 'read') {
    if (policy.approvalClasses.has(risk)) {
      return { outcome: 'approval', risk, rule: byPath.rule, reason: `${risk}${why} and policy '${policy.name}' requires human approval for ${risk} operations` };
    }
    for (const rule of policy.targetRules) {
      if (rule.action !== 'approval' || !rule.risk.has(risk)) continue;
      const hit = targetRuleHit(rule, facts);
      if (hit)
        return {
          outcome: 'approval',
          risk,
          rule: rule.label,
          reason: `${risk}${why}; it ${hit}, for which policy '${policy.name}' ${rule.label} requires human approval${rule.comment ? ` (${rule.comment})` : ''}`,
        };
    }
    const tainted = policy.taintedBy;
    if (tainted && tainted.length > 0) {
      const more = tainted.length > 1 ? ` and ${tainted.length - 1} more` : '';
      return {
        outcome: 'approval',
        risk,
        rule: 'taint.writes',
        reason: `${risk}${why}, and this session has received text that guests or other users control (${tainted[0]}${more}); policy '${policy.name}' taint.writes requires human approval for every change after that`,
      };
    }
  }
  return { outcome: 'allow', risk, rule: byPath.rule };
}

/**
 * The path rules of `policy` for one operation, in their order (deny wins):
 *   1. explicit `deny` rules;
 *   2. privileged operations: refused unless enabled one by one in `privileged`;
 *   3. explicit `allow` rules;
 *   4. the preset (its risk classes, then its operation patterns);
 *   5. otherwise refused.
 */
export function pathDecision(policy: Policy, op: OperationRef): PolicyDecision {
  const paths = pathsOf(op);
  const shown = `${op.method} ${op.concretePath ?? op.template}`;
  const denyIndex = policy.deny.findIndex((p) => matchesOp(p, op.method, paths));
  if (denyIndex >= 0) {
    const rule = `deny[${denyIndex}] '${policy.deny[denyIndex]?.source}'`;
    return { allowed: false, rule, message: `${shown} is refused by policy '${policy.name}' rule ${rule}` };
  }
  if (op.risk === 'privileged') {
    const enabled = policy.privileged.findIndex((p) => matchesOp(p.pattern, op.method, paths));
    if (enabled >= 0) return { allowed: true, rule: `privileged[${enabled}] '${policy.privileged[enabled]?.pattern.source}'` };
    return {
      allowed: false,
      rule: 'privileged',
      message:
        `${shown} is a privileged operation and policy '${policy.name}' has not enabled it; privileged operations ` +
        `are enabled one by one by the operator (policy.privileged: ['${op.method} ${op.template}'])`,
    };
  }
  const allowIndex = policy.allow.findIndex((p) => matchesOp(p, op.method, paths));
  if (allowIndex >= 0) return { allowed: true, rule: `allow[${allowIndex}] '${policy.allow[allowIndex]?.source}'` };
  if (policy.presetClasses.has(op.risk)) return { allowed: true, rule: `preset '${policy.preset}' (${op.risk})` };
  const presetOp = policy.presetOps.find((p) => matchesOp(p, op.method, paths));
  if (presetOp) return { allowed: true, rule: `preset '${policy.preset}' '${presetOp.source}'` };
  return {
    allowed: false,
    rule: `preset '${policy.preset}'`,
    message:
      `${shown} (${op.risk}) is not allowed by policy '${policy.name}' (preset '${policy.preset}' ${describePreset(policy.preset)}); ` +
      `the operator can choose another preset or add an allow rule such as '${op.method} ${op.template}'`,
  };
}

/**
 * The `privileged` entry that enables this escalating parameter (concrete name such as `scsi1`,
 * its family `scsi[n]`, or the escalation rule's id) on this operation.
 */
function enabledEscalation(policy: Policy, op: OperationRef, names: readonly string[]): string | undefined {
  const paths = pathsOf(op);
  const i = policy.privileged.findIndex((p) => matchesOp(p.pattern, op.method, paths) && names.some((n) => p.params.has(n)));
  return i >= 0 ? `privileged[${i}] '${policy.privileged[i]?.pattern.source}'` : undefined;
}

/** An explicit allow rule names this operation (used to permit untargeted writes under a guest scope). */
function explicitlyAllowed(policy: Policy, op: OperationRef): boolean {
  const paths = pathsOf(op);
  return policy.allow.some((p) => matchesOp(p, op.method, paths)) || policy.privileged.some((p) => matchesOp(p.pattern, op.method, paths));
}

/** Rules match the concrete path and the template (see glob.ts). */
function pathsOf(op: OperationRef): string[] {
  return op.concretePath && op.concretePath !== op.template ? [op.concretePath, op.template] : [op.template];
}

function describePreset(preset: PresetName): string {
  switch (preset) {
    case 'read-only':
      return 'allows reads only';
    case 'operator':
      return 'allows reads, guest power, snapshots, backups and guest config';
    case 'admin':
      return 'allows everything except privileged operations';
  }
}

/** `, raised from write by 'forceStop': …` — the part of a message that says why the class is what it is. */
function escalationNote(facts: CallFacts): string {
  if (facts.escalations.length === 0) return '';
  const top = facts.escalations.filter((e) => e.risk === facts.risk);
  const list = (top.length > 0 ? top : facts.escalations).map((e) => `'${e.param}': ${e.reason}`).join('; ');
  return `, raised from ${facts.baseRisk} by ${list}`;
}

function familyOf(param: string): string {
  const m = /^([a-z]+)\d+$/.exec(param);
  return m && ['ide', 'sata', 'scsi', 'virtio', 'unused', 'mp', 'dev', 'hostpci', 'usb', 'serial', 'parallel', 'net'].includes(m[1] as string) ? `${m[1]}[n]` : param;
}

/** What of the call a target rule matches, as a phrase (`reaches VMID 100 'web-01'`), or undefined. */
function targetRuleHit(rule: TargetRule, facts: CallFacts): string | undefined {
  if (facts.unresolved.length > 0) return `cannot be resolved to its targets (${facts.unresolved[0]}), so it counts as reaching everything`;
  if (facts.everyGuest && !facts.lookedUp) return 'addresses every guest (not looked up), so it counts as reaching everything';
  for (const g of facts.guests) {
    if (guestMatches(rule, g)) return `reaches VMID ${g.vmid}${describeVia(g)}${g.info?.name ? ` '${g.info.name}'` : ''}`;
  }
  if (rule.nodes) {
    const node = facts.nodes.find((n) => rule.nodes?.has(n));
    if (node !== undefined) return `reaches node ${node}`;
  }
  if (rule.pools) {
    const pool = [...facts.targets.pools, ...facts.targets.poolGuests].find((p) => rule.pools?.has(p));
    if (pool !== undefined) return `reaches pool ${pool}`;
  }
  if (rule.storages) {
    const storage = facts.targets.storages.find((s) => rule.storages?.has(s));
    if (storage !== undefined) return `reaches storage ${storage}`;
  }
  return undefined;
}

function guestMatches(rule: TargetRule, g: GuestFact): boolean {
  if (rule.vmids?.some(([lo, hi]) => g.vmid >= lo && g.vmid <= hi)) return true;
  const info = g.info;
  if (!info) return false;
  if (rule.nodes?.has(info.node)) return true;
  if (info.pool !== undefined && rule.pools?.has(info.pool)) return true;
  return info.tags.some((t) => rule.tags?.has(t));
}

function describeVia(g: GuestFact): string {
  if (g.via === 'data') return ' (its volume)';
  if (g.via === 'every') return ' (the call addresses every guest)';
  return '';
}

function scopeRefusal(facts: CallFacts, policy: Policy, op: OperationRef, shown: string): { rule: string; message: string } | undefined {
  const scope = policy.scope;
  const changes = facts.risk !== 'read';
  if (scope.nodes) {
    const nodes = [...scope.nodes].join(', ');
    if (changes && facts.unresolved.length > 0) {
      return {
        rule: 'scopes.nodes',
        message: `${shown} cannot be resolved to its targets (${facts.unresolved[0]}), so it is treated as reaching every node, outside policy '${policy.name}' scopes.nodes [${nodes}]`,
      };
    }
    if (changes && facts.targets.allGuests === 'cluster') {
      return { rule: 'scopes.nodes', message: `${shown} addresses every guest of the cluster, on every node, outside policy '${policy.name}' scopes.nodes [${nodes}]; list the VMIDs (vms) instead` };
    }
    const outside = facts.nodes.filter((n) => !scope.nodes?.has(n));
    if (outside.length > 0) {
      return { rule: 'scopes.nodes', message: `${shown} targets node ${outside.join(', ')}, outside policy '${policy.name}' scopes.nodes [${nodes}]` };
    }
    if (changes && facts.nodes.length === 0 && !facts.template.startsWith('/nodes/') && !explicitlyAllowed(policy, op)) {
      return {
        rule: 'scopes.nodes',
        message: `${shown} names no node, so it can reach nodes outside policy '${policy.name}' scopes.nodes [${nodes}]; the operator can add an allow rule for it ('${facts.method} ${facts.template}')`,
      };
    }
  }
  if (!policy.hasGuestScope) return undefined;
  if (changes) {
    if (facts.unresolved.length > 0) {
      return { rule: 'scopes', message: `${shown} cannot be resolved to its targets (${facts.unresolved[0]}), so it cannot be checked against policy '${policy.name}' guest scopes` };
    }
    if (facts.everyGuest && !poolSelectionInScope(facts, policy)) {
      return {
        rule: 'scopes',
        message: `${shown} addresses every guest${facts.targets.allGuests === 'nodes' ? ' of the node' : ''}, but policy '${policy.name}' limits guests by scope; list the VMIDs instead`,
      };
    }
    if (!facts.everyGuest && facts.guests.length === 0 && !explicitlyAllowed(policy, op)) {
      return { rule: 'scopes', message: `${shown} names no guest, so it cannot be checked against policy '${policy.name}' guest scopes; the operator can add an allow rule for it` };
    }
  }
  for (const g of facts.guests) {
    const refusal = guestOutside(policy, shown, g, facts);
    if (refusal) return refusal;
  }
  return undefined;
}

/** A backup of a pool inside a pools-only scope stays inside it. */
function poolSelectionInScope(facts: CallFacts, policy: Policy): boolean {
  const s = policy.scope;
  if (facts.targets.allGuests !== undefined || !s.pools || s.vmids || s.tags) return false;
  return facts.targets.poolGuests.every((p) => s.pools?.has(p));
}

function guestOutside(policy: Policy, shown: string, g: GuestFact, facts: CallFacts): { rule: string; message: string } | undefined {
  const scope = policy.scope;
  const what = `VMID ${g.vmid}${describeVia(g)}`;
  if (scope.vmids && !scope.vmids.some(([lo, hi]) => g.vmid >= lo && g.vmid <= hi)) {
    const ranges = scope.vmids.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}-${hi}`)).join(', ');
    return { rule: 'scopes.vmids', message: `${shown} targets ${what}, outside policy '${policy.name}' scopes.vmids [${ranges}]` };
  }
  if (!scope.pools && !scope.tags) return undefined;
  // A guest being created has no directory entry: its own pool/tags parameters place it.
  const creating = !g.info && g.via === 'acts-on';
  if (scope.pools) {
    const pool = g.info ? g.info.pool : creating && typeof facts.params.pool === 'string' ? facts.params.pool : undefined;
    if (pool === undefined || !scope.pools.has(pool)) {
      const where = pool === undefined ? 'is in no pool' : `is in pool '${pool}'`;
      return { rule: 'scopes.pools', message: `${shown}: ${what} ${where}, outside policy '${policy.name}' scopes.pools [${[...scope.pools].join(', ')}]` };
    }
  }
  if (scope.tags) {
    const tags = g.info ? g.info.tags : creating ? tagsOf(facts.params.tags) : [];
    if (!tags.some((t) => scope.tags?.has(t))) {
      return { rule: 'scopes.tags', message: `${shown}: ${what} has tags [${tags.join(', ')}], none in policy '${policy.name}' scopes.tags [${[...scope.tags].join(', ')}]` };
    }
  }
  return undefined;
}

function tagsOf(value: unknown): string[] {
  return listOf(value).map((t) => t.toLowerCase());
}
