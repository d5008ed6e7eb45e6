/**
 * Whether a guest can be snapshotted with the disks it has: every disk must sit where the
 * storage can snapshot it. Thin LVM, Ceph RBD and ZFS snapshot their volumes; a directory or NFS
 * storage only snapshots qcow2 files, so a raw (or vmdk) file there rules the snapshot out. The
 * guest's `/feature` read and its snapshot task both ask here, so they never disagree.
 */
import { diskEntries } from './guest-config.js';
import type { ClusterState } from './state.js';
import type { Guest } from './types.js';

/** The first disk that rules a snapshot out (`scsi1` on `nas:100/vm-100-disk-1.raw`), or undefined. */
export function snapshotBlocker(state: ClusterState, g: Guest): { key: string; volid: string } | undefined {
  for (const d of diskEntries(g.type, g.config)) {
    const s = state.storages.get(d.storage);
    if (!s) return { key: d.key, volid: d.volid };
    if (s.type === 'lvmthin' || s.type === 'rbd' || s.type === 'zfspool') continue;
    const ext = /\.(raw|qcow2|vmdk)$/.exec(d.volid)?.[1] ?? 'qcow2';
    if (ext !== 'qcow2') return { key: d.key, volid: d.volid };
  }
  return undefined;
}
