/**
 * Starting worker tasks on one guest in the caller's name, the way PVE's qemu-server and
 * pve-container do: on the guest's node, working on its VMID, optionally serialized or locked.
 */
import { assertUnlocked, liveGuest, takeLock } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import type { TaskRun, TaskSpec } from '../tasks.js';
import type { Guest } from '../types.js';

/** A guest task's hooks and options; node and object ID come from the guest. */
export type GuestTaskSpec = Omit<TaskSpec, 'node' | 'type' | 'id' | 'user'>;

/** Starts a task of `type` on the guest's node, working on the guest, for `user`. */
export function guestTask(state: ClusterState, g: Guest, user: string, type: string, spec: GuestTaskSpec): string {
  return state.tasks.start({ node: g.node, type, id: String(g.vmid), user, ...spec });
}

/** A guest task queued behind the guest's other power and config tasks (PVE serializes them through the config file lock). */
export function serialGuestTask(state: ClusterState, g: Guest, user: string, type: string, spec: Omit<GuestTaskSpec, 'serialKey'>): string {
  return guestTask(state, g, user, type, { serialKey: `guest:${g.vmid}`, ...spec });
}

export interface LockingTaskSpec {
  /** The config lock the task holds while it runs (`snapshot`, `migrate`…). */
  lock: string;
  /** Checks and log lines once the guest is known to exist unlocked; throw `TaskFailure` to fail the task. */
  check?(run: TaskRun): void;
  finish(run: TaskRun): void;
  weight?: number;
}

/**
 * A guest task that, when it begins, re-checks that the guest still exists and is unlocked, then
 * takes a config lock it releases at the end whatever the outcome.
 */
export function lockingGuestTask(state: ClusterState, g: Guest, user: string, type: string, spec: LockingTaskSpec): string {
  const { lock, check, ...rest } = spec;
  let release = (): void => {};
  return guestTask(state, g, user, type, {
    ...rest,
    begin: (run) => {
      liveGuest(state, g);
      assertUnlocked(g);
      check?.(run);
      release = takeLock(g, lock);
    },
    cleanup: () => release(),
  });
}
