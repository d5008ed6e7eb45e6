/**
 * State changes on guests that several endpoints share (power transitions, pending changes,
 * locks), so a start from the API, from HA or from a resume does the same thing.
 */
import { lockedText } from './errors.js';
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

/** Pending changes take effect when the guest (re)starts. */
export function applyPending(g: Guest): void {
  Object.assign(g.config, g.pending);
  for (const key of g.pendingDelete) delete g.config[key];
  g.pending = {};
  g.pendingDelete.clear();
}

export function powerOn(state: ClusterState, g: Guest): void {
  applyPending(g);
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
