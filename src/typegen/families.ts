/** Indexed parameter families (`net0`..`net31`) folded into one entry each, for types and for people. */
import type { ParamSpec } from '../schema/model.js';

/** A parameter as shown to people and in types: single, or an indexed family (`net0`..`net31` as `net[n]`). */
export type ParamGroup = { kind: 'single'; spec: ParamSpec } | { kind: 'family'; base: string; members: ParamSpec[]; first: ParamSpec; maxIndex: number };

/** Fold indexed families back into one entry each, keeping the schema's parameter order. */
export function groupParams(params: readonly ParamSpec[]): ParamGroup[] {
  const groups: ParamGroup[] = [];
  const families = new Map<string, Extract<ParamGroup, { kind: 'family' }>>();
  for (const spec of params) {
    if (!spec.family) {
      groups.push({ kind: 'single', spec });
      continue;
    }
    const known = families.get(spec.family.base);
    if (known) {
      known.members.push(spec);
      known.maxIndex = Math.max(known.maxIndex, spec.family.index);
    } else {
      const group = { kind: 'family' as const, base: spec.family.base, members: [spec], first: spec, maxIndex: spec.family.index };
      families.set(spec.family.base, group);
      groups.push(group);
    }
  }
  return groups;
}

export function groupName(group: ParamGroup): string {
  return group.kind === 'single' ? group.spec.name : `${group.base}[n]`;
}

export function groupSpec(group: ParamGroup): ParamSpec {
  return group.kind === 'single' ? group.spec : group.first;
}
