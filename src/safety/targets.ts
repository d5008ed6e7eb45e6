/**
 * What a call acts on, read from the operation's schema (parameter formats) and the concrete
 * values: nodes (`pve-node` values: the path's node, a migration `target`…) and guests
 * (`pve-vmid` / `pve-vmid-list` values: the path's vmid, `newid`, `vms`, an HA `sid`…).
 * Scopes, the guest budget and identity binding all work from this.
 */
import type { Operation, RiskClass } from '../schema/model.js';

export interface CallTargets {
  nodes: string[];
  vmids: number[];
  /** The call addresses every guest (`all: 1` on backup operations). */
  allGuests: boolean;
}

const NODE_FORMATS = new Set(['pve-node', 'pve-node-list', 'pve-ha-node-list']);
const VMID_FORMATS = new Set(['pve-vmid', 'pve-vmid-list']);
/** vmid lists that name guests to leave out, not to act on. */
const NOT_TARGETS = new Set(['exclude']);
const HA_SID = /^(?:(?:vm|ct):)?([1-9][0-9]{0,8})$/;
const VMID = /^[1-9][0-9]{0,8}$/;

export function callTargets(op: Operation, pathValues: Record<string, string>, params: Record<string, unknown>): CallTargets {
  const nodes = new Set<string>();
  const vmids = new Set<number>();
  let allGuests = false;
  const values = (name: string): unknown => (Object.hasOwn(pathValues, name) ? pathValues[name] : params[name]);

  for (const spec of op.params) {
    const value = values(spec.name);
    if (value === undefined || value === null || value === '') continue;
    const format = typeof spec.format === 'string' ? spec.format : undefined;
    if (spec.name === 'node' || (format && NODE_FORMATS.has(format))) {
      for (const item of listOf(value)) nodes.add(item.split(':')[0] as string);
    } else if ((spec.name === 'vmid' || (format && VMID_FORMATS.has(format))) && !NOT_TARGETS.has(spec.name)) {
      for (const item of listOf(value)) if (VMID.test(item)) vmids.add(Number(item));
    } else if (format === 'pve-ha-resource-or-vm-id') {
      for (const item of listOf(value)) {
        const m = HA_SID.exec(item);
        if (m?.[1]) vmids.add(Number(m[1]));
      }
    } else if (spec.name === 'all' && isTruthy(value)) {
      allGuests = true;
    }
  }
  // Path values count even when the schema's parameter list does not repeat them.
  if (pathValues.node !== undefined) nodes.add(pathValues.node);
  if (pathValues.vmid !== undefined && VMID.test(pathValues.vmid)) vmids.add(Number(pathValues.vmid));
  return { nodes: [...nodes], vmids: [...vmids], allGuests };
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(listOf);
  if (typeof value === 'number') return [String(value)];
  if (typeof value !== 'string') return [];
  return value.split(/[,;\s\0]+/).filter((s) => s.length > 0);
}

function isTruthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/**
 * Parameters that make an otherwise ordinary call privileged: setting passwords (cloud-init,
 * container root), hook scripts and raw QEMU arguments all amount to code execution or
 * credential changes on a guest or host.
 */
const PRIVILEGED_PARAMS = new Set(['cipassword', 'password', 'hookscript', 'args']);

/** The risk class of this call: the operation's, raised to privileged by the params above. */
export function callRisk(op: Operation, params: Record<string, unknown>): { risk: RiskClass; reason?: string } {
  if (op.risk === 'read' || op.risk === 'privileged') return { risk: op.risk };
  const hit = Object.keys(params).find((k) => PRIVILEGED_PARAMS.has(k) && params[k] !== undefined);
  return hit ? { risk: 'privileged', reason: `parameter '${hit}' makes the call privileged` } : { risk: op.risk };
}
