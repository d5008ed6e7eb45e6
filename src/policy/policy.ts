/**
 * The compiled policy: which operations a run may call, which need approval, the scopes and the
 * budget limits. Evaluation order (deny wins):
 *   1. explicit `deny` rules;
 *   2. privileged operations: refused unless enabled one by one in `privileged`;
 *   3. explicit `allow` rules;
 *   4. the preset (its risk classes, then its operation patterns);
 *   5. otherwise refused.
 * Scopes (nodes, VMIDs, pools, tags) are checked separately with the call's targets (scope.ts).
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { resolveBudgetLimits, type BudgetLimits } from './budget-limits.js';
import { compileOpPattern, matchesOp, type OpPattern } from './glob.js';
import { readPathRule } from './path-rule-targets.js';
import { parsePolicyConfig, parseVmidRanges, splitPrivilegedEntry, type PolicyConfig, type TargetRuleConfig } from './policy-config.js';
import { PRESETS, type PresetName } from './presets.js';

export interface OperationRef {
  method: HttpMethod;
  /** Path template of the operation (`/nodes/{node}/qemu/{vmid}/status/start`). */
  template: string;
  /** The concrete path when known (`/nodes/pve1/qemu/101/status/start`). */
  concretePath?: string;
  risk: RiskClass;
}

export type PolicyDecision = { allowed: true; rule: string } | { allowed: false; rule: string; message: string };

export interface ScopeSpec {
  nodes?: ReadonlySet<string>;
  vmids?: ReadonlyArray<readonly [number, number]>;
  pools?: ReadonlySet<string>;
  /** Lower-cased: PVE treats tags case-insensitively. */
  tags?: ReadonlySet<string>;
}

/** A compiled target rule: policy.targets[i], or what deny[i] means when it pins a whole target (path-rule-targets.ts). */
export interface TargetRule {
  /** Where it was written: `targets[index]` or `deny[index]`. */
  from: 'targets' | 'deny';
  index: number;
  action: 'deny' | 'approval';
  vmids?: ReadonlyArray<readonly [number, number]>;
  nodes?: ReadonlySet<string>;
  pools?: ReadonlySet<string>;
  /** Lower-cased. */
  tags?: ReadonlySet<string>;
  storages?: ReadonlySet<string>;
  risk: ReadonlySet<RiskClass>;
  comment?: string;
  /** `targets[0] (deny vmids 100)`: for messages and the audit. */
  label: string;
}

interface PrivilegedEntry {
  pattern: OpPattern;
  /** Escalating parameters (or escalation rule ids) this entry enables; empty: the operation only. */
  params: ReadonlySet<string>;
}

/** Who may approve a plan under this policy (`approval.approver`, `approval.approvers`). */
export interface ApproverRule {
  /** Another principal must approve: the asker's own client (elicitation) does not count. */
  other: boolean;
  /** The group that other principal must be in. */
  group?: string;
}

export class Policy {
  readonly name: string;
  readonly preset: PresetName;
  readonly scope: ScopeSpec;
  readonly approvalClasses: ReadonlySet<RiskClass>;
  /** Four eyes: whether the asker's own answer counts, and the group another approver must be in. */
  readonly approver: ApproverRule;
  readonly budgetLimits: BudgetLimits;
  private readonly deny: OpPattern[];
  private readonly allow: OpPattern[];
  private readonly privileged: PrivilegedEntry[];
  private readonly presetOps: OpPattern[];
  readonly targetRules: readonly TargetRule[];
  /** True when guest scopes restrict which VMIDs writes may target (read for every call: set once). */
  readonly hasGuestScope: boolean;

  /**
   * `taintedBy`: where the session this policy decides for received text guests or other people
   * control (taint.ts); set only on the copy `afterTaint` makes when `taint.writes` is `approval`.
   */
  constructor(
    readonly config: PolicyConfig,
    readonly taintedBy?: readonly string[],
  ) {
    this.preset = config.preset;
    this.name = config.name ?? config.preset;
    this.deny = config.deny.map(compileOpPattern);
    this.allow = config.allow.map(compileOpPattern);
    this.privileged = config.privileged.map((entry) => {
      const { pattern, params } = splitPrivilegedEntry(entry);
      return { pattern: { ...compileOpPattern(pattern), source: entry }, params: new Set(params) };
    });
    this.targetRules = [...config.targets.map((rule, i) => compileTargetRule(rule, 'targets', i)), ...compilePathRules(config.deny)];
    this.presetOps = PRESETS[config.preset].operations.map(compileOpPattern);
    this.approvalClasses = new Set(config.approval?.require ?? PRESETS[config.preset].approval);
    const group = config.approval?.approvers?.group;
    this.approver = group !== undefined ? { other: true, group } : { other: config.approval?.approver === 'other' };
    this.budgetLimits = resolveBudgetLimits(config.budget);
    const s = config.scopes;
    this.scope = {
      ...(s.nodes ? { nodes: new Set(s.nodes) } : {}),
      ...(s.vmids ? { vmids: parseVmidRanges(s.vmids) } : {}),
      ...(s.pools ? { pools: new Set(s.pools) } : {}),
      ...(s.tags ? { tags: new Set(s.tags.map((t) => t.toLowerCase())) } : {}),
    };
    this.hasGuestScope = Boolean(this.scope.vmids || this.scope.pools || this.scope.tags);
  }

  /** Validate raw configuration and compile it. Throws `PolicyConfigError` naming the bad key. */
  static fromConfig(raw: unknown): Policy {
    return new Policy(parsePolicyConfig(raw));
  }

  /**
   * The policy for a session that has received such text: under `taint.writes: 'approval'` every
   * change then needs human approval (decide.ts names the sources); otherwise this policy.
   */
  afterTaint(sources: readonly string[]): Policy {
    if (sources.length === 0 || this.config.taint.writes !== 'approval') return this;
    return new Policy(this.config, sources);
  }

  decide(op: OperationRef): PolicyDecision {
    const paths = pathsOf(op);
    const shown = `${op.method} ${op.concretePath ?? op.template}`;
    const denyIndex = this.deny.findIndex((p) => matchesOp(p, op.method, paths));
    if (denyIndex >= 0) {
      const rule = `deny[${denyIndex}] '${this.deny[denyIndex]?.source}'`;
      return { allowed: false, rule, message: `${shown} is refused by policy '${this.name}' rule ${rule}` };
    }
    if (op.risk === 'privileged') {
      const enabled = this.privileged.findIndex((p) => matchesOp(p.pattern, op.method, paths));
      if (enabled >= 0) return { allowed: true, rule: `privileged[${enabled}] '${this.privileged[enabled]?.pattern.source}'` };
      return {
        allowed: false,
        rule: 'privileged',
        message:
          `${shown} is a privileged operation and policy '${this.name}' has not enabled it; privileged operations ` +
          `are enabled one by one by the operator (policy.privileged: ['${op.method} ${op.template}'])`,
      };
    }
    const allowIndex = this.allow.findIndex((p) => matchesOp(p, op.method, paths));
    if (allowIndex >= 0) return { allowed: true, rule: `allow[${allowIndex}] '${this.allow[allowIndex]?.source}'` };
    const preset = PRESETS[this.preset];
    if (preset.riskClasses.includes(op.risk)) return { allowed: true, rule: `preset '${this.preset}' (${op.risk})` };
    const presetOp = this.presetOps.find((p) => matchesOp(p, op.method, paths));
    if (presetOp) return { allowed: true, rule: `preset '${this.preset}' '${presetOp.source}'` };
    return {
      allowed: false,
      rule: `preset '${this.preset}'`,
      message:
        `${shown} (${op.risk}) is not allowed by policy '${this.name}' (preset '${this.preset}' ${describePreset(this.preset)}); ` +
        `the operator can choose another preset or add an allow rule such as '${op.method} ${op.template}'`,
    };
  }

  /**
   * The `privileged` entry that enables this escalating parameter (concrete name such as `scsi1`,
   * its family `scsi[n]`, or the escalation rule's id) on this operation.
   */
  enablesEscalation(op: OperationRef, names: readonly string[]): string | undefined {
    const paths = pathsOf(op);
    const i = this.privileged.findIndex((p) => matchesOp(p.pattern, op.method, paths) && names.some((n) => p.params.has(n)));
    return i >= 0 ? `privileged[${i}] '${this.privileged[i]?.pattern.source}'` : undefined;
  }

  needsApproval(risk: RiskClass): boolean {
    return this.approvalClasses.has(risk);
  }

  /** An explicit allow rule names this operation (used to permit untargeted writes under a guest scope). */
  explicitlyAllowed(op: OperationRef): boolean {
    const paths = pathsOf(op);
    return this.allow.some((p) => matchesOp(p, op.method, paths)) || this.privileged.some((p) => matchesOp(p.pattern, op.method, paths));
  }
}

/** Rules match the concrete path and the template (see glob.ts). */
function pathsOf(op: OperationRef): string[] {
  return op.concretePath && op.concretePath !== op.template ? [op.concretePath, op.template] : [op.template];
}

const CHANGING: readonly RiskClass[] = ['write', 'destructive', 'privileged'];

/** Deny rules that pin a whole guest, node, pool or storage, as the target rules they also act as. */
function compilePathRules(deny: readonly string[]): TargetRule[] {
  const out: TargetRule[] = [];
  deny.forEach((source, i) => {
    const reading = readPathRule(source);
    if (reading.kind === 'compiled') out.push(compileTargetRule(reading.target, 'deny', i, source));
  });
  return out;
}

function compileTargetRule(rule: TargetRuleConfig, from: 'targets' | 'deny', index: number, source?: string): TargetRule {
  const parts: string[] = [];
  const list = (key: string, values: ReadonlyArray<string | number> | undefined) => {
    if (values) parts.push(`${key} ${values.join(', ')}`);
  };
  list('vmids', rule.vmids);
  list('nodes', rule.nodes);
  list('pools', rule.pools);
  list('tags', rule.tags);
  list('storages', rule.storages);
  const risk = new Set(rule.risk ?? CHANGING);
  const described = `${rule.action} ${parts.join('; ')}${rule.risk ? ` for ${rule.risk.join(', ')}` : ''}`;
  return {
    from,
    index,
    action: rule.action,
    ...(rule.vmids ? { vmids: parseVmidRanges(rule.vmids) } : {}),
    ...(rule.nodes ? { nodes: new Set(rule.nodes) } : {}),
    ...(rule.pools ? { pools: new Set(rule.pools) } : {}),
    ...(rule.tags ? { tags: new Set(rule.tags.map((t) => t.toLowerCase())) } : {}),
    ...(rule.storages ? { storages: new Set(rule.storages) } : {}),
    risk,
    ...(rule.comment !== undefined ? { comment: rule.comment } : {}),
    label: from === 'targets' ? `targets[${index}] (${described})` : `deny[${index}] '${source}' (as target rule: ${described})`,
  };
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
