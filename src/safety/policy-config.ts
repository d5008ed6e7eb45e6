/**
 * The policy configuration as the operator writes it (config file section `policy`), validated
 * with zod. Errors name the offending key and say how to fix it.
 */
import { z } from 'zod';
import { RISK_CLASSES } from '../schema/model.js';
import { compileOpPattern, PatternError } from './glob.js';
import { PRESET_NAMES } from './presets.js';

const opPattern = z.string().superRefine((value, ctx) => {
  try {
    compileOpPattern(value);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: err instanceof PatternError ? err.message : String(err) });
  }
});

const privilegedPattern = opPattern.refine((value) => !value.includes('**'), {
  message: "privileged operations are enabled one by one: use an operation key or a glob with single-segment '*', not '**'",
});

const vmidRange = /^([1-9]\d{0,8})(?:-([1-9]\d{0,8}))?$/;

const vmidEntry = z.union([z.number().int().min(1), z.string()]).superRefine((value, ctx) => {
  const m = vmidRange.exec(String(value));
  if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1]))) {
    ctx.addIssue({ code: 'custom', message: `expected a VMID (101) or an ascending range ('100-199'); got ${JSON.stringify(value)}` });
  }
});

const name = z.string().min(1, 'must not be empty');

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

export const PolicyConfigSchema = z.strictObject({
  /** Shown in the audit and in messages; defaults to the preset name. */
  name: name.optional(),
  preset: z.enum(PRESET_NAMES, { message: `preset must be one of ${PRESET_NAMES.join(', ')}` }).default('read-only'),
  allow: z.array(opPattern).default([]),
  deny: z.array(opPattern).default([]),
  /** Privileged operations enabled one by one (operation key or single-segment glob). */
  privileged: z.array(privilegedPattern).default([]),
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
      require: z.array(
        z.enum(RISK_CLASSES).refine((r) => r !== 'read', { message: "reads never need approval: use 'write', 'destructive' or 'privileged'" }),
      ),
    })
    .optional(),
  budget: BudgetLimitsSchema.default({}),
});

export type PolicyConfigInput = z.input<typeof PolicyConfigSchema>;
export type PolicyConfig = z.output<typeof PolicyConfigSchema>;
export type BudgetLimitsInput = z.output<typeof BudgetLimitsSchema>;

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
    const known = 'name, preset, allow, deny, privileged, scopes, approval, budget';
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
