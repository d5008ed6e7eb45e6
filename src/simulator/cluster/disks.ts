/**
 * Allocation of guest volumes: `STORAGE:SIZE` in a config value (as in `scsi1: local-lvm:10`)
 * becomes a new volume named the way PVE names it on that storage type.
 */
import { fail } from './errors.js';
import { diskEntries, formatSize } from './guest-config.js';
import { assertSpace } from './space.js';
import type { ClusterState } from './state.js';
import type { Guest, GuestType, SimStorage } from './types.js';

const GiB = 1024 ** 3;
const NEW_VOLUME = /^([a-zA-Z][\w.-]*):(\d+(?:\.\d+)?)$/;

/** Storage that exists, is enabled on the node and holds the guest's disk content type. */
export function usableStorage(state: ClusterState, storage: string, node: string, type: GuestType): SimStorage {
  const s = state.storages.get(storage);
  if (!s || (s.nodes && !s.nodes.includes(node))) throw fail(`storage '${storage}' does not exist`);
  if (s.disabled) throw fail(`storage '${storage}' is disabled`);
  const content = type === 'qemu' ? 'images' : 'rootdir';
  if (!s.content.includes(content)) throw fail(`storage '${storage}' does not support content-type '${content}'`);
  return s;
}

/** Every disk name a guest already uses, live config and snapshots alike. */
export function usedDiskNumbers(g: Guest): Set<number> {
  const used = new Set<number>();
  const configs = [g.config, g.pending, ...g.snapshots.map((s) => s.config)];
  for (const c of configs) {
    for (const d of diskEntries(g.type, c)) {
      const m = /-disk-(\d+)/.exec(d.volid);
      if (m) used.add(Number(m[1]));
    }
  }
  return used;
}

export function volumeName(s: SimStorage, vmid: number, n: number, type: GuestType): string {
  const file = s.type === 'dir' || s.type === 'nfs';
  if (!file) return `${s.storage}:vm-${vmid}-disk-${n}`;
  return `${s.storage}:${vmid}/vm-${vmid}-disk-${n}.${type === 'qemu' ? 'qcow2' : 'raw'}`;
}

/**
 * Turns `STORAGE:SIZE[,opts]` into `VOLID[,opts],size=…` on the guest's node; any other value
 * (an existing volume, a CD-ROM, `none`) is returned unchanged.
 */
export function allocateIfNew(state: ClusterState, g: Guest, value: string, reserved: Set<number> = usedDiskNumbers(g)): string {
  const [first = '', ...opts] = value.split(',');
  const keyed = first.includes('=') ? first.split('=') : undefined;
  const spec = keyed ? (keyed[1] ?? '') : first;
  const m = NEW_VOLUME.exec(spec);
  if (!m) return value;
  const s = usableStorage(state, m[1] as string, g.node, g.type);
  let n = 0;
  while (reserved.has(n)) n++;
  reserved.add(n);
  const volid = volumeName(s, g.vmid, n, g.type);
  assertSpace(state, s, volid, g.vmid);
  const rest = opts.filter((o) => !o.startsWith('size='));
  return [volid, ...rest, `size=${formatSize(Math.round(Number(m[2]) * GiB))}`].join(',');
}
