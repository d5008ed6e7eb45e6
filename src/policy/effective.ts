/**
 * The effective policy as data: what a compiled `Policy` does on one cluster, in the one shape
 * every view shows (the MCP instructions, `pve://<cluster>/policy`, for the principal asking).
 * The configured object lists rules; an agent needs their effect — what runs, what waits for a
 * human, what is refused, which targets are protected by any path, and the per-run budgets with
 * their numbers — before its first call, not after a refusal.
 */
import type { RiskClass } from '../schema/model.js';
import type { BudgetLimits } from './budget-limits.js';
import type { PolicyConfig } from './policy-config.js';
import type { Policy, TargetRule } from './policy.js';
import type { PresetName } from './presets.js';

export interface EffectiveTargetRule {
  /** Where it was written: `targets[0]`, or `deny[2]` for a deny path rule compiled into a target rule. */
  rule: string;
  action: 'deny' | 'approval';
  /** `vmids 100-199; nodes pve3`. */
  protects: string;
  /** The classes it applies to (default: every class that changes something). */
  risk: RiskClass[];
  comment?: string;
}

export interface EffectivePolicy {
  cluster: string;
  policy: string;
  preset: PresetName;
  /** False when nothing can change anything under it (run_script's readOnlyHint). */
  canChange: boolean;
  /** What it allows, asks approval for and refuses, in one sentence. */
  summary: string;
  /** The risk classes whose calls wait for a human's approval. */
  approval: RiskClass[];
  /** Operation patterns allowed beyond the preset. */
  allow: string[];
  /** Operation patterns refused whatever else says. */
  deny: string[];
  /** Privileged operations (and `+param` escalations) enabled one by one; every other privileged call is refused. */
  privileged: string[];
  /** Writes may only target what these name (empty: no scope). */
  scopes: { nodes?: string[]; vmids?: string[]; pools?: string[]; tags?: string[] };
  /** Targets protected from every path that reaches them, including deny path rules that pin a whole target. */
  targets: EffectiveTargetRule[];
  /** Per run, counted against this cluster's calls. */
  budgetPerRun: BudgetLimits;
}

const PRESET_ALLOWS: Readonly<Record<PresetName, string>> = {
  'read-only': 'reads',
  operator: 'reads, guest power, snapshots, backups and guest config',
  admin: 'reads, writes and destructive calls',
};

/** Whether no operation can change anything under this policy: a read-only preset with nothing allowed or enabled beyond it. */
export function canChange(policy: Policy): boolean {
  return !(policy.preset === 'read-only' && policy.config.allow.length === 0 && policy.config.privileged.length === 0);
}

export function effectivePolicy(cluster: string, policy: Policy): EffectivePolicy {
  const config: PolicyConfig = policy.config;
  const approval = [...policy.approvalClasses];
  const scopes = Object.fromEntries(
    Object.entries(config.scopes)
      .filter(([, v]) => Array.isArray(v) && v.length > 0)
      .map(([k, v]) => [k, (v as Array<string | number>).map(String)]),
  ) as EffectivePolicy['scopes'];
  const targets = policy.targetRules.map(effectiveTarget);
  return {
    cluster,
    policy: policy.name,
    preset: policy.preset,
    canChange: canChange(policy),
    summary: policySentence(policy, targets, Object.keys(scopes).length > 0),
    approval,
    allow: [...config.allow],
    deny: [...config.deny],
    privileged: [...config.privileged],
    scopes,
    targets,
    budgetPerRun: { ...policy.budgetLimits },
  };
}

function effectiveTarget(t: TargetRule): EffectiveTargetRule {
  const parts: string[] = [];
  if (t.vmids) parts.push(`vmids ${t.vmids.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}-${hi}`)).join(', ')}`);
  for (const key of ['nodes', 'pools', 'tags', 'storages'] as const) {
    const values = t[key];
    if (values) parts.push(`${key} ${[...values].join(', ')}`);
  }
  return {
    rule: `${t.from}[${t.index}]`,
    action: t.action,
    protects: parts.join('; '),
    risk: [...t.risk],
    ...(t.comment !== undefined ? { comment: t.comment } : {}),
  };
}

/** `Allows …; asks approval for …; refuses ….` — the preset, then what rules add and take away. */
function policySentence(policy: Policy, targets: readonly EffectiveTargetRule[], scoped: boolean): string {
  if (!canChange(policy)) return 'Allows reads only; refuses every change.';
  const { allow, privileged, deny } = policy.config;
  const extra = [
    allow.length > 0 ? `${allow.length} allow rule${allow.length === 1 ? '' : 's'}` : '',
    privileged.length > 0 ? `${privileged.length} privileged operation${privileged.length === 1 ? '' : 's'} enabled` : '',
  ].filter((p) => p !== '');
  const allows = `Allows ${PRESET_ALLOWS[policy.preset]}${extra.length > 0 ? ` plus ${extra.join(' and ')}` : ''}`;
  const approvalTargets = targets.filter((t) => t.action === 'approval').length;
  const classes = [...policy.approvalClasses];
  const asks = [classes.length > 0 ? `${classes.join(' and ')} calls` : '', approvalTargets > 0 ? `changes to the targets its approval rules name` : ''].filter((p) => p !== '');
  const refuses = [
    policy.preset === 'operator' ? 'every other write' : policy.preset === 'read-only' ? 'every other change' : '',
    privileged.length > 0 ? 'other privileged operations' : 'privileged operations',
    deny.length > 0 || targets.some((t) => t.action === 'deny') ? 'what its deny and target rules name' : '',
    scoped ? 'writes outside its scopes' : '',
  ].filter((p) => p !== '');
  return `${allows}; asks approval for ${asks.length > 0 ? asks.join(' and ') : 'nothing'}; refuses ${joinWords(refuses)}.`;
}

function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** `read 500, write 20, destructive 5, privileged 2, calls 1000, guests 10, task wait 15 min`. */
export function budgetLine(b: BudgetLimits): string {
  const wait = b.taskWaitMs % 60_000 === 0 ? `${b.taskWaitMs / 60_000} min` : `${Math.round(b.taskWaitMs / 1000)} s`;
  return `read ${b.read}, write ${b.write}, destructive ${b.destructive}, privileged ${b.privileged}, calls ${b.calls}, guests ${b.guests}, task wait ${wait}`;
}

/**
 * The compact rendering (one line per cluster in the instructions): the sentence, then only the
 * rules that exist — scopes, target rules, enabled privileged operations — and the budget unless
 * the caller states one shared by every cluster. The full shape is in `pve://<cluster>/policy`.
 */
export function compactPolicyLine(e: EffectivePolicy, options: { budget: boolean }): string {
  const parts = [e.summary.replace(/\.$/, '')];
  const scopes = Object.entries(e.scopes).map(([k, v]) => `${k} ${v.join(',')}`);
  if (scopes.length > 0) parts.push(`scopes: ${scopes.join('; ')}`);
  if (e.targets.length > 0)
    parts.push(
      `targets: ${cap(
        e.targets.map((t) => `${t.action === 'deny' ? 'deny' : 'approval for'} ${t.protects}`),
        4,
      )}`,
    );
  if (e.privileged.length > 0) parts.push(`privileged enabled: ${cap(e.privileged, 3)}`);
  if (options.budget) parts.push(`per run: ${budgetLine(e.budgetPerRun)}`);
  return parts.join('; ');
}

function cap(items: readonly string[], n: number): string {
  return items.length <= n ? items.join(', ') : `${items.slice(0, n).join(', ')} (+${items.length - n} more)`;
}
