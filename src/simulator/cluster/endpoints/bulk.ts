/**
 * Operations on many guests at once: the cluster-wide bulk actions
 * (`/cluster/bulk-action/guest/{start,shutdown,suspend,migrate}`); a node's `startall`,
 * `stopall`, `suspendall` and `migrateall` are in node-bulk.ts. Each answers with the UPID of one worker that starts
 * the per-guest tasks (`qmstart`, `vzshutdown`, `qmigrate`…) itself, a few at a time, and waits
 * for them; per-guest problems are lines in the worker's log.
 *
 * Bulk actions call the guests' own API operations in the caller's name (so each guest's
 * permission is checked again and HA-managed guests go through HA); the node operations call the
 * guest code directly once the caller passed the check on `/` or on every listed guest.
 */
import type { SimEndpoint } from '../../contract.js';
import { byStartupOrder, startBulkTask, startupOf } from '../bulk.js';
import { permissionDenied } from '../errors.js';
import type { ClusterState } from '../state.js';
import { TaskFailure, type TaskRun } from '../tasks.js';
import type { Guest } from '../types.js';
import { apiCall, BULK_PARAMS, checkGuests, clientError, filteredGuests, intro, label, maxWorkers, startStopList, subContext, vmsParam, workersParam } from './bulk-shared.js';
import { runPowerAction } from './guest-power.js';
import { startMigration } from './migrate.js';
import { optInt, optStr, reqStr } from './params.js';
import { arr, bool, int, obj, opt, str, UPID } from './schema.js';

export function bulkEndpoints(state: ClusterState): SimEndpoint[] {
  /** Bulk actions run on the node that answered the request. */
  const localNode = (): string => [...state.nodes.keys()][0] as string;
  const warnFailed =
    (verb: string) =>
    (g: Guest, ok: boolean, exitstatus: string, run: TaskRun): boolean => {
      if (!ok) run.warn(`${verb} ${label(g)} ${g.vmid} failed: ${exitstatus}`);
      return !ok;
    };
  const warnStart = (_g: Guest, error: unknown, run: TaskRun): boolean => {
    run.warn(clientError(error));
    return true;
  };
  const dieOnFailed =
    (text: string) =>
    (failed: number[]): void => {
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
    description: 'Shut guests down across the cluster in reverse startup order, a few at a time, in one worker task; with `force-stop` (default) a guest that does not stop in time is powered off.',
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
    description: 'Suspend running VMs across the cluster (in memory, or with `to-disk` to storage so the next start resumes them) in one worker task; containers are skipped.',
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
    description: 'Migrate guests (by default every guest, templates and HA-managed ones included) to one target node in one worker task, one migration at a time unless `max-workers` says otherwise.',
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
  ];
}
