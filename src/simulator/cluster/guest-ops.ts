/**
 * State changes on guests that several endpoints share (power transitions, pending changes,
 * locks), so a start from the API, from HA or from a resume does the same thing.
 */
import { fail, lockedText } from './errors.js';
import { isDiskKey } from './guest-config.js';
import { TaskFailure } from './tasks.js';
import type { ClusterState } from './state.js';
import type { Guest } from './types.js';

/** Task-time lock check: a locked config fails the task unless `skiplock` was given. */
export function assertUnlocked(g: Guest, skiplock = false): void {
  const lock = g.config.lock;
  if (lock !== undefined && !skiplock) throw new TaskFailure(lockedText(g.type, String(lock)));
}

/** Re-reads the guest when a task begins: it may have been destroyed or moved meanwhile. */
export function liveGuest(state: ClusterState, g: Guest): Guest {
  const now = state.guests.get(g.vmid);
  if (now !== g) {
    const dir = g.type === 'qemu' ? 'qemu-server' : 'lxc';
    throw new TaskFailure(`Configuration file 'nodes/${g.node}/${dir}/${g.vmid}.conf' does not exist`);
  }
  return g;
}

/** The volume ID of a disk option value (`local-lvm:vm-101-disk-0,size=8G` → `local-lvm:vm-101-disk-0`), or undefined for CD-ROMs and `none`. */
export function diskVolid(value: string | number | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (/(?:^|,)media=cdrom(?:,|$)/.test(text)) return undefined;
  const first = text.split(',')[0] ?? '';
  const volid = first.includes('=') ? (first.split('=')[1] ?? '') : first;
  return volid.includes(':') && !volid.startsWith('/') ? volid : undefined;
}

/** Whether a snapshot of the guest still references the volume. */
function inSnapshots(g: Guest, volid: string): boolean {
  return g.snapshots.some((s) => Object.entries(s.config).some(([k, v]) => isDiskKey(g.type, k) && diskVolid(v) === volid));
}

/**
 * Removes one option from the live config as PVE does for disks: a removed VM disk or container
 * mount point stays as the next free `unusedN` (unless a snapshot still holds it), while deleting
 * an `unusedN` entry, or a VM disk with `force`, destroys the volume — refused while a snapshot
 * still uses it. The volume then disappears from its storage's content.
 */
export function removeOption(g: Guest, key: string, force: boolean): void {
  const value = g.config[key];
  const volid = isDiskKey(g.type, key) ? diskVolid(value) : undefined;
  if (volid === undefined) {
    delete g.config[key];
    return;
  }
  const destroy = key.startsWith('unused') || (force && g.type === 'qemu');
  if (destroy) {
    if (inSnapshots(g, volid)) throw fail(`unable to delete '${volid}' - volume is still in use (snapshot?)`);
    delete g.config[key];
    return;
  }
  delete g.config[key];
  if (inSnapshots(g, volid) || Object.entries(g.config).some(([k, v]) => isDiskKey(g.type, k) && diskVolid(v) === volid)) return;
  let i = 0;
  while (`unused${i}` in g.config) i++;
  g.config[`unused${i}`] = volid;
}

/** Pending changes take effect when the guest (re)starts; pending disk removals keep or destroy the volume as asked. */
export function applyPending(g: Guest): void {
  for (const key of g.pendingDelete) {
    try {
      removeOption(g, key, g.pendingForce?.has(key) ?? false);
    } catch {
      // PVE reports "unable to apply pending change" and keeps the option.
      continue;
    }
  }
  Object.assign(g.config, g.pending);
  g.pending = {};
  g.pendingDelete.clear();
  g.pendingForce?.clear();
}

export function powerOn(state: ClusterState, g: Guest): void {
  applyPending(g);
  // A start regenerates the cloud-init drive from the config.
  delete g.cloudinitGenerated;
  g.status = 'running';
  g.paused = false;
  g.startedAt = state.now();
  g.pid = state.allocProcess(g.node).pid;
}

export function powerOff(g: Guest): void {
  g.status = 'stopped';
  g.paused = false;
  g.pid = 0;
  g.startedAt = 0;
}

/** Takes a config lock for the duration of a task and gives back the release function. */
export function takeLock(g: Guest, lock: string): () => void {
  g.config.lock = lock;
  return () => {
    if (g.config.lock === lock) delete g.config.lock;
  };
}
