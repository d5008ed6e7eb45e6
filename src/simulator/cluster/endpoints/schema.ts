/**
 * Builders for the simulator's own operation descriptions (PVE's JSON-schema dialect). Parameter
 * names, types and formats follow PVE so clients and the official schema agree; every description
 * is written for this project.
 */
import type { SchemaNode } from '../../../schema/model.js';

type Extra = Omit<SchemaNode, 'type' | 'description'>;

export const str = (description: string, extra: Extra = {}): SchemaNode => ({ type: 'string', description, ...extra });
export const int = (description: string, extra: Extra = {}): SchemaNode => ({ type: 'integer', description, ...extra });
export const num = (description: string, extra: Extra = {}): SchemaNode => ({ type: 'number', description, ...extra });
export const bool = (description: string, extra: Extra = {}): SchemaNode => ({ type: 'boolean', description, ...extra });
export const opt = (node: SchemaNode): SchemaNode => ({ ...node, optional: 1 });

export const obj = (properties: Record<string, SchemaNode>, extra: Omit<SchemaNode, 'type' | 'properties'> = {}): SchemaNode => ({
  type: 'object',
  properties,
  ...extra,
});

export const arr = (items: SchemaNode, extra: Omit<SchemaNode, 'type' | 'items'> = {}): SchemaNode => ({ type: 'array', items, ...extra });

export const NULL: SchemaNode = { type: 'null' };

/** An async operation's result: the UPID of its worker task. */
export const UPID: SchemaNode = str('UPID of the worker task doing the job; poll its status to learn the outcome.');

/**
 * Answers declared only by their kind, as PVE declares many of its reads (the served schema then
 * checks the kind, not the fields).
 */
export const LIST: SchemaNode = arr(obj({}));
export const ITEMS: SchemaNode = arr({});
export const OBJ: SchemaNode = obj({});
export const TEXT: SchemaNode = { type: 'string' };
export const INTEGER: SchemaNode = { type: 'integer' };
export const BOOLEAN: SchemaNode = { type: 'boolean' };
export const ANY: SchemaNode = {};

/** A `[{subdir}]` directory listing. */
export const SUBDIRS: SchemaNode = arr(obj({ subdir: str('Name of the sub-path.') }), { links: [{ rel: 'child', href: '{subdir}' }] });

export const VMID_RANGE = { format: 'pve-vmid', minimum: 100, maximum: 999999999 } as const;

/** Parameters that recur across operations. */
export const P = {
  node: str('Cluster node the request is for.', { format: 'pve-node' }),
  vmid: int('Guest ID (VMID), unique across the cluster.', { ...VMID_RANGE }),
  skiplock: opt(bool('Act even if the guest config is locked (root@pam only).')),
  timeout: opt(int('Seconds to wait at most.', { minimum: 0 })),
  storage: str('Storage identifier.', { format: 'pve-storage-id' }),
  snapname: str('Snapshot name.', { format: 'pve-configid', maxLength: 40 }),
  digest: opt(str('Refuse the change unless the current config has this SHA1 digest (guards against concurrent edits).', { maxLength: 40 })),
  upid: str('Task identifier (UPID).'),
  pool: str('Resource pool identifier.', { format: 'pve-poolid' }),
} as const;

/** `['perm', path, privs, ...extra]` as PVE writes permission checks. */
export function perm(path: string, privs: string[], ...extra: unknown[]): unknown[] {
  return ['perm', path, privs, ...extra];
}
