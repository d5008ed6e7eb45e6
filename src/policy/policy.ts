/**
 * The compiled policy, as data: the path rules (deny, privileged, allow, the preset's classes and
 * operations) as compiled patterns, the target rules, the scopes, which classes need approval and
 * the budget limits. It decides nothing: decide.ts reads these fields, once per call, in its order
 * (deny wins; the path rules' own order is `pathDecision` there).
 */
import type { HttpMethod, RiskClass } from '../schema/model.js';
import { resolveBudgetLimits, type BudgetLimits } from './budget-limits.js';
import { compileOpPattern, type OpPattern } from './glob.js';
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

export interface PrivilegedEntry {
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
  /** The path rules, compiled: data decide.ts reads (this module decides nothing). */
  readonly deny: readonly OpPattern[];
  readonly allow: readonly OpPattern[];
  readonly privileged: readonly PrivilegedEntry[];
  /** The preset's classes granted wholesale, and its operation patterns. */
  readonly presetClasses: ReadonlySet<RiskClass>;
  readonly presetOps: readonly OpPattern[];
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
    this.presetClasses = new Set(PRESETS[config.preset].riskClasses);
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
