/**
 * What in the official schema shows that a parameter has the effect a rule claims (an escalation
 * rule in policy/escalations.ts, an egress operation in risk-egress.ts). The schema tests hold every
 * rule to its evidence against each official schema, so a rule whose parameter changed meaning in a
 * new release fails there instead of silently guarding nothing.
 */
import type { ParamSpec } from './model.js';

export type Evidence = { description: RegExp } | { format: string } | { pattern: RegExp } | { keys: readonly string[] } | { enum: string } | { type: string } | { default: number | string };

/** Does the parameter show the evidence? */
export function showsEvidence(spec: ParamSpec, evidence: Evidence): boolean {
  if ('description' in evidence) return evidence.description.test(spec.description ?? '');
  if ('format' in evidence) return spec.format === evidence.format || spec.items?.format === evidence.format;
  if ('pattern' in evidence) return evidence.pattern.test(spec.pattern ?? '');
  if ('enum' in evidence) return (spec.enum ?? []).includes(evidence.enum);
  if ('type' in evidence) return spec.type === evidence.type;
  if ('default' in evidence) return spec.default !== undefined && String(spec.default) === String(evidence.default);
  const format = spec.format;
  return typeof format === 'object' && evidence.keys.every((k) => Object.hasOwn(format, k));
}
