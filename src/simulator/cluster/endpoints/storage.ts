/**
 * Storage endpoints: the cluster's storage definitions, per-node storage status and content
 * (ISOs, templates, backups and the guest disks derived from guest configs), and volume
 * details, notes, protection, allocation and removal.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail, paramError, permissionDenied } from '../errors.js';
import { assertSpace } from '../space.js';
import { parseSize } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import type { SimStorage, StorageContent } from '../types.js';
import { flag, list, optInt, optStr, reqInt, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { arr, bool, int, num, NULL, obj, opt, P, perm, str, UPID } from './schema.js';
import { formatOf, volumePath, volumesOn, type VolumeView } from './storage-volumes.js';

type Json = Record<string, unknown>;

const AUDIT = { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) };

/** The `AUDIT` check made inside handlers (lists filter by it instead of failing). */
function mayAudit(ctx: SimRequestContext, storage: string): boolean {
  return ctx.hasPriv(`/storage/${storage}`, 'Datastore.Audit') || ctx.hasPriv(`/storage/${storage}`, 'Datastore.AllocateSpace');
}

/** Size and usage fields shared by the storage list and one storage's status. */
const STATUS_PROPS = {
  content: str('Content types it holds.', { format: 'pve-storage-content-list' }),
  shared: opt(bool('Same data on every node.')),
  active: opt(bool('Storage is reachable.')),
  enabled: opt(bool('Storage is enabled.')),
  total: opt(int('Size in bytes.')),
  used: opt(int('Bytes used.')),
  avail: opt(int('Bytes free.')),
};

export function storageEndpoints(state: ClusterState): SimEndpoint[] {
  /** The storage named in the path, enabled on the node in the path. */
  const nodeStorage = (ctx: SimRequestContext): { s: SimStorage; node: string } => {
    const node = pathNode(state, ctx);
    const id = reqStr(ctx, 'storage');
    const s = state.storageOn(id, node);
    if (!s) throw fail(`storage '${id}' does not exist`);
    return { s, node };
  };

  const statusOf = (s: SimStorage, node: string, used: Map<string, number>): Json => {
    const u = used.get(state.storageKey(s, node)) ?? 0;
    return {
      storage: s.storage,
      type: s.type,
      content: s.content.join(','),
      shared: s.shared ? 1 : 0,
      active: 1,
      enabled: 1,
      total: s.total,
      used: u,
      avail: Math.max(0, s.total - u),
      used_fraction: Math.round((u / s.total) * 1e6) / 1e6,
    };
  };

  /** Volume from `{volume}` (a full volid, or a name relative to `{storage}`). */
  const findVolume = (ctx: SimRequestContext): { s: SimStorage; node: string; v: VolumeView } => {
    const node = pathNode(state, ctx);
    let volume = reqStr(ctx, 'volume');
    const storageParam = optStr(ctx, 'storage');
    if (!volume.includes(':')) {
      if (!storageParam) throw paramError('volume', 'no storage specified');
      volume = `${storageParam}:${volume}`;
    }
    const sid = volume.slice(0, volume.indexOf(':'));
    const s = state.storageOn(sid, node);
    if (!s) throw fail(`storage '${sid}' does not exist`);
    const v = volumesOn(state, s, node).find((x) => x.volid === volume);
    if (!v) throw fail(`volume '${volume}' does not exist`);
    return { s, node, v };
  };

  const storageItem = obj({
    storage: str('Storage ID.', { format: 'pve-storage-id' }),
    type: str('Backend type (dir, lvmthin, nfs, rbd…).'),
    ...STATUS_PROPS,
    used_fraction: opt(num('Used share of the total.')),
  });

  return [
    {
      method: 'GET',
      path: '/storage',
      description: 'Storage definitions of the cluster (datacenter storage configuration). Each carries its type, the content it holds, the nodes that use it and whether it is disabled.',
      parameters: {
        type: opt(str('Only storages of this backend type.', { enum: ['btrfs', 'cephfs', 'cifs', 'dir', 'esxi', 'iscsi', 'iscsidirect', 'lvm', 'lvmthin', 'nfs', 'pbs', 'rbd', 'zfs', 'zfspool'] })),
      },
      returns: arr(obj({ storage: str('Storage ID.') }, { additionalProperties: 1 }), { links: [{ rel: 'child', href: '{storage}' }] }),
      permissions: { user: 'all', description: 'Lists storages the caller may audit or allocate on.' },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        const storageDigest = createHash('sha1')
          .update(JSON.stringify([...state.storages.values()]))
          .digest('hex');
        return [...state.storages.values()]
          .filter((s) => (type === undefined || s.type === type) && mayAudit(ctx, s.storage))
          .map((s) => ({
            storage: s.storage,
            type: s.type,
            content: s.content.join(','),
            ...s.props,
            ...(s.shared ? { shared: 1 } : {}),
            ...(s.nodes ? { nodes: s.nodes.join(',') } : {}),
            ...(s.disabled ? { disable: 1 } : {}),
            digest: storageDigest,
          }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage',
      description: 'Storages usable on a node with their size and usage.',
      parameters: {
        node: P.node,
        storage: opt(str('Only this storage.', { format: 'pve-storage-id' })),
        content: opt(str('Only storages that hold one of these content types.', { format: 'pve-storage-content-list' })),
        enabled: opt(bool('Only enabled storages.', { default: 0 })),
        format: opt(bool('Include the supported image formats.', { default: 0 })),
        target: opt(str('Only storages also available on this node.', { format: 'pve-node' })),
      },
      returns: arr(storageItem, { links: [{ rel: 'child', href: '{storage}' }] }),
      permissions: { user: 'all', description: 'Only storages with Datastore.Audit or Datastore.AllocateSpace are listed.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const node = pathNode(state, ctx);
        const only = optStr(ctx, 'storage');
        const content = list(ctx.params.content);
        const target = optStr(ctx, 'target');
        const withFormats = flag(ctx, 'format') ?? false;
        const used = state.storageUsage();
        return [...state.storages.values()]
          .filter((s) => state.storageOn(s.storage, node))
          .filter((s) => only === undefined || s.storage === only)
          .filter((s) => content.length === 0 || content.some((c) => s.content.includes(c as StorageContent)))
          .filter((s) => target === undefined || state.storageOn(s.storage, target))
          .filter((s) => mayAudit(ctx, s.storage))
          .map((s) => {
            const item = statusOf(s, node, used);
            if (withFormats) {
              const file = s.type === 'dir' || s.type === 'nfs';
              item.formats = { default: file ? 'qcow2' : 'raw', supported: file ? ['qcow2', 'raw', 'vmdk'] : ['raw'] };
            }
            return item;
          });
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}',
      description: 'Sub-paths of a storage on a node (directory index).',
      parameters: { node: P.node, storage: P.storage },
      returns: arr(obj({ subdir: str('Sub-path name.') }), { links: [{ rel: 'child', href: '{subdir}' }] }),
      permissions: AUDIT,
      handler: (ctx) => {
        nodeStorage(ctx);
        return ['content', 'status'].map((subdir) => ({ subdir }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/status',
      description: 'Size and usage of one storage on a node.',
      parameters: { node: P.node, storage: P.storage },
      returns: obj({ type: str('Backend type.'), ...STATUS_PROPS }),
      permissions: AUDIT,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, node } = nodeStorage(ctx);
        const status = statusOf(s, node, state.storageUsage());
        delete status.storage;
        delete status.used_fraction;
        return status;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/content',
      description: 'Volumes on a storage: ISO images, container templates, backups and guest disks.',
      parameters: {
        node: P.node,
        storage: P.storage,
        content: opt(str('Only this content type.', { format: 'pve-storage-content' })),
        vmid: opt(int('Only volumes owned by this guest.', { format: 'pve-vmid', minimum: 100, maximum: 999999999 })),
      },
      returns: arr(
        obj({
          volid: str('Volume ID.'),
          format: str('Format (raw, qcow2, iso, tzst, vma.zst…).'),
          size: int('Size in bytes.'),
          ctime: opt(int('Creation time (epoch seconds).', { minimum: 0 })),
          vmid: opt(int('Owning guest.')),
          notes: opt(str('Notes (backups).')),
          protected: opt(bool('Protected from removal and pruning.')),
          parent: opt(str('Base image of a linked clone.')),
          used: opt(int('Bytes actually used.')),
        }),
        { links: [{ rel: 'child', href: '{volid}' }] },
      ),
      permissions: AUDIT,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, node } = nodeStorage(ctx);
        const content = optStr(ctx, 'content');
        const vmid = optInt(ctx, 'vmid');
        return volumesOn(state, s, node)
          .filter((v) => (content === undefined || v.content === content) && (vmid === undefined || v.vmid === vmid))
          .map(({ stored: _stored, ...v }) => v);
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/storage/{storage}/content',
      description: 'Allocate a new, empty disk image owned by a guest; returns its volume ID.',
      parameters: {
        node: P.node,
        storage: P.storage,
        vmid: int('Guest that will own the image.', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }),
        filename: str('Image name, e.g. vm-101-disk-3.'),
        size: str('Size, in KiB without suffix or with M/G.', { pattern: '\\d+[MG]?' }),
        format: opt(str('Image format.', { enum: ['raw', 'qcow2', 'subvol', 'vmdk'], requires: 'size' })),
      },
      returns: str('Volume ID of the new image.'),
      permissions: { check: perm('/storage/{storage}', ['Datastore.AllocateSpace']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, node } = nodeStorage(ctx);
        const vmid = reqInt(ctx, 'vmid');
        const filename = reqStr(ctx, 'filename');
        if (!new RegExp(`^(?:vm|base)-${vmid}-`).test(filename)) throw fail(`illegal name '${filename}' - should be 'vm-${vmid}-*'`);
        const sizeText = reqStr(ctx, 'size');
        const bytes = /^\d+$/.test(sizeText) ? Number(sizeText) * 1024 : (parseSize(sizeText) ?? 0);
        const file = s.type === 'dir' || s.type === 'nfs';
        const volid = file ? `${s.storage}:${vmid}/${filename}` : `${s.storage}:${filename}`;
        if (volumesOn(state, s, node).some((v) => v.volid === volid)) throw fail(`volume '${volid}' already exists`);
        assertSpace(state, s, volid, vmid);
        state.volumes.push({
          storage: s.storage,
          ...(s.shared ? {} : { node }),
          volid,
          content: 'images',
          format: optStr(ctx, 'format') ?? formatOf(s, volid),
          size: bytes,
          ctime: state.nowSec(),
          vmid,
        });
        return volid;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/content/{volume}',
      description: 'Details of one volume: path, size, format, notes.',
      parameters: { node: P.node, storage: P.storage, volume: str('Volume ID, or a name relative to the storage.') },
      returns: obj({
        path: str('Path or device on the node.'),
        size: int('Size in bytes.'),
        used: int('Bytes actually used.'),
        format: str('Volume format.'),
        notes: opt(str('Notes (backups).')),
        protected: opt(bool('Protected from removal.')),
      }),
      permissions: { user: 'all', description: 'Needs Datastore.Audit or Datastore.AllocateSpace on the storage.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, v } = findVolume(ctx);
        if (!mayAudit(ctx, s.storage)) throw permissionDenied(`/storage/${s.storage}`, 'Datastore.Audit');
        const out: Json = { path: volumePath(s, v.volid, v.vmid), size: v.size, used: v.content === 'images' || v.content === 'rootdir' ? Math.floor(v.size * 0.4) : v.size, format: v.format };
        if (v.notes !== undefined) out.notes = v.notes;
        if (v.protected) out.protected = 1;
        return out;
      },
    },
    {
      method: 'PUT',
      path: '/nodes/{node}/storage/{storage}/content/{volume}',
      description: 'Change the notes or protection flag of a backup or other stored volume; a protected backup is never pruned or removed.',
      parameters: {
        node: P.node,
        storage: P.storage,
        volume: str('Volume ID, or a name relative to the storage.'),
        notes: opt(str('New notes; empty removes them.')),
        protected: opt(bool('Protect the volume from removal and pruning.')),
      },
      returns: NULL,
      permissions: { user: 'all', description: 'Needs Datastore.Allocate on the storage, or Datastore.AllocateSpace for own guests.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, v } = findVolume(ctx);
        if (!ctx.hasPriv(`/storage/${s.storage}`, 'Datastore.Allocate') && !ctx.hasPriv(`/storage/${s.storage}`, 'Datastore.AllocateSpace')) {
          throw permissionDenied(`/storage/${s.storage}`, 'Datastore.Allocate');
        }
        if (!v.stored) throw fail('volume notes are not supported for guest disks');
        const notes = optStr(ctx, 'notes');
        if (notes !== undefined) {
          if (notes === '') delete v.stored.notes;
          else v.stored.notes = notes;
        }
        const prot = flag(ctx, 'protected');
        if (prot !== undefined) {
          if (prot) v.stored.protected = 1;
          else delete v.stored.protected;
        }
        return null;
      },
    },
    {
      method: 'DELETE',
      path: '/nodes/{node}/storage/{storage}/content/{volume}',
      description: 'Delete a volume from a storage, such as a backup file, an ISO image or an unused disk (task `imgdel`). Disks still referenced by a guest config and protected backups are refused.',
      parameters: {
        node: P.node,
        storage: P.storage,
        volume: str('Volume ID, or a name relative to the storage.'),
        delay: opt(int('Seconds to wait for the task before answering.', { minimum: 1, maximum: 30 })),
      },
      returns: opt(UPID),
      permissions: { user: 'all', description: 'Needs Datastore.Allocate on the storage (or VM.Allocate-style rights on an own guest volume).' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { s, node, v } = findVolume(ctx);
        if (!ctx.hasPriv(`/storage/${s.storage}`, 'Datastore.Allocate')) throw permissionDenied(`/storage/${s.storage}`, 'Datastore.Allocate');
        if (v.protected) throw fail(`volume '${v.volid}' is protected`);
        if (!v.stored && v.vmid !== undefined) throw fail(`unable to delete '${v.volid}' - volume is still in use by guest ${v.vmid}`);
        const stored = v.stored;
        return state.tasks.start({
          node,
          type: 'imgdel',
          id: '',
          user: ctx.principal.authId,
          finish: (run) => {
            const i = stored ? state.volumes.indexOf(stored) : -1;
            if (i >= 0) state.volumes.splice(i, 1);
            run.log(`Removed volume '${v.volid}'`);
          },
        });
      },
    },
  ];
}
