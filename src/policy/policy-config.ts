/**
 * The policy configuration as the operator writes it (config file section `policy`), validated
 * with zod. Errors name the offending key and say how to fix it.
 */
import { z } from 'zod';
import { RISK_CLASSES } from '../schema/model.js';
import { compileOpPattern, PatternError } from './glob.js';
import { formatTargetRule, pinCovered, readPathRule } from './path-rule-targets.js';
import { PRESET_NAMES } from './presets.js';

const opPattern = z.string().superRefine((value, ctx) => {
  try {
    compileOpPattern(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof PatternError ? err.message : String(err) });
  }
});

/**
 * `METHOD /path [+param,param]`: the operation, and the parameters whose escalation to privileged
 * (escalations.ts) the entry enables on it. Without `+…` only the operation itself is enabled.
 */
export function splitPrivilegedEntry(value: string): { pattern: string; params: string[] } {
  const plus = value.indexOf(' +');
  if (plus < 0) return { pattern: value, params: [] };
  const params = value
    .slice(plus + 2)
    .split(/[,+\s]+/)
    .filter((p) => p !== '');
  return { pattern: value.slice(0, plus), params };
}

const privilegedPattern = z.string().superRefine((value, ctx) => {
  const { pattern, params } = splitPrivilegedEntry(value);
  try {
    compileOpPattern(pattern);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof PatternError ? err.message : String(err) });
    return;
  }
  if (pattern.includes('**')) {
    ctx.addIssue({ code: 'custom', message: "privileged operations are enabled one by one: use an operation key or a glob with single-segment '*', not '**'" });
  }
  if (value.includes(' +') && params.length === 0) {
    ctx.addIssue({ code: 'custom', message: "name the parameters after '+', e.g. 'POST /nodes/*/vzdump +script'" });
  }
});

const vmidRange = /^([1-9]\d{0,8})(?:-([1-9]\d{0,8}))?$/;

const vmidEntry = z.union([z.number().int().min(1), z.string()]).superRefine((value, ctx) => {
  const m = vmidRange.exec(String(value));
  if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) {
    ctx.addIssue({ code: 'custom', message: `expected a VMID (101) or an ascending range ('100-199'); got ${JSON.stringify(value)}` });
  }
});

const name = z.string().min(1, 'must not be empty');

const TARGET_SELECTORS = ['vmids', 'nodes', 'pools', 'tags', 'storages'] as const;

/**
 * A rule over effects: it protects guests, nodes, pools or storages from every operation that
 * affects them, whatever path reaches them (a deny on VMID 100 also stops HA, bulk actions and
 * migrate-all from acting on it). `risk` limits the rule to some classes (default: every class
 * that changes something).
 */
export const TargetRuleSchema = z
  .strictObject({
    action: z.enum(['deny', 'approval'], { message: "action must be 'deny' or 'approval'" }),
    vmids: z.array(vmidEntry).min(1).optional(),
    nodes: z.array(name).min(1).optional(),
    pools: z.array(name).min(1).optional(),
    tags: z.array(name).min(1).optional(),
    storages: z.array(name).min(1).optional(),
    risk: z.array(z.enum(RISK_CLASSES)).min(1).optional(),
    /** Shown in refusals: why the operator protects these targets. */
    comment: z.string().optional(),
  })
  .refine((rule) => TARGET_SELECTORS.some((k) => rule[k] !== undefined), {
    message: `a target rule names what it protects: one or more of ${TARGET_SELECTORS.join(', ')}`,
  })
  .refine((rule) => rule.action !== 'approval' || !rule.risk?.includes('read'), {
    message: "reads never need approval: an approval rule's risk lists 'write', 'destructive' or 'privileged' (use action 'deny' to hide reads)",
  });

export const BudgetLimitsSchema = z.strictObject({
  read: z.number().int().min(0).optional(),
  write: z.number().int().min(0).optional(),
  destructive: z.number().int().min(0).optional(),
  privileged: z.number().int().min(0).optional(),
  /** Every bridge attempt, including invalid and denied ones. */
  calls: z.number().int().min(1).optional(),
  /** Distinct guests (VMIDs) targeted by writes. */
  guests: z.number().int().min(0).optional(),
  /** Total time spent in `waitTask` per run. */
  taskWaitMs: z.number().int().min(0).optional(),
});

export const PolicyConfigSchema = z
  .strictObject({
    /** Shown in the audit and in messages; defaults to the preset name. */
    name: name.optional(),
    preset: z.enum(PRESET_NAMES, { message: `preset must be one of ${PRESET_NAMES.join(', ')}` }).default('read-only'),
    allow: z.array(opPattern).default([]),
    deny: z.array(opPattern).default([]),
    /** Privileged operations enabled one by one (operation key or single-segment glob), with `+param` for escalating parameters. */
    privileged: z.array(privilegedPattern).default([]),
    /** Rules over effects (by VMID, node, pool, tag or storage), checked with every call's targets. */
    targets: z.array(TargetRuleSchema).default([]),
    scopes: z
      .strictObject({
        nodes: z.array(name).optional(),
        vmids: z.array(vmidEntry).optional(),
        pools: z.array(name).optional(),
        tags: z.array(name).optional(),
      })
      .default({}),
    approval: z
      .strictObject({
        require: z.array(z.enum(RISK_CLASSES).refine((r) => r !== 'read', { message: "reads never need approval: use 'write', 'destructive' or 'privileged'" })).optional(),
        /**
         * Who may approve: `self` (default) lets the asker's own MCP client accept the plan;
         * `other` (four eyes) ignores that answer and waits for another principal (POST
         * /approvals/<planId>) or the host operator (pve-code-mcp approve).
         */
        approver: z.enum(['self', 'other']).default('self'),
        /** Four eyes with a named set of approvers: the other principal must be in this group (implies approver 'other'). */
        approvers: z.strictObject({ group: name }).optional(),
      })
      .optional(),
    budget: BudgetLimitsSchema.default({}),
    /**
     * Once a session has received text that guests or other people control (taint.ts): `approval`
     * makes every change of its later runs need human approval; `allow` (default) only marks it.
     */
    taint: z.strictObject({ writes: z.enum(['approval', 'allow'], { message: "taint.writes must be 'approval' or 'allow'" }).default('allow') }).default({ writes: 'allow' }),
    /**
     * Undo (docs/undo.md): before a change of these risk classes to a guest, the bridge takes a
     * safety snapshot where the guest's storage supports one, and undo rolls back to it.
     */
    undo: z
      .strictObject({
        snapshotBefore: z.array(z.enum(RISK_CLASSES).refine((r) => r !== 'read', { message: "a snapshot is taken before changes: use 'write', 'destructive' or 'privileged'" })).default([]),
        /**
         * Read an object before a `PUT` that updates it (one GET, where the same path has one), so
         * undo can put its previous values back. Guest config writes need no such read: the
         * identity check already reads the config.
         */
        readBeforeUpdate: z.boolean().default(true),
      })
      .default({ snapshotBefore: [], readBeforeUpdate: true }),
  })
  // A deny rule that names a target for part of its API has no target-rule equivalent
  // (path-rule-targets.ts): refused until a target rule says how that target is protected from the
  // other paths that reach it, so the intuitive rule never silently protects less than it says.
  .superRefine((config, ctx) => {
    const targets = config.targets.map(({ vmids, ...t }) => ({ ...t, ...(vmids ? { vmids: parseVmidRanges(vmids) } : {}) }));
    config.deny.forEach((source, i) => {
      const reading = readPathRule(source);
      if (reading.kind !== 'partial' || pinCovered(reading.pin, targets)) return;
      ctx.addIssue({
        code: 'custom',
        path: ['deny', i],
        message:
          `'${source}': ${reading.why}. Add the target rule that protects it from every path, e.g. targets: [${formatTargetRule(reading.suggestion)}] ` +
          `(with it the path rule stays, for its own path), or make this rule cover the whole target (method '*', path ending in '/**') so that it is compiled into one`,
      });
    });
  });

export type PolicyConfig = z.output<typeof PolicyConfigSchema>;
export type TargetRuleConfig = z.output<typeof TargetRuleSchema>;

export class PolicyConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid policy configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'PolicyConfigError';
  }
}

/** Validate raw configuration (from a file or the environment). Throws `PolicyConfigError`. */
export function parsePolicyConfig(raw: unknown): PolicyConfig {
  const result = PolicyConfigSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new PolicyConfigError(result.error.issues.map(describeIssue));
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = ['policy', ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = 'name, preset, allow, deny, privileged, targets, scopes, approval, budget, taint, undo';
    return `${key}: unknown key(s) ${issue.keys.join(', ')}; check the spelling (known at the top level: ${known})`;
  }
  return `${key}: ${issue.message}`;
}

/** Inclusive VMID ranges from the scope entries (already validated). */
export function parseVmidRanges(entries: ReadonlyArray<number | string>): Array<[number, number]> {
  return entries.map((entry) => {
    const m = vmidRange.exec(String(entry));
    const lo = Number(m?.[1]);
    return [lo, m?.[2] !== undefined ? Number(m[2]) : lo];
  });
}
