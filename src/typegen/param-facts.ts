import type { ParamSpec, SchemaNode } from '../schema/model.js';

/** Keys of a property-string format listed before eliding the rest. */
const MAX_FORMAT_KEYS = 6;

/**
 * The constraints of a parameter that its type does not show, as short phrases:
 * `100..999999999`, `len ≤ 64`, `format pve-node`, `default 512`, `keys: [model=], bridge, … +9`.
 * With `detail`, a property string shows its whole syntax (`typetext`) instead of a key summary.
 */
export function paramFacts(spec: ParamSpec, detail = false): string[] {
  const facts: string[] = [];
  const range = rangeText(spec.minimum, spec.maximum);
  if (range) facts.push(range);
  const length = rangeText(spec.minLength, spec.maxLength);
  if (length) facts.push(`len ${length}`);
  if (typeof spec.format === 'string') facts.push(`format ${spec.format}`);
  else if (spec.format) facts.push(detail && spec.typetext ? `syntax ${spec.typetext}` : formatKeys(spec.format));
  if (spec.default !== undefined) facts.push(`default ${valueText(spec.default)}`);
  return facts;
}

function rangeText(min: number | undefined, max: number | undefined): string | undefined {
  if (min !== undefined && max !== undefined) return `${min}..${max}`;
  if (min !== undefined) return `≥ ${min}`;
  if (max !== undefined) return `≤ ${max}`;
  return undefined;
}

/** Default key first (`[file=]`), then required keys, then optional ones; aliases left out. */
function formatKeys(format: Record<string, SchemaNode>): string {
  const entries = Object.entries(format).filter(([, node]) => node.alias === undefined);
  const isDefault = ([, node]: [string, SchemaNode]) => Boolean(node.default_key);
  const isRequired = ([, node]: [string, SchemaNode]) => !node.optional;
  const ordered = [
    ...entries.filter(isDefault),
    ...entries.filter((e) => !isDefault(e) && isRequired(e)),
    ...entries.filter((e) => !isDefault(e) && !isRequired(e)),
  ];
  const names = ordered.slice(0, MAX_FORMAT_KEYS).map((e) => (isDefault(e) ? `[${e[0]}=]` : e[0]));
  const rest = ordered.length - names.length;
  return `keys: ${names.join(', ')}${rest > 0 ? `, … +${rest}` : ''}`;
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}
