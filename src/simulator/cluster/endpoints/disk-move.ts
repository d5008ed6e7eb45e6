/**
 * Moving a guest disk to another storage (a task): a VM's disk may move while it runs, a
 * container's volume only while it is stopped. The copy gets a new volume ID on the target; the
 * source is destroyed with `delete`, otherwise it stays attached to the guest as the next free
 * `unusedN`. On a directory or NFS storage the copy's file format is `format` (qcow2 by default),
 * which decides whether the guest can be snapshotted there (snapshot-support.ts).
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail, locked } from '../errors.js';
import { diskEntries } from '../guest-config.js';
import { diskVolid, liveGuest } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestType, SimStorage } from '../types.js';
import { flag, optStr, reqStr } from './params.js';
import { pathGuest } from './path-targets.js';
import { bool, opt, P, perm, str, UPID } from './schema.js';
import { serialGuestTask } from './guest-tasks.js';

const range = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const QEMU_DISKS = [...range('ide', 4), ...range('scsi', 31), ...range('virtio', 16), ...range('sata', 6), 'efidisk0', 'tpmstate0', ...range('unused', 256)];
const LXC_VOLUMES = ['rootfs', ...range('mp', 256), ...range('unused', 256)];

/** The next `vm-<vmid>-disk-<n>` name free on the storage. */
function nextVolumeName(state: ClusterState, s: SimStorage, vmid: number, format: string): string {
  const used = new Set<string>();
  for (const g of state.allGuests()) for (const d of diskEntries(g.type, g.config)) if (d.storage === s.storage) used.add(d.volid);
  for (const v of state.volumes) if (v.storage === s.storage) used.add(v.volid);
  for (let n = 0; ; n++) {
    const file = s.type === 'dir' || s.type === 'nfs' ? `${vmid}/vm-${vmid}-disk-${n}.${format}` : `vm-${vmid}-disk-${n}`;
    if (!used.has(`${s.storage}:${file}`)) return `${s.storage}:${file}`;
  }
}

function moveEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const key = type === 'qemu' ? 'disk' : 'volume';
  const parameters = {
    node: P.node,
    vmid: P.vmid,
    [key]: str(type === 'qemu' ? 'The disk to move.' : 'The volume to move.', { enum: type === 'qemu' ? QEMU_DISKS : LXC_VOLUMES }),
    storage: opt(str('Storage to move it to.', { format: 'pve-storage-id' })),
    delete: opt(bool('Destroy the source once copied (default: keep it as an unused disk).')),
    digest: opt(str('Refuse unless the guest config still has this digest.')),
    ...(type === 'qemu' ? { format: opt(str('File format of the copy on a file-based storage.', { enum: ['raw', 'qcow2', 'vmdk'] })) } : {}),
  };
  return {
    method: 'POST',
    path: `/nodes/{node}/${type}/{vmid}/${type === 'qemu' ? 'move_disk' : 'move_volume'}`,
    description: type === 'qemu' ? 'Move a VM disk to another storage (task).' : "Move a container's root disk or a mount point volume to another storage (task); the container must be stopped.",
    parameters,
    returns: UPID,
    permissions: { check: perm('/vms/{vmid}', ['VM.Config.Disk']), description: 'Also needs space allocation on the target storage.' },
    protected: true,
    proxyto: 'node',
    handler: (ctx: SimRequestContext) => {
      const g = pathGuest(state, type, ctx);
      const which = reqStr(ctx, key);
      const target = optStr(ctx, 'storage');
      if (target === undefined) throw fail('moving to another guest is not simulated; give the target storage');
      if (g.config.lock !== undefined) throw locked(type, String(g.config.lock));
      const volid = diskVolid(g.config[which]);
      if (volid === undefined) throw fail(`disk '${which}' has no volume to move`);
      const s = state.storageOn(target, g.node);
      if (!s) throw fail(`storage '${target}' does not exist`);
      if (!s.content.includes(type === 'qemu' ? 'images' : 'rootdir')) throw fail(`storage '${target}' does not support ${type === 'qemu' ? 'vm images' : 'container directories'}`);
      if (volid.startsWith(`${target}:`)) throw fail(`unable to move disk '${which}' - it is already on storage '${target}'`);
      if (type === 'lxc' && g.status === 'running') throw fail('cannot move volumes of a running container');
      const format = type === 'qemu' ? (optStr(ctx, 'format') ?? 'qcow2') : 'raw';
      const destroy = flag(ctx, 'delete') ?? false;
      return serialGuestTask(state, g, ctx.principal.authId, type === 'qemu' ? 'qmmove' : 'move_volume', {
        finish: (run) => moveNow(state, liveGuest(state, g), which, volid, s, format, destroy, run.log.bind(run)),
      });
    },
  };
}

function moveNow(state: ClusterState, g: Guest, which: string, volid: string, s: SimStorage, format: string, destroy: boolean, log: (line: string) => void): void {
  const value = g.config[which];
  if (diskVolid(value) !== volid) throw new TaskFailure(`disk '${which}' changed while the move was queued`);
  const copy = nextVolumeName(state, s, g.vmid, format);
  g.config[which] = String(value).replace(volid, copy);
  log(`moved '${volid}' to '${copy}'`);
  if (destroy) return;
  let i = 0;
  while (`unused${i}` in g.config) i++;
  g.config[`unused${i}`] = volid;
}

export function diskMoveEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  return [moveEndpoint(state, type)];
}
