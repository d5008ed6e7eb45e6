/**
 * Operations on many guests at once: the cluster-wide bulk actions
 * (`/cluster/bulk-action/guest/{start,shutdown,suspend,migrate}`) and a node's `startall`,
 * `stopall`, `suspendall` and `migrateall`. Each answers with the UPID of one worker that starts
 * the per-guest tasks (`qmstart`, `vzshutdown`, `qmigrate`…) itself, a few at a time, and waits
 * for them; per-guest problems are lines in the worker's log.
 *
 * Bulk actions call the guests' own API operations in the caller's name (so each guest's
 * permission is checked again and HA-managed guests go through HA); the node operations call the
 * guest code directly once the caller passed the check on `/` or on every listed guest.
 */
import type { SchemaNode } from '../../../schema/model.js';
import { PveHttpError, type SimEndpoint, type SimRequestContext } from '../../contract.js';
import { byStartupOrder, startBulkTask, startupOf } from '../bulk.js';
import { fail, paramError, permissionDenied } from '../errors.js';
import type { ClusterState } from '../state.js';
import { TaskFailure, type TaskRun } from '../tasks.js';
import type { Guest } from '../types.js';
import { haSid } from '../views.js';
import { runPowerAction } from './guest-power.js';
import { localDisks, startMigration, unavailableStorages } from './migrate.js';
import { list, optInt, optStr, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { arr, bool, int, obj, opt, P, str, UPID, VMID_RANGE } from './schema.js';

const label = (g: Guest): string => (g.type === 'qemu' ? 'VM' : 'CT');

/** The guest list a bulk operation works on: templates and HA-managed guests only where PVE includes them. */
function filteredGuests(
  state: ClusterState,
  sel: { node?: string; vms?: string[]; templates: boolean; haManaged: boolean },
): Guest[] {
  const allowed = sel.vms ? new Set(sel.vms.map(Number)) : undefined;
  return state.allGuests().filter((g) => {
    if (allowed && !allowed.has(g.vmid)) return false;
    if (sel.node !== undefined && g.node !== sel.node) return false;
    if (!sel.templates && g.config.template) return false;
    if (!sel.haManaged && state.haResources.has(haSid(g))) return false;
    return true;
  });
}

/**
 * The start/stop list: HA-managed guests only when specific VMIDs were asked for (PVE leaves a
 * plain "all guests" run to the HA manager), never templates; `autostart` keeps only onboot=1.
 */
function startStopList(state: ClusterState, node: string | undefined, vms: string[] | undefined, autostart: boolean): Guest[] {
  return filteredGuests(state, { ...(node !== undefined ? { node } : {}), ...(vms ? { vms } : {}), templates: false, haManaged: vms !== undefined }).filter(
    (g) => !autostart || Number(g.config.onboot ?? 0) === 1,
  );
}

/** A request context for one guest's operation, made in the bulk caller's name. */
function subContext(ctx: SimRequestContext, g: Guest, template: string, params: Record<string, unknown>): SimRequestContext {
  return {
    method: 'POST',
    template,
    params: { node: g.node, vmid: g.vmid, ...params },
    principal: ctx.principal,
    hasPriv: ctx.hasPriv,
    setTotal: () => {},
  };
}

/** What an API client reports for a failed call: the status line's reason, then per-parameter errors. */
function clientError(err: unknown): string {
  if (err instanceof PveHttpError) {
    const first = err.message.split('\n')[0] ?? '';
    const extra = Object.entries(err.errors ?? {}).map(([k, v]) => `${k}: ${v}`);
    return [first, ...extra].join('\n');
  }
  return err instanceof Error ? err.message.trimEnd() : String(err);
}

/** `check_guest_permissions`: each listed guest, or `/` when none is listed. */
function checkGuests(ctx: SimRequestContext, vms: string[] | undefined, privs: string[]): void {
  if (vms && vms.length > 0) {
    for (const id of vms) for (const p of privs) if (!ctx.hasPriv(`/vms/${id}`, p)) throw permissionDenied(`/vms/${id}`, p);
    return;
  }
  if (!privs.every((p) => ctx.hasPriv('/', p))) throw permissionDenied('/', privs.join(', '));
}

/** The node operations' check: everything on `/`, or else the first privilege on every listed guest. */
function checkNodeOp(ctx: SimRequestContext, vmsText: string | undefined, privs: string[]): void {
  if (privs.every((p) => ctx.hasPriv('/', p))) return;
  const vms = list(vmsText);
  const first = privs[0] as string;
  if (vms.length === 0) throw permissionDenied('/', privs.join(' && '));
  for (const id of vms) if (!ctx.hasPriv(`/vms/${id}`, first)) throw permissionDenied(`/vms/${id}`, first);
}

function vmsParam(ctx: SimRequestContext): string[] | undefined {
  const v = ctx.params.vms;
  if (v === undefined || v === null) return undefined;
  return (Array.isArray(v) ? v : [v]).map(String);
}

function intro(vms: string[] | undefined, prefix: string, suffix?: string): (run: TaskRun) => void {
  const tail = suffix ? ` ${suffix}` : '';
  return (run) => run.log(vms && vms.length > 0 ? `${prefix} guests${tail}: ${vms.join(', ')}` : `${prefix} all guests${tail}`);
}

/** `max-workers`, its alias, then a default (the simulated datacenter.cfg sets no max_workers). */
function maxWorkers(ctx: SimRequestContext, fallback: number): number {
  return optInt(ctx, 'max-workers') || optInt(ctx, 'maxworkers') || fallback;
}

/** Calls a guest's own API operation in the caller's name, as a bulk action's API client does. */
function apiCall(state: ClusterState, ctx: SimRequestContext, g: Guest, priv: string, run: () => string | undefined): string | undefined {
  state.guestAt(g.type, g.node, g.vmid);
  if (!state.node(g.node).online) throw new PveHttpError(595, `Connection refused\n`);
  if (!ctx.hasPriv(`/vms/${g.vmid}`, priv)) throw permissionDenied(`/vms/${g.vmid}`, priv);
  return run();
}

const BULK_PARAMS = {
  vms: opt(arr(int('Guest ID.', { ...VMID_RANGE }), { description: 'Only these guests (default: every guest of the cluster).' })),
};

const workersParam = (fallback: number): Record<string, SchemaNode> => ({
  'max-workers': opt(int('How many guest tasks run at the same time.', { minimum: 1, maximum: 64, default: fallback })),
  maxworkers: opt(int('Older name of max-workers.', { minimum: 1, maximum: 64, default: fallback })),
});

export function bulkEndpoints(state: ClusterState): SimEndpoint[] {
  /** Bulk actions run on the node that answered the request. */
  const localNode = (): string => [...state.nodes.keys()][0] as string;
  const warnFailed = (verb: string) => (g: Guest, ok: boolean, exitstatus: string, run: TaskRun): boolean => {
    if (!ok) run.warn(`${verb} ${label(g)} ${g.vmid} failed: ${exitstatus}`);
    return !ok;
  };
  const warnStart = (_g: Guest, error: unknown, run: TaskRun): boolean => {
    run.warn(clientError(error));
    return true;
  };
  const dieOnFailed = (text: string) => (failed: number[]): void => {
    if (failed.length > 0) throw new TaskFailure(`${text}${failed.join(', ')}`);
  };
  const guestPath = (g: Guest, rest: string): string => `/nodes/{node}/${g.type}/{vmid}/${rest}`;

  const bulkStart: SimEndpoint = {
    method: 'POST',
    path: '/cluster/bulk-action/guest/start',
    description:
      'Start (or resume, when paused) guests across the cluster in startup order, a few at a time, in one worker task. Without `vms` it covers every guest that is not a template and not HA-managed.',
    parameters: {
      ...BULK_PARAMS,
      timeout: opt(int('Start timeout in seconds handed to each VM start.')),
      ...workersParam(4),
    },
    returns: UPID,
    permissions: { user: 'all', description: 'VM.PowerMgmt on / or on every guest listed in vms.' },
    protected: true,
    handler: (ctx) => {
      const vms = vmsParam(ctx);
      checkGuests(ctx, vms, ['VM.PowerMgmt']);
      const timeout = optInt(ctx, 'timeout');
      return startBulkTask(state, {
        node: localNode(),
        type: 'bulk-start',
        user: ctx.principal.authId,
        groups: byStartupOrder(startStopList(state, undefined, vms?.length ? vms : undefined, false), 1, 1),
        maxWorkers: maxWorkers(ctx, 4),
        intro: intro(vms, 'Starting'),
        start: (g, run) =>
          apiCall(state, ctx, g, 'VM.PowerMgmt', () => {
            let action = 'start';
            if (g.status === 'running') {
              // Only VMs report a QMP status; a running container is "resumed".
              if (g.type === 'qemu' && !g.paused) {
                run.warn(`Skipping ${label(g)} ${g.vmid}, already running.`);
                return undefined;
              }
              action = 'resume';
            }
            const params = timeout !== undefined && action === 'start' && g.type === 'qemu' ? { timeout } : {};
            run.log(`Starting ${label(g)} ${g.vmid}`);
            return runPowerAction(state, g, action, subContext(ctx, g, guestPath(g, `status/${action}`), params));
          }),
        startFailed: warnStart,
        ended: warnFailed('Starting'),
        done: dieOnFailed('Some guests failed to start: '),
      });
    },
  };

  const bulkShutdown: SimEndpoint = {
    method: 'POST',
    path: '/cluster/bulk-action/guest/shutdown',
    description:
      'Shut guests down across the cluster in reverse startup order, a few at a time, in one worker task; with `force-stop` (default) a guest that does not stop in time is powered off.',
    parameters: {
      ...BULK_PARAMS,
      timeout: opt(int('Shutdown timeout in seconds for guests without a configured one.', { default: 180 })),
      'force-stop': opt(bool('Power guests off when the clean shutdown times out.', { default: 1 })),
      ...workersParam(4),
    },
    returns: UPID,
    permissions: { user: 'all', description: 'VM.PowerMgmt on / or on every guest listed in vms.' },
    protected: true,
    handler: (ctx) => {
      const vms = vmsParam(ctx);
      checkGuests(ctx, vms, ['VM.PowerMgmt']);
      const forceParam = ctx.params['force-stop'];
      const forceStop = forceParam === undefined ? 1 : Number(forceParam) ? 1 : 0;
      const timeout = optInt(ctx, 'timeout');
      return startBulkTask(state, {
        node: localNode(),
        type: 'bulk-shutdown',
        user: ctx.principal.authId,
        groups: byStartupOrder(startStopList(state, undefined, vms?.length ? vms : undefined, false), -1, 1),
        maxWorkers: maxWorkers(ctx, 4),
        intro: intro(vms, 'Shutting down'),
        start: (g, run) =>
          apiCall(state, ctx, g, 'VM.PowerMgmt', () => {
            if (g.status !== 'running') {
              run.warn(`Skipping ${label(g)} ${g.vmid}, not running.`);
              return undefined;
            }
            if (g.type === 'qemu' && g.paused && forceParam !== undefined && !forceStop) {
              run.warn(`Skipping ${label(g)} ${g.vmid}, resume paused VM before shutdown.`);
              return undefined;
            }
            const t = startupOf(g).down ?? timeout ?? 180;
            run.log(`Shutting down ${label(g)} ${g.vmid} (Timeout = ${t} seconds)`);
            return runPowerAction(state, g, 'shutdown', subContext(ctx, g, guestPath(g, 'status/shutdown'), { forceStop, timeout: t }));
          }),
        startFailed: warnStart,
        ended: warnFailed('Stopping'),
        done: dieOnFailed('Some guests failed to shutdown '),
      });
    },
  };

  const bulkSuspend: SimEndpoint = {
    method: 'POST',
    path: '/cluster/bulk-action/guest/suspend',
    description:
      'Suspend running VMs across the cluster (in memory, or with `to-disk` to storage so the next start resumes them) in one worker task; containers are skipped.',
    parameters: {
      ...BULK_PARAMS,
      'to-disk': opt(bool('Save each VM state to storage and stop it.', { default: 0 })),
      statestorage: opt(str('Storage for the saved states.', { format: 'pve-storage-id', requires: 'to-disk' })),
      ...workersParam(4),
    },
    returns: UPID,
    permissions: {
      user: 'all',
      description: 'VM.PowerMgmt on / or on every listed guest; with to-disk also VM.Config.Disk there and Datastore.AllocateSpace on the state storage.',
    },
    protected: true,
    handler: (ctx) => {
      const vms = vmsParam(ctx);
      checkGuests(ctx, vms, ['VM.PowerMgmt']);
      const toDisk = Number(ctx.params['to-disk'] ?? 0) ? 1 : 0;
      const statestorage = optStr(ctx, 'statestorage');
      if (toDisk) {
        checkGuests(ctx, vms, ['VM.Config.Disk']);
        if (statestorage !== undefined && !ctx.hasPriv(`/storage/${statestorage}`, 'Datastore.AllocateSpace')) {
          throw permissionDenied(`/storage/${statestorage}`, 'Datastore.AllocateSpace');
        }
      }
      return startBulkTask(state, {
        node: localNode(),
        type: 'bulk-suspend',
        user: ctx.principal.authId,
        groups: byStartupOrder(startStopList(state, undefined, vms?.length ? vms : undefined, false), -1, 1),
        maxWorkers: maxWorkers(ctx, 4),
        intro: intro(vms, 'Suspending'),
        start: (g, run) => {
          if (g.type !== 'qemu') {
            run.warn(`skipping ${g.vmid}, only VMs can be suspended`);
            return undefined;
          }
          return apiCall(state, ctx, g, 'VM.PowerMgmt', () => {
            if (g.status !== 'running') {
              run.warn(`Skipping VM ${g.vmid}, not running.`);
              return undefined;
            }
            run.log(`Suspending VM ${g.vmid}`);
            const params = { todisk: toDisk, ...(toDisk && statestorage !== undefined ? { statestorage } : {}) };
            return runPowerAction(state, g, 'suspend', subContext(ctx, g, guestPath(g, 'status/suspend'), params));
          });
        },
        startFailed: warnStart,
        ended: warnFailed('Stopping'),
        done: dieOnFailed('Some guests failed to suspend '),
      });
    },
  };

  const bulkMigrate: SimEndpoint = {
    method: 'POST',
    path: '/cluster/bulk-action/guest/migrate',
    description:
      'Migrate guests (by default every guest, templates and HA-managed ones included) to one target node in one worker task, one migration at a time unless `max-workers` says otherwise.',
    parameters: {
      ...BULK_PARAMS,
      target: str('Node to move the guests to.', { format: 'pve-node' }),
      online: opt(bool('Live-migrate running VMs; restart running containers.')),
      'with-local-disks': opt(bool('Copy VM disks on local storage to the target.')),
      ...workersParam(1),
    },
    returns: UPID,
    permissions: { user: 'all', description: 'VM.Migrate on / or on every guest listed in vms.' },
    protected: true,
    handler: (ctx) => {
      const vms = vmsParam(ctx);
      checkGuests(ctx, vms, ['VM.Migrate']);
      const target = reqStr(ctx, 'target');
      const online = ctx.params.online;
      const withLocal = ctx.params['with-local-disks'];
      const guests = filteredGuests(state, { ...(vms?.length ? { vms } : {}), templates: true, haManaged: true });
      return startBulkTask(state, {
        node: localNode(),
        type: 'bulk-migrate',
        user: ctx.principal.authId,
        groups: [guests],
        maxWorkers: maxWorkers(ctx, 1),
        intro: intro(vms, 'Migrating', `to ${target}`),
        start: (g, run) =>
          apiCall(state, ctx, g, 'VM.Migrate', () => {
            if (g.node === target) {
              run.warn(`${label(g)} ${g.vmid} already on ${g.node}, skipping.`);
              return undefined;
            }
            const params: Record<string, unknown> = { target };
            if (g.type === 'lxc' && online !== undefined) params.restart = online;
            if (g.type === 'qemu' && online !== undefined) params.online = online;
            if (g.type === 'qemu' && withLocal !== undefined) params['with-local-disks'] = withLocal;
            run.log(`Migrating ${label(g)} ${g.vmid}`);
            return startMigration(state, g, subContext(ctx, g, guestPath(g, 'migrate'), params));
          }),
        startFailed: warnStart,
        ended: warnFailed('Migrating'),
        done: dieOnFailed('Some guests failed to migrate '),
      });
    },
  };

  return [
    {
      method: 'GET',
      path: '/cluster/bulk-action',
      description: 'Kinds of bulk actions (directory index).',
      parameters: {},
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      handler: () => [{ name: 'guest' }],
    },
    {
      method: 'GET',
      path: '/cluster/bulk-action/guest',
      description: 'Bulk actions on guests (directory index).',
      parameters: {},
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      handler: () => [{ name: 'start' }, { name: 'shutdown' }, { name: 'migrate' }, { name: 'suspend' }],
    },
    bulkStart,
    bulkShutdown,
    bulkSuspend,
    bulkMigrate,
    ...nodeAllEndpoints(state),
  ];
}

function nodeAllEndpoints(state: ClusterState): SimEndpoint[] {
  /** PVE's default for the node operations: the node's CPU threads minus one, 1 to 8. */
  const nodeWorkers = (ctx: SimRequestContext, node: string): number =>
    optInt(ctx, 'max-workers') || Math.min(Math.max(1, state.node(node).maxcpu - 1), 8);
  const internal = (ctx: SimRequestContext, g: Guest, rest: string, params: Record<string, unknown>): SimRequestContext =>
    subContext(ctx, g, `/nodes/{node}/${g.type}/{vmid}/${rest}`, params);
  const vmsOf = (ctx: SimRequestContext): string[] | undefined => {
    const text = optStr(ctx, 'vms');
    return text === undefined ? undefined : list(text);
  };
  const plainLine = (_g: Guest, error: unknown, run: TaskRun): boolean => {
    for (const line of (error instanceof Error ? error.message : String(error)).trimEnd().split('\n')) run.log(line);
    return false;
  };

  return [
    {
      method: 'POST',
      path: '/nodes/{node}/startall',
      description:
        "Start the guests of this node in startup order (task `startall`): by default those with onboot=1, with `force` all of them; HA-managed guests only when listed in `vms`.",
      parameters: {
        node: P.node,
        force: opt(bool("Also start guests whose 'onboot' is not set.", { default: 'off' })),
        vms: opt(str('Only these guests.', { format: 'pve-vmid-list' })),
        'max-workers': opt(int('How many guest tasks run at the same time (default: CPU threads minus one, at most 8).', { minimum: 1, maximum: 64 })),
      },
      returns: UPID,
      permissions: { user: 'all', description: 'VM.PowerMgmt on / or on every guest listed in vms.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        checkNodeOp(ctx, optStr(ctx, 'vms'), ['VM.PowerMgmt']);
        const node = pathNode(state, ctx);
        const force = Number(ctx.params.force ?? 0) === 1;
        const vms = vmsOf(ctx);
        return startBulkTask(state, {
          node,
          type: 'startall',
          user: ctx.principal.authId,
          groups: byStartupOrder(startStopList(state, node, vms, !force), 1, 1),
          maxWorkers: nodeWorkers(ctx, node),
          intro: (run) => {
            // Leftover backup locks (from a crash) are cleared unless a backup is running here.
            const backupRunning = state.tasks.listNode(node).some((t) => t.type === 'vzdump' && t.state !== 'stopped');
            if (backupRunning) return;
            for (const g of state.guestsOn(node)) {
              if (g.config.lock !== 'backup') continue;
              delete g.config.lock;
              run.log(`removed left over backup lock from '${g.vmid}'!`);
            }
          },
          start: (g, run) => {
            if (g.status === 'running') return undefined;
            run.log(`Starting ${label(g)} ${g.vmid}`);
            return runPowerAction(state, g, 'start', internal(ctx, g, 'status/start', {}));
          },
          startFailed: plainLine,
          ended: (g, ok, exitstatus, run) => {
            if (!ok) run.log(`Starting ${label(g)} ${g.vmid} failed: ${exitstatus}`);
            return false;
          },
          done: () => {},
        });
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/stopall',
      description:
        'Shut down every running guest of this node in reverse startup order (task `stopall`); with `force-stop` (default) a guest that does not stop within `timeout` is powered off.',
      parameters: {
        node: P.node,
        vms: opt(str('Only these guests.', { format: 'pve-vmid-list' })),
        'force-stop': opt(bool('Power guests off when the clean shutdown times out.', { default: 1 })),
        timeout: opt(int('Seconds each guest gets to shut down.', { minimum: 0, maximum: 7200, default: 180 })),
        'max-workers': opt(int('How many guest tasks run at the same time (default: CPU threads minus one, at most 8).', { minimum: 1, maximum: 64 })),
      },
      returns: UPID,
      permissions: { user: 'all', description: 'VM.PowerMgmt on / or on every guest listed in vms.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        checkNodeOp(ctx, optStr(ctx, 'vms'), ['VM.PowerMgmt']);
        const node = pathNode(state, ctx);
        const vms = vmsOf(ctx);
        const forceStop = ctx.params['force-stop'] === undefined ? 1 : Number(ctx.params['force-stop']) ? 1 : 0;
        const timeout = optInt(ctx, 'timeout');
        return startBulkTask(state, {
          node,
          type: 'stopall',
          user: ctx.principal.authId,
          groups: byStartupOrder(startStopList(state, node, vms, false), -1, -1),
          maxWorkers: nodeWorkers(ctx, node),
          start: (g, run) => {
            if (g.status !== 'running') return undefined;
            const t = startupOf(g).down ?? timeout ?? 180;
            run.log(`Stopping ${label(g)} ${g.vmid} (timeout = ${t} seconds)`);
            return runPowerAction(state, g, 'shutdown', internal(ctx, g, 'status/shutdown', { timeout: t, forceStop }));
          },
          startFailed: plainLine,
          ended: () => false,
          done: () => {},
        });
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/suspendall',
      description: 'Suspend every running VM of this node to disk (task `suspendall`); containers are skipped.',
      parameters: {
        node: P.node,
        vms: opt(str('Only these guests.', { format: 'pve-vmid-list' })),
        'max-workers': opt(int('How many guest tasks run at the same time (default: CPU threads minus one, at most 8).', { minimum: 1, maximum: 64 })),
      },
      returns: UPID,
      permissions: {
        user: 'all',
        description: 'VM.PowerMgmt and VM.Config.Disk on /, or VM.PowerMgmt on every guest listed in vms; Datastore.AllocateSpace on the state storage.',
      },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        checkNodeOp(ctx, optStr(ctx, 'vms'), ['VM.PowerMgmt', 'VM.Config.Disk']);
        const node = pathNode(state, ctx);
        return startBulkTask(state, {
          node,
          type: 'suspendall',
          user: ctx.principal.authId,
          groups: byStartupOrder(startStopList(state, node, vmsOf(ctx), false), -1, -1),
          maxWorkers: nodeWorkers(ctx, node),
          start: (g, run) => {
            if (g.type !== 'qemu') {
              run.warn(`skipping ${g.vmid}, only VMs can be suspended`);
              return undefined;
            }
            if (g.status !== 'running') {
              run.log(`VM ${g.vmid} not running, skipping suspension`);
              return undefined;
            }
            run.log(`Suspending VM ${g.vmid}`);
            return runPowerAction(state, g, 'suspend', internal(ctx, g, 'status/suspend', { todisk: 1 }));
          },
          startFailed: plainLine,
          ended: () => false,
          done: () => {},
        });
      },
    },
    {
      method: 'POST',
      path: '/nodes/{node}/migrateall',
      description:
        'Migrate the guests of this node (templates and HA-managed ones included) to another node (task `migrateall`); running VMs live, running containers in restart mode. VMs failing the migration precondition check are skipped.',
      parameters: {
        node: P.node,
        target: str('Node to move the guests to.', { format: 'pve-node' }),
        'max-workers': opt(int('How many migrations run at the same time; required unless the datacenter sets a default.', { minimum: 1, maximum: 64 })),
        maxworkers: opt(int('Older name of max-workers.', { minimum: 1, maximum: 64 })),
        vms: opt(str('Only these guests.', { format: 'pve-vmid-list' })),
        'with-local-disks': opt(bool('Copy VM disks on local storage to the target.')),
      },
      returns: UPID,
      permissions: { user: 'all', description: 'VM.Migrate on / or on every guest listed in vms.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        checkNodeOp(ctx, optStr(ctx, 'vms'), ['VM.Migrate']);
        const node = pathNode(state, ctx);
        const target = reqStr(ctx, 'target');
        if (target === node) throw paramError('target', 'target is local node.');
        if (!state.nodes.has(target)) throw fail(`no such cluster node '${target}'`);
        const workers = optInt(ctx, 'max-workers') || optInt(ctx, 'maxworkers');
        if (!workers) throw fail("either 'max-workers' parameter or max_workers in datacenter.cfg must be set!");
        const withLocal = ctx.params['with-local-disks'];
        // PVE sorts the VMIDs as strings here.
        const guests = filteredGuests(state, { node, ...(vmsOf(ctx) ? { vms: vmsOf(ctx) as string[] } : {}), templates: true, haManaged: true }).sort((a, b) =>
          String(a.vmid).localeCompare(String(b.vmid)),
        );
        return startBulkTask(state, {
          node,
          type: 'migrateall',
          user: ctx.principal.authId,
          groups: [guests],
          maxWorkers: workers,
          intro: (run) => {
            if (guests.length === 0) run.log('no virtual guests matched, nothing to do..');
          },
          start: (g, run) => {
            const running = g.status === 'running' ? 1 : 0;
            if (g.type === 'lxc') {
              run.log(`Migrating CT ${g.vmid}`);
              return startMigration(state, g, internal(ctx, g, 'migrate', { target, restart: running }));
            }
            const problems: string[] = [];
            const local = localDisks(state, g);
            if (running && !Number(withLocal ?? 0) && local.length > 0) problems.push(`  Has local disks: ${local.map((d) => d.volid).join(', ')}`);
            const unavailable = unavailableStorages(state, g).get(target);
            if (unavailable) problems.push(`  Has unavailable storages: ${unavailable.join(', ')}`);
            if (problems.length > 0) {
              run.log(`Check VM ${g.vmid}: skip VM ${g.vmid} - precondition check failed:`);
              for (const p of problems) run.log(p);
              return undefined;
            }
            run.log(`Check VM ${g.vmid}: precondition check passed`);
            run.log(`Migrating VM ${g.vmid}`);
            const params: Record<string, unknown> = { target, online: running };
            if (withLocal !== undefined) params['with-local-disks'] = withLocal;
            return startMigration(state, g, internal(ctx, g, 'migrate', params));
          },
          startFailed: plainLine,
          ended: () => false,
          done: (_failed, started, run) => {
            if (guests.length === 0) return;
            if (started <= 0) throw new TaskFailure('no migrations worker started...');
            run.log(`All jobs finished, used ${started} workers in total.`);
          },
        });
      },
    },
  ];
}
