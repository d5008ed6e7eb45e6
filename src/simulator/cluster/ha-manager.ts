/**
 * The HA manager's reaction to a changed request state: shortly after a resource is added or its
 * state changes, the local resource manager of the guest's node starts or shuts the guest down
 * in a task of its own (`qmstart`/`vzstart`, `qmshutdown`/`vzshutdown`, run as root@pam), as the
 * CRM/LRM loop of pve-ha-manager does. `ignored` resources are left alone.
 */
import { liveGuest, powerOff, powerOn } from './guest-ops.js';
import type { ClusterState } from './state.js';
import type { Guest } from './types.js';

/** The manager's loop interval as the simulator runs it: one task duration (at least 1 ms). */
function delay(state: ClusterState): number {
  return Math.max(1, state.tasks.defaultDurationMs);
}

export function guestOfSid(state: ClusterState, sid: string): Guest | undefined {
  const m = /^(vm|ct):(\d+)$/.exec(sid);
  if (!m) return undefined;
  const g = state.guests.get(Number(m[2]));
  return g && (g.type === 'qemu') === (m[1] === 'vm') ? g : undefined;
}

/** Schedules the manager to bring the resource's guest to its requested state. */
export function haReconcile(state: ClusterState, sid: string): void {
  state.tasks.schedule(state.now() + delay(state), () => {
    const res = state.haResources.get(sid);
    const g = guestOfSid(state, sid);
    if (!res || !g || res.state === 'ignored') return;
    const wantRunning = res.state === 'started' || res.state === 'enabled';
    const running = g.status === 'running';
    if (wantRunning === running || !state.node(g.node).online) return;
    const qemu = g.type === 'qemu';
    const type = wantRunning ? (qemu ? 'qmstart' : 'vzstart') : qemu ? 'qmshutdown' : 'vzshutdown';
    state.tasks.start({
      node: g.node,
      type,
      id: String(g.vmid),
      user: 'root@pam',
      serialKey: `guest:${g.vmid}`,
      finish: () => {
        const live = liveGuest(state, g);
        if (wantRunning && live.status !== 'running') powerOn(state, live);
        if (!wantRunning && live.status === 'running') powerOff(live);
      },
    });
  });
}
