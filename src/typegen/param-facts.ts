/** Short phrases for a parameter's constraints its type does not show (range, length, format, default, keys). */
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
  const unit = unitOf(spec);
  if (unit) facts.push(`in ${unit}`);
  return facts;
}

const UNIT = /\b(?:in|In|unit:?)\s+(?:the\s+)?(KiB|MiB|GiB|TiB|KB|MB|GB|TB|bytes?|bits|seconds?|milliseconds|ms|minutes?|hours?|days?|percent|MB\/s|MiB\/s)\b/;

/**
 * The unit a value is given in, from its description ("… for the VM in MiB"); for a property
 * string, the unit of its default key (`memory: '8192'` means `current=8192`, MiB).
 */
export function unitOf(spec: Pick<ParamSpec, 'description' | 'format'> | SchemaNode): string | undefined {
  const own = UNIT.exec(spec.description ?? '')?.[1];
  if (own) return own;
  if (typeof spec.format !== 'object' || spec.format === null) return undefined;
  const def = Object.values(spec.format).find((node) => node.default_key);
  return def ? UNIT.exec(def.description ?? '')?.[1] : undefined;
}

/**
 * The keys of a property string, one phrase each: `current: integer ≥ 16, default 512, in MiB —
 * Current amount of online RAM…` (default key marked `[key=]`, aliases left out).
 */
export function formatKeyLines(format: Record<string, SchemaNode>, maxDescription = 90): string[] {
  return Object.entries(format)
    .filter(([, node]) => node.alias === undefined)
    .map(([key, node]) => {
      const facts: string[] = [typeof node.type === 'string' ? node.type : 'string'];
      if (node.enum && node.enum.length > 0) facts[0] = node.enum.slice(0, 8).join('|') + (node.enum.length > 8 ? '|…' : '');
      const range = rangeText(node.minimum, node.maximum);
      if (range) facts.push(range);
      if (typeof node.format === 'string') facts.push(`format ${node.format}`);
      if (node.default !== undefined) facts.push(`default ${valueText(node.default)}`);
      const unit = unitOf(node);
      if (unit) facts.push(`in ${unit}`);
      const text = (node.description ?? '').replace(/\s+/g, ' ').trim();
      const description = text.length > maxDescription ? `${text.slice(0, maxDescription - 1).trimEnd()}…` : text;
      const name = node.default_key ? `[${key}=]` : `${key}${node.optional ? '?' : ''}`;
      return `${name} ${facts.join(', ')}${description ? ` — ${description}` : ''}`;
    });
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
  const ordered = [...entries.filter(isDefault), ...entries.filter((e) => !isDefault(e) && isRequired(e)), ...entries.filter((e) => !isDefault(e) && !isRequired(e))];
  const names = ordered.slice(0, MAX_FORMAT_KEYS).map((e) => (isDefault(e) ? `[${e[0]}=]` : e[0]));
  const rest = ordered.length - names.length;
  return `keys: ${names.join(', ')}${rest > 0 ? `, … +${rest}` : ''}`;
}

function valueText(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}
