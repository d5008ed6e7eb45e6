/**
 * Storages that have run out of space (the `full-storage` fault scenario). A full storage reports
 * every byte used on each node it is enabled on, and anything that allocates on it fails with the
 * error the storage backend gives PVE when there is no space left: lvcreate on a thin pool past its
 * threshold, qemu-img on a full file system, rbd and zfs out of space; a backup onto it fails with
 * the write error vzdump logs.
 */
import { PveHttpError } from '../contract.js';
import type { ClusterState } from './state.js';
import type { SimStorage } from './types.js';

/** Marks a storage full (or gives its space back). */
export function setStorageFull(state: ClusterState, storage: string, full = true): void {
  if (full) state.fullStorages.add(storage);
  else state.fullStorages.delete(storage);
}

export function isStorageFull(state: ClusterState, storage: string): boolean {
  return state.fullStorages.has(storage);
}

/** The backend's answer to allocating `volid` on a storage without space. */
export function noSpaceError(s: SimStorage, volid: string, vmid: number): PveHttpError {
  const name =
    volid
      .slice(volid.indexOf(':') + 1)
      .split('/')
      .pop() ?? volid;
  switch (s.type) {
    case 'lvmthin': {
      const vg = String(s.props.vgname ?? 'pve');
      const pool = String(s.props.thinpool ?? 'data');
      return new PveHttpError(500, `lvcreate '${vg}/${name}' error:   Cannot create new thin volume, free space in thin pool ${vg}/${pool} reached threshold.\n`);
    }
    case 'rbd':
      return new PveHttpError(500, `rbd create '${name}' error: rbd: create error: (28) No space left on device\n`);
    case 'zfspool':
      return new PveHttpError(500, `zfs error: cannot create '${String(s.props.pool ?? 'rpool')}/${name}': out of space\n`);
    default: {
      const path = `${String(s.props.path ?? `/mnt/pve/${s.storage}`)}/images/${vmid}/${name}`;
      return new PveHttpError(500, `unable to create image: qemu-img: ${path}: Could not create '${path}': No space left on device\n`);
    }
  }
}

/** Throws the backend's no-space error when the storage is full. */
export function assertSpace(state: ClusterState, s: SimStorage, volid: string, vmid: number): void {
  if (isStorageFull(state, s.storage)) throw noSpaceError(s, volid, vmid);
}

/** What vzdump logs for a guest whose archive cannot be written. */
export function backupNoSpaceReason(type: 'qemu' | 'lxc'): string {
  return type === 'qemu' ? 'vma_queue_write: write error - No space left on device' : "command 'tar' failed: exit code 2 - No space left on device";
}
