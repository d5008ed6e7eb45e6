/**
 * Writes to the datacenter's storage definitions: add one, change it (content, nodes, enable or
 * disable), remove it. As on PVE, removing or disabling a definition never looks at what lives on
 * the storage: guests keep disk entries that point at a storage that is gone or off (which is why
 * plans show the blast radius of these calls). A disabled storage is not usable on any node.
 */
import type { SimEndpoint } from '../../contract.js';
import { fail, paramError } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimStorage, StorageContent } from '../types.js';
import { flag, list, optStr, reqStr } from './params.js';
import { bool, NULL, obj, opt, P, perm, str } from './schema.js';

const TYPES = ['dir', 'lvmthin', 'nfs', 'rbd', 'zfspool'] as const;
const CONTENT: readonly StorageContent[] = ['images', 'rootdir', 'iso', 'vztmpl', 'backup', 'snippets', 'import'];
/** Size a new definition reports: the simulator has no disks behind it. */
const NEW_STORAGE_BYTES = 2 * 1024 ** 4;
/** Definition keys kept as they are given, by backend. */
const PROPS = ['path', 'server', 'export', 'pool', 'vgname', 'thinpool', 'krbd'] as const;
const ALLOCATE = { check: perm('/storage', ['Datastore.Allocate']) };

const DEFINITION = {
  content: opt(str('What the storage holds, comma-separated.', { format: 'pve-storage-content-list' })),
  nodes: opt(str('Only these nodes may use it (default: every node).', { format: 'pve-node-list' })),
  disable: opt(bool('Switch the storage off without removing its definition.')),
  shared: opt(bool('The same data is reachable from every node.')),
  server: opt(str('Host of a network storage.', { format: 'pve-storage-server' })),
  pool: opt(str('Pool of a Ceph or ZFS storage.')),
  krbd: opt(bool('Map Ceph images through the kernel driver.')),
};

function contentList(raw: string | undefined, type: SimStorage['type']): StorageContent[] {
  if (raw === undefined) return type === 'dir' || type === 'nfs' ? ['images', 'rootdir', 'iso', 'vztmpl', 'backup'] : ['images', 'rootdir'];
  const out = list(raw) as StorageContent[];
  for (const c of out) if (!CONTENT.includes(c)) throw paramError('content', `content type '${c}' is not one this storage can hold`);
  return out;
}

function nodeList(state: ClusterState, raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const nodes = list(raw);
  for (const n of nodes) state.node(n);
  return nodes.length > 0 ? nodes : undefined;
}

export function storageConfigEndpoints(state: ClusterState): SimEndpoint[] {
  return [
    {
      method: 'POST',
      path: '/storage',
      description: 'Add a storage definition to the datacenter.',
      parameters: {
        storage: P.storage,
        type: str('Backend kind.', { enum: ['btrfs', 'cephfs', 'cifs', 'dir', 'esxi', 'iscsi', 'iscsidirect', 'lvm', 'lvmthin', 'nfs', 'pbs', 'rbd', 'zfs', 'zfspool'] }),
        path: opt(str('Directory the storage lives in.', { format: 'pve-storage-path' })),
        export: opt(str('NFS export on the server.', { format: 'pve-storage-path' })),
        vgname: opt(str('LVM volume group.', { format: 'pve-storage-vgname' })),
        thinpool: opt(str('LVM thin pool.', { format: 'pve-storage-vgname' })),
        ...DEFINITION,
      },
      returns: obj({}, { additionalProperties: 1 }),
      permissions: ALLOCATE,
      protected: true,
      handler: (ctx) => {
        const id = reqStr(ctx, 'storage');
        if (state.storages.has(id)) throw fail(`storage ID '${id}' already defined`);
        const type = reqStr(ctx, 'type');
        if (!(TYPES as readonly string[]).includes(type)) throw fail(`storage type '${type}' is not available in this simulator (it knows ${TYPES.join(', ')})`);
        const kind = type as SimStorage['type'];
        if (kind === 'dir' && optStr(ctx, 'path') === undefined) throw paramError('path', 'a directory storage needs its path');
        const props: Record<string, string | number> = {};
        for (const k of PROPS) if (ctx.params[k] !== undefined) props[k] = ctx.params[k] as string | number;
        const nodes = nodeList(state, optStr(ctx, 'nodes'));
        state.storages.set(id, {
          storage: id,
          type: kind,
          content: contentList(optStr(ctx, 'content'), kind),
          shared: (flag(ctx, 'shared') ?? false) || kind === 'nfs' || kind === 'rbd',
          ...(nodes ? { nodes } : {}),
          total: NEW_STORAGE_BYTES,
          disabled: flag(ctx, 'disable') ?? false,
          props,
        });
        return { storage: id, type: kind };
      },
    },
    {
      method: 'PUT',
      path: '/storage/{storage}',
      description: 'Change a storage definition for the whole datacenter: the content it holds, the nodes that use it, or disable and enable it.',
      parameters: {
        storage: P.storage,
        ...DEFINITION,
        delete: opt(str('Definition keys to reset, comma-separated.', { format: 'pve-configid-list' })),
        digest: opt(str('Refuse unless the storage configuration still has this digest.')),
      },
      returns: obj({}, { additionalProperties: 1 }),
      permissions: ALLOCATE,
      protected: true,
      handler: (ctx) => {
        const id = reqStr(ctx, 'storage');
        const s = state.storages.get(id);
        if (!s) throw fail(`storage '${id}' does not exist`);
        const content = optStr(ctx, 'content');
        if (content !== undefined) s.content = contentList(content, s.type);
        const nodes = optStr(ctx, 'nodes');
        if (nodes !== undefined) {
          const n = nodeList(state, nodes);
          if (n) s.nodes = n;
          else delete s.nodes;
        }
        const disable = flag(ctx, 'disable');
        if (disable !== undefined) s.disabled = disable;
        const shared = flag(ctx, 'shared');
        if (shared !== undefined) s.shared = shared;
        for (const k of PROPS) if (ctx.params[k] !== undefined) s.props[k] = ctx.params[k] as string | number;
        for (const k of list(optStr(ctx, 'delete') ?? '')) {
          if (k === 'disable') s.disabled = false;
          else if (k === 'nodes') delete s.nodes;
          else delete s.props[k];
        }
        return { storage: id, type: s.type };
      },
    },
    {
      method: 'DELETE',
      path: '/storage/{storage}',
      description: 'Remove a storage definition from the datacenter configuration; the data on it stays, but nothing uses it any more.',
      parameters: { storage: P.storage },
      returns: NULL,
      permissions: ALLOCATE,
      protected: true,
      handler: (ctx) => {
        const id = reqStr(ctx, 'storage');
        if (!state.storages.delete(id)) throw fail(`storage '${id}' does not exist`);
        state.fullStorages.delete(id);
        for (const p of state.pools.values()) p.storages.delete(id);
        return null;
      },
    },
  ];
}
