/** Example calls for get_schema: a plausible value per required parameter (real-looking for the common ones, else by type) in one `await pve.*` line. */
import type { Operation, ParamSpec } from '../schema/model.js';

/** Values that read as real ones for the parameters almost every call has. */
const BY_NAME: Readonly<Record<string, unknown>> = {
  node: 'pve1',
  target: 'pve2',
  vmid: 100,
  newid: 101,
  storage: 'local-lvm',
};
const BY_FORMAT: Readonly<Record<string, unknown>> = {
  'pve-node': 'pve1',
  'pve-vmid': 100,
  'pve-storage-id': 'local-lvm',
  'pve-userid': 'alice@pve',
};

/** A plausible value of the parameter's type; placeholders (`'<snapname>'`) where no real one is typical. */
export function exampleValue(spec: ParamSpec): unknown {
  const numeric = spec.type === 'integer' || spec.type === 'number';
  if (spec.enum?.[0] !== undefined) return numeric ? Number(spec.enum[0]) : spec.enum[0];
  const known = Object.hasOwn(BY_NAME, spec.name) ? BY_NAME[spec.name] : typeof spec.format === 'string' && Object.hasOwn(BY_FORMAT, spec.format) ? BY_FORMAT[spec.format] : undefined;
  // `vmid` is a list in some operations: a typical value only where its kind fits.
  if (known !== undefined && typeof known === (numeric || spec.format === 'pve-vmid' ? 'number' : spec.type)) return known;
  switch (spec.type) {
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return spec.minimum ?? 1;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return `<${spec.name}>`;
  }
}

/** One line: `await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 })`. */
export function exampleCall(op: Operation): string {
  const required = op.params.filter((p) => !p.optional);
  const args = required.map((p) => `${propertyKey(p.name)}: ${literal(exampleValue(p))}`).join(', ');
  const params = args ? `, { ${args} }` : '';
  return `await pve.${op.method.toLowerCase()}('${op.path}'${params})`;
}

function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `'${name}'`;
}

function literal(value: unknown): string {
  return typeof value === 'string' ? `'${value.replace(/['\\]/g, '\\$&')}'` : JSON.stringify(value);
}
