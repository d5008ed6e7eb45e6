/**
 * A node's `startall`, `stopall`, `suspendall` and `migrateall`: one worker starts the per-guest
 * tasks itself, a few at a time, once the caller passed the check on `/` or on every listed guest
 * (the cluster-wide bulk actions are in bulk.ts).
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import type { SchemaNode } from '../../../schema/model.js';
import { type BulkPlan, byStartupOrder, startBulkTask, startupOf } from '../bulk.js';
import { fail, paramError } from '../errors.js';
import type { ClusterState } from '../state.js';
import { TaskFailure, type TaskRun } from '../tasks.js';
import type { Guest } from '../types.js';
import { checkNodeOp, filteredGuests, label, startStopList, subContext } from './bulk-shared.js';
import { runPowerAction } from './guest-power.js';
import { localDisks, startMigration, unavailableStorages } from './migrate.js';
import { list, optInt, optStr, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { bool, int, opt, P, str, UPID } from './schema.js';

export function nodeAllEndpoints(state: ClusterState): SimEndpoint[] {
  /** PVE's default for the node operations: the node's CPU threads minus one, 1 to 8. */
  const nodeWorkers = (ctx: SimRequestContext, node: string): number => optInt(ctx, 'max-workers') || Math.min(Math.max(1, state.node(node).maxcpu - 1), 8);
  const internal = (ctx: SimRequestContext, g: Guest, rest: string, params: Record<string, unknown>): SimRequestContext => subContext(ctx, g, `/nodes/{node}/${g.type}/{vmid}/${rest}`, params);
  const vmsOf = (ctx: SimRequestContext): string[] | undefined => {
    const text = optStr(ctx, 'vms');
    return text === undefined ? undefined : list(text);
  };
  const plainLine = (_g: Guest, error: unknown, run: TaskRun): boolean => {
    for (const line of (error instanceof Error ? error.message : String(error)).trimEnd().split('\n')) run.log(line);
    return false;
  };
  /** A verb's task: its worker runs `start` per guest, logs a guest that could not start as it is, and ends with the guests' own tasks unless the verb says more. */
  const bulkTask = (ctx: SimRequestContext, node: string, plan: Pick<BulkPlan, 'type' | 'groups' | 'maxWorkers' | 'start'> & Partial<Pick<BulkPlan, 'intro' | 'ended' | 'done'>>): string =>
    startBulkTask(state, { node, user: ctx.principal.authId, startFailed: plainLine, ended: () => false, done: () => {}, ...plan });
  /**
   * One of the node's verbs: the guests it may be limited to (`vms`), the check on `/` or on every
   * listed guest, a task answered with its UPID on the node.
   */
  const verb = (v: {
    path: string;
    description: string;
    parameters: Record<string, SchemaNode>;
    privs: string[];
    permissions: string;
    run: (ctx: SimRequestContext, node: string) => string;
  }): SimEndpoint => ({
    method: 'POST',
    path: `/nodes/{node}/${v.path}`,
    description: v.description,
    parameters: { node: P.node, ...v.parameters },
    returns: UPID,
    permissions: { user: 'all', description: v.permissions },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      checkNodeOp(ctx, optStr(ctx, 'vms'), v.privs);
      return v.run(ctx, pathNode(state, ctx));
    },
  });
  const VMS = opt(str('Only these guests.', { format: 'pve-vmid-list' }));
  const MAX_WORKERS = opt(int('How many guest tasks run at the same time (default: CPU threads minus one, at most 8).', { minimum: 1, maximum: 64 }));

  return [
    verb({
      path: 'startall',
      description: 'Start the guests of this node in startup order (task `startall`): by default those with onboot=1, with `force` all of them; HA-managed guests only when listed in `vms`.',
      parameters: { force: opt(bool("Also start guests whose 'onboot' is not set.", { default: 'off' })), vms: VMS, 'max-workers': MAX_WORKERS },
      privs: ['VM.PowerMgmt'],
      permissions: 'VM.PowerMgmt on / or on every guest listed in vms.',
      run: (ctx, node) => {
        const force = Number(ctx.params.force ?? 0) === 1;
        return bulkTask(ctx, node, {
          type: 'startall',
          groups: byStartupOrder(startStopList(state, node, vmsOf(ctx), !force), 1, 1),
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
          ended: (g, ok, exitstatus, run) => {
            if (!ok) run.log(`Starting ${label(g)} ${g.vmid} failed: ${exitstatus}`);
            return false;
          },
        });
      },
    }),
    verb({
      path: 'stopall',
      description: 'Shut down every running guest of this node in reverse startup order (task `stopall`); with `force-stop` (default) a guest that does not stop within `timeout` is powered off.',
      parameters: {
        vms: VMS,
        'force-stop': opt(bool('Power guests off when the clean shutdown times out.', { default: 1 })),
        timeout: opt(int('Seconds each guest gets to shut down.', { minimum: 0, maximum: 7200, default: 180 })),
        'max-workers': MAX_WORKERS,
      },
      privs: ['VM.PowerMgmt'],
      permissions: 'VM.PowerMgmt on / or on every guest listed in vms.',
      run: (ctx, node) => {
        const forceStop = ctx.params['force-stop'] === undefined ? 1 : Number(ctx.params['force-stop']) ? 1 : 0;
        const timeout = optInt(ctx, 'timeout');
        return bulkTask(ctx, node, {
          type: 'stopall',
          groups: byStartupOrder(startStopList(state, node, vmsOf(ctx), false), -1, -1),
          maxWorkers: nodeWorkers(ctx, node),
          start: (g, run) => {
            if (g.status !== 'running') return undefined;
            const t = startupOf(g).down ?? timeout ?? 180;
            run.log(`Stopping ${label(g)} ${g.vmid} (timeout = ${t} seconds)`);
            return runPowerAction(state, g, 'shutdown', internal(ctx, g, 'status/shutdown', { timeout: t, forceStop }));
          },
        });
      },
    }),
    verb({
      path: 'suspendall',
      description: 'Suspend every running VM of this node to disk (task `suspendall`); containers are skipped.',
      parameters: { vms: VMS, 'max-workers': MAX_WORKERS },
      privs: ['VM.PowerMgmt', 'VM.Config.Disk'],
      permissions: 'VM.PowerMgmt and VM.Config.Disk on /, or VM.PowerMgmt on every guest listed in vms; Datastore.AllocateSpace on the state storage.',
      run: (ctx, node) =>
        bulkTask(ctx, node, {
          type: 'suspendall',
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
        }),
    }),
    verb({
      path: 'migrateall',
      description:
        'Migrate the guests of this node (templates and HA-managed ones included) to another node (task `migrateall`); running VMs live, running containers in restart mode. VMs failing the migration precondition check are skipped.',
      parameters: {
        target: str('Node to move the guests to.', { format: 'pve-node' }),
        'max-workers': opt(int('How many migrations run at the same time; required unless the datacenter sets a default.', { minimum: 1, maximum: 64 })),
        maxworkers: opt(int('Older name of max-workers.', { minimum: 1, maximum: 64 })),
        vms: VMS,
        'with-local-disks': opt(bool('Copy VM disks on local storage to the target.')),
      },
      privs: ['VM.Migrate'],
      permissions: 'VM.Migrate on / or on every guest listed in vms.',
      run: (ctx, node) => {
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
        return bulkTask(ctx, node, {
          type: 'migrateall',
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
          done: (_failed, started, run) => {
            if (guests.length === 0) return;
            if (started <= 0) throw new TaskFailure('no migrations worker started...');
            run.log(`All jobs finished, used ${started} workers in total.`);
          },
        });
      },
    }),
  ];
}
