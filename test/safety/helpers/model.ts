/**
 * A small hand-written API model for safety unit tests (own words, not from the Proxmox schema):
 * enough operations to exercise every risk class, path shape and target kind.
 */
import { ApiModel, templateParams, type HttpMethod, type Operation, type ParamSpec, type RiskClass, type SchemaNode } from '../../../src/schema/model.js';

interface OpSpec {
  risk: RiskClass;
  params?: Record<string, Partial<ParamSpec>>;
  returns?: SchemaNode;
  permissions?: Operation['permissions'];
}

function op(method: HttpMethod, path: string, spec: OpSpec): Operation {
  const pathParams = templateParams(path);
  const params: ParamSpec[] = [];
  for (const name of pathParams) {
    params.push({ name, type: name === 'vmid' ? 'integer' : 'string', optional: false, inPath: true, ...(name === 'node' ? { format: 'pve-node' } : name === 'vmid' ? { format: 'pve-vmid' } : {}) });
  }
  for (const [name, p] of Object.entries(spec.params ?? {})) {
    params.push({ name, type: 'string', optional: true, inPath: false, ...p });
  }
  return {
    key: `${method} ${path}`,
    method,
    path,
    pathParams,
    params,
    returns: spec.returns ?? { type: 'null' },
    ...(spec.permissions ? { permissions: spec.permissions } : {}),
    allowtoken: true,
    protected: false,
    description: `Test operation ${method} ${path}.`,
    summary: `Test operation ${method} ${path}.`,
    risk: spec.risk,
  };
}

const TASK = { type: 'string' } as const;
const GUEST = '/nodes/{node}/qemu/{vmid}';
const vmAudit = { check: ['perm', '/vms/{vmid}', ['VM.Audit']] };
const vmPower = { check: ['perm', '/vms/{vmid}', ['VM.PowerMgmt']] };
const vmConfig = { check: ['perm', '/vms/{vmid}', ['VM.Config.Options']] };

export const OPERATIONS: Operation[] = [
  op('GET', '/version', { risk: 'read', returns: { type: 'object' }, permissions: { user: 'all' } }),
  op('GET', '/cluster/resources', { risk: 'read', params: { type: {} }, returns: { type: 'array' }, permissions: { user: 'all' } }),
  op('PUT', '/cluster/options', { risk: 'privileged', params: { keyboard: {} } }),
  op('GET', '/access/permissions', { risk: 'read', returns: { type: 'object' }, permissions: { user: 'all' } }),
  op('POST', '/access/users/{userid}/token/{tokenid}', { risk: 'privileged', returns: { type: 'object' }, params: { comment: {} } }),
  op('GET', '/nodes/{node}/qemu', { risk: 'read', returns: { type: 'array' }, permissions: { user: 'all' } }),
  op('POST', '/nodes/{node}/qemu', {
    risk: 'write',
    returns: TASK,
    params: { vmid: { type: 'integer', format: 'pve-vmid', optional: false }, name: {}, pool: {}, tags: {} },
    permissions: { check: ['perm', '/vms/{vmid}', ['VM.Allocate']] },
  }),
  op('GET', '/nodes/{node}/lxc', { risk: 'read', returns: { type: 'array' } }),
  op('GET', `${GUEST}/config`, { risk: 'read', returns: { type: 'object' }, permissions: vmAudit }),
  op('PUT', `${GUEST}/config`, { risk: 'write', params: { name: {}, memory: {}, digest: {}, cipassword: {}, delete: {} }, permissions: vmConfig }),
  op('GET', `${GUEST}/status/current`, { risk: 'read', returns: { type: 'object' }, permissions: vmAudit }),
  op('POST', `${GUEST}/status/start`, { risk: 'write', returns: TASK, permissions: vmPower }),
  op('POST', `${GUEST}/status/stop`, { risk: 'destructive', returns: TASK, permissions: vmPower }),
  op('DELETE', GUEST, { risk: 'destructive', returns: TASK, permissions: { check: ['perm', '/vms/{vmid}', ['VM.Allocate']] } }),
  op('POST', `${GUEST}/snapshot`, { risk: 'write', returns: TASK, params: { snapname: { optional: false } }, permissions: { check: ['perm', '/vms/{vmid}', ['VM.Snapshot']] } }),
  op('POST', `${GUEST}/agent/exec`, { risk: 'privileged', returns: { type: 'object' }, params: { command: {} } }),
  op('POST', `${GUEST}/migrate`, { risk: 'write', returns: TASK, params: { target: { format: 'pve-node', optional: false } } }),
  op('POST', `${GUEST}/clone`, { risk: 'write', returns: TASK, params: { newid: { type: 'integer', format: 'pve-vmid', optional: false } } }),
  op('GET', '/nodes/{node}/lxc/{vmid}/config', { risk: 'read', returns: { type: 'object' } }),
  op('GET', '/nodes/{node}/storage/{storage}/content/{volume}', { risk: 'read', returns: { type: 'object' } }),
  op('DELETE', '/nodes/{node}/storage/{storage}/content/{volume}', { risk: 'destructive', returns: TASK }),
  op('GET', '/cluster/firewall/ipset/{name}/{cidr}', { risk: 'read', returns: { type: 'object' } }),
  op('DELETE', '/cluster/firewall/ipset/{name}/{cidr}', { risk: 'write' }),
  op('GET', '/nodes/{node}/tasks/{upid}/status', { risk: 'read', returns: { type: 'object' } }),
  op('GET', '/nodes/{node}/tasks/{upid}/log', { risk: 'read', returns: { type: 'array' } }),
  op('POST', '/nodes/{node}/vzdump', { risk: 'write', returns: TASK, params: { vmid: { format: 'pve-vmid-list' }, all: { type: 'boolean' }, exclude: { format: 'pve-vmid-list' } } }),
];

export function testModel(): ApiModel {
  return new ApiModel(OPERATIONS, 'test-model', { kind: 'string', location: 'safety test fixture' });
}
