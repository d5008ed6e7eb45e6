/**
 * Power management for VMs and containers: start, stop, shutdown, reboot, suspend, resume and
 * reset. Each answers with a UPID at once; the checks PVE makes before forking a worker answer
 * with a 500 instead, the rest show up as the task's error (e.g. `VM 101 already running`).
 * HA-managed guests go through HA (`hastart`/`hastop` tasks) as on a real cluster.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail, paramError } from '../errors.js';
import { assertUnlocked, liveGuest, powerOff, powerOn } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import { TaskFailure, type TaskSpec } from '../tasks.js';
import type { Guest, GuestType } from '../types.js';
import { haSid } from '../views.js';
import { haReconcile } from '../ha-manager.js';
import { serialGuestTask } from './guest-tasks.js';
import { flag, optStr, rootOnly } from './params.js';
import { pathGuest } from './path-targets.js';
import { bool, int, opt, P, perm, str, SUBDIRS, UPID } from './schema.js';

const POWER = perm('/vms/{vmid}', ['VM.PowerMgmt']);

interface Target {
  g: Guest;
  node: string;
  vmid: number;
  user: string;
}

function target(state: ClusterState, type: GuestType, ctx: SimRequestContext): Target {
  const g = pathGuest(state, type, ctx);
  return { g, node: g.node, vmid: g.vmid, user: ctx.principal.authId };
}

function label(g: Guest): string {
  return g.type === 'qemu' ? 'VM' : 'CT';
}

function isRunning(g: Guest): boolean {
  return g.status === 'running';
}

/** Hooks of a task that powers the guest off once its config is unlocked (or `skiplock` is set). */
function powerOffHooks(state: ClusterState, t: Target, skiplock = false): Pick<TaskSpec, 'begin' | 'finish'> {
  return {
    begin: () => assertUnlocked(liveGuest(state, t.g), skiplock),
    finish: () => powerOff(liveGuest(state, t.g)),
  };
}

/** Start/stop requests for HA-managed guests change the HA request state; the manager does the rest. */
function haTask(state: ClusterState, t: Target, want: 'started' | 'stopped'): string {
  return serialGuestTask(state, t.g, t.user, want === 'started' ? 'hastart' : 'hastop', {
    begin: (run) => run.log(`Requesting HA ${want === 'started' ? 'start' : 'stop'} for ${label(t.g)} ${t.vmid}`),
    // The task only changes the request state; the HA manager starts or stops the guest shortly after.
    finish: () => {
      const g = liveGuest(state, t.g);
      const res = state.haResources.get(haSid(g));
      if (res) res.state = want;
      haReconcile(state, haSid(g));
    },
  });
}

function haManaged(state: ClusterState, g: Guest): boolean {
  return state.haResources.has(haSid(g));
}

interface PowerOpDef {
  action: string;
  description: string;
  params: Record<string, SchemaNode>;
  run(state: ClusterState, t: Target, ctx: SimRequestContext): string;
}

const qemuOps: PowerOpDef[] = [
  {
    action: 'start',
    description: 'Power on a virtual machine. Pending configuration changes are applied first.',
    params: {
      skiplock: P.skiplock,
      timeout: opt(int('Seconds to wait for the VM to come up.', { minimum: 0 })),
      migratedfrom: opt(str('Node the VM is being migrated from (internal use).', { format: 'pve-node' })),
      migration_type: opt(str('Whether migration traffic is tunnelled.', { enum: ['secure', 'insecure'] })),
      migration_network: opt(str('Network (CIDR) to use for migration traffic.', { format: 'CIDR' })),
      stateuri: opt(str('Where to load saved VM state from (internal use).', { maxLength: 128 })),
      'force-cpu': opt(str('Replace the QEMU -cpu argument (root only).')),
    },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock', 'migratedfrom', 'migration_type', 'migration_network', 'stateuri', 'force-cpu');
      if (haManaged(state, t.g)) return haTask(state, t, 'started');
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, 'qmstart', {
        begin: () => {
          const g = liveGuest(state, t.g);
          if (g.config.template) throw new TaskFailure("you can't start a vm if it's a template");
          // A VM suspended to disk carries the `suspended` lock; starting it resumes from that state.
          if (g.config.lock !== 'suspended') assertUnlocked(g, skiplock);
          if (isRunning(g)) throw new TaskFailure(`VM ${g.vmid} already running`);
        },
        finish: () => {
          const g = liveGuest(state, t.g);
          if (g.config.lock === 'suspended') delete g.config.lock;
          powerOn(state, g);
        },
      });
    },
  },
  {
    action: 'stop',
    description: 'Power a virtual machine off at once, like pulling the plug, even when it hangs; the guest OS gets no chance to shut down.',
    params: {
      skiplock: P.skiplock,
      timeout: P.timeout,
      keepActive: opt(bool('Leave the storage volumes activated (root only).', { default: 0 })),
      migratedfrom: opt(str('Node the VM is being migrated from (internal use).', { format: 'pve-node' })),
      'overrule-shutdown': opt(bool('Abort running shutdown tasks of this VM first.', { default: 0 })),
    },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock', 'keepActive', 'migratedfrom');
      if (haManaged(state, t.g) && optStr(ctx, 'migratedfrom') === undefined) return haTask(state, t, 'stopped');
      const skiplock = flag(ctx, 'skiplock') ?? false;
      if (flag(ctx, 'overrule-shutdown')) abortTasks(state, t.node, 'qmshutdown', t.vmid);
      return serialGuestTask(state, t.g, t.user, 'qmstop', powerOffHooks(state, t, skiplock));
    },
  },
  {
    action: 'shutdown',
    description: 'Ask the guest OS to shut down cleanly (ACPI power button); `forceStop` powers it off if it does not comply in time.',
    params: {
      skiplock: P.skiplock,
      timeout: P.timeout,
      forceStop: opt(bool('Power the VM off if the clean shutdown times out.', { default: 0 })),
      keepActive: opt(bool('Leave the storage volumes activated (root only).', { default: 0 })),
    },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock', 'keepActive');
      if (t.g.paused && !flag(ctx, 'forceStop')) throw fail('VM is paused - cannot shutdown');
      if (haManaged(state, t.g)) return haTask(state, t, 'stopped');
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, 'qmshutdown', powerOffHooks(state, t, skiplock));
    },
  },
  {
    action: 'reboot',
    description: 'Shut the VM down cleanly and start it again, applying pending changes.',
    params: { timeout: opt(int('Seconds to wait for the shutdown part.', { minimum: 0 })) },
    run(state, t) {
      if (t.g.paused) throw fail('VM is paused - cannot shutdown');
      if (!isRunning(t.g)) throw fail(`VM ${t.vmid} not running`);
      return serialGuestTask(state, t.g, t.user, 'qmreboot', {
        begin: () => assertUnlocked(liveGuest(state, t.g)),
        finish: () => powerOn(state, liveGuest(state, t.g)),
      });
    },
  },
  {
    action: 'suspend',
    description: 'Suspend a running VM: pause it in memory, or with `todisk` hibernate it, saving its state to storage and stopping it.',
    params: {
      skiplock: P.skiplock,
      todisk: opt(bool('Save the VM state to disk and power off; the next start resumes it.', { default: 0 })),
      statestorage: opt(str('Storage for the saved state.', { format: 'pve-storage-id', requires: 'todisk' })),
    },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock');
      if (!isRunning(t.g)) throw fail(`VM ${t.vmid} not running`);
      const todisk = flag(ctx, 'todisk') ?? false;
      if (todisk && haManaged(state, t.g)) throw fail('Cannot suspend HA managed VM to disk');
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, todisk ? 'qmsuspend' : 'qmpause', {
        begin: () => assertUnlocked(liveGuest(state, t.g), skiplock),
        finish: () => {
          const g = liveGuest(state, t.g);
          if (!todisk) {
            g.paused = true;
            return;
          }
          powerOff(g);
          g.config.lock = 'suspended';
        },
      });
    },
  },
  {
    action: 'resume',
    description: 'Continue a paused VM, or start one that was suspended to disk.',
    params: { skiplock: P.skiplock, nocheck: opt(bool('Skip the config location check (migration, internal use).')) },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock', 'nocheck');
      const onDisk = t.g.config.lock === 'suspended';
      if (!onDisk && !isRunning(t.g)) throw fail(`VM ${t.vmid} not running`);
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, 'qmresume', {
        begin: () => {
          const g = liveGuest(state, t.g);
          if (!onDisk) assertUnlocked(g, skiplock);
        },
        finish: () => {
          const g = liveGuest(state, t.g);
          if (g.config.lock === 'suspended') {
            delete g.config.lock;
            powerOn(state, g);
          } else {
            g.paused = false;
          }
        },
      });
    },
  },
  {
    action: 'reset',
    description: 'Hard-reset a running VM (like the reset button); the QEMU process keeps running.',
    params: { skiplock: P.skiplock },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock');
      if (!isRunning(t.g)) throw fail(`VM ${t.vmid} not running`);
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, 'qmreset', {
        begin: () => assertUnlocked(liveGuest(state, t.g), skiplock),
      });
    },
  },
];

const lxcOps: PowerOpDef[] = [
  {
    action: 'start',
    description: 'Start a container. Pending configuration changes are applied first.',
    params: { skiplock: P.skiplock, debug: opt(bool('Log verbosely while starting.', { default: 0 })) },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock');
      if (isRunning(t.g)) throw fail(`CT ${t.vmid} already running`);
      if (haManaged(state, t.g)) return haTask(state, t, 'started');
      const skiplock = flag(ctx, 'skiplock') ?? false;
      return serialGuestTask(state, t.g, t.user, 'vzstart', {
        begin: () => {
          const g = liveGuest(state, t.g);
          if (g.config.template) throw new TaskFailure("you can't start a CT if it's a template");
          if (g.config.lock !== 'mounted') assertUnlocked(g, skiplock);
        },
        finish: () => powerOn(state, liveGuest(state, t.g)),
      });
    },
  },
  {
    action: 'stop',
    description: 'Stop a container at once, killing all its processes.',
    params: {
      skiplock: P.skiplock,
      'overrule-shutdown': opt(bool('Abort running shutdown tasks of this container first.', { default: 0 })),
    },
    run(state, t, ctx) {
      rootOnly(ctx, 'skiplock');
      if (!isRunning(t.g)) throw fail(`CT ${t.vmid} not running`);
      if (haManaged(state, t.g)) {
        if (flag(ctx, 'overrule-shutdown')) throw paramError('overrule-shutdown', 'Not applicable for HA resources.');
        return haTask(state, t, 'stopped');
      }
      const skiplock = flag(ctx, 'skiplock') ?? false;
      if (flag(ctx, 'overrule-shutdown')) abortTasks(state, t.node, 'vzshutdown', t.vmid);
      return serialGuestTask(state, t.g, t.user, 'vzstop', {
        begin: () => {
          const g = liveGuest(state, t.g);
          if (g.config.lock !== 'mounted') assertUnlocked(g, skiplock);
        },
        finish: () => powerOff(liveGuest(state, t.g)),
      });
    },
  },
  {
    action: 'shutdown',
    description: 'Shut a container down cleanly; `forceStop` kills it if it does not stop in time.',
    params: {
      timeout: opt(int('Seconds to wait at most.', { minimum: 0, default: 60 })),
      forceStop: opt(bool('Kill the container if the clean shutdown times out.', { default: 0 })),
    },
    run(state, t) {
      if (!isRunning(t.g)) throw fail(`CT ${t.vmid} not running`);
      if (haManaged(state, t.g)) return haTask(state, t, 'stopped');
      return serialGuestTask(state, t.g, t.user, 'vzshutdown', powerOffHooks(state, t));
    },
  },
  {
    action: 'reboot',
    description: 'Shut a container down and start it again, applying pending changes.',
    params: { timeout: opt(int('Seconds to wait for the shutdown part.', { minimum: 0 })) },
    run(state, t) {
      // PVE's container code says "VM" here too.
      if (!isRunning(t.g)) throw fail(`VM ${t.vmid} not running`);
      return serialGuestTask(state, t.g, t.user, 'vzreboot', { finish: () => powerOn(state, liveGuest(state, t.g)) });
    },
  },
  {
    action: 'suspend',
    description: 'Checkpoint a running container to disk and stop it (experimental in PVE).',
    params: {},
    run(state, t) {
      if (!isRunning(t.g)) throw fail(`CT ${t.vmid} not running`);
      return serialGuestTask(state, t.g, t.user, 'vzsuspend', powerOffHooks(state, t));
    },
  },
  {
    action: 'resume',
    description: 'Restore a checkpointed container and let it run again.',
    params: {},
    run(state, t) {
      if (isRunning(t.g)) throw fail(`CT ${t.vmid} already running`);
      return serialGuestTask(state, t.g, t.user, 'vzresume', { finish: () => powerOn(state, liveGuest(state, t.g)) });
    },
  },
];

function abortTasks(state: ClusterState, node: string, type: string, vmid: number): void {
  for (const task of state.tasks.listNode(node)) {
    if (task.type === type && task.id === String(vmid) && task.state !== 'stopped') state.tasks.abort(task.upid);
  }
}

/**
 * Runs one power action on a guest as its API call would (same checks, same task, HA routing),
 * for callers that act on many guests at once (bulk actions, startall/stopall). `ctx` carries the
 * caller and the action's parameters.
 */
export function runPowerAction(state: ClusterState, g: Guest, action: string, ctx: SimRequestContext): string {
  const op = (g.type === 'qemu' ? qemuOps : lxcOps).find((o) => o.action === action);
  if (!op) throw fail(`unknown power action '${action}'`);
  return op.run(state, { g, node: g.node, vmid: g.vmid, user: ctx.principal.authId }, ctx);
}

export function guestPowerEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const base = `/nodes/{node}/${type}/{vmid}/status`;
  const ops = type === 'qemu' ? qemuOps : lxcOps;
  const endpoints: SimEndpoint[] = ops.map((op) => ({
    method: 'POST',
    path: `${base}/${op.action}`,
    description: op.description,
    parameters: { node: P.node, vmid: P.vmid, ...op.params },
    returns: UPID,
    permissions: { check: POWER },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => op.run(state, target(state, type, ctx), ctx),
  }));
  endpoints.push({
    method: 'GET',
    path: base,
    description: `Power operations available for this ${type === 'qemu' ? 'VM' : 'container'} (directory index).`,
    parameters: { node: P.node, vmid: P.vmid },
    returns: SUBDIRS,
    permissions: { user: 'all' },
    proxyto: 'node',
    handler: (ctx) => {
      target(state, type, ctx);
      return [{ subdir: 'current' }, ...ops.map((op) => ({ subdir: op.action }))];
    },
  });
  return endpoints;
}
