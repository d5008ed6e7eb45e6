/**
 * Migration of guests between nodes: the precondition check (GET) and the migration task
 * (`qmigrate`/`vzmigrate`, or `hamigrate` for HA-managed guests). Disks on shared storage stay
 * put; local disks need `with-local-disks` and are recreated under the same volume ID.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { diskEntries } from '../guest-config.js';
import { liveGuest, powerOff, powerOn } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestType } from '../types.js';
import { haSid } from '../views.js';
import { guestTask, lockingGuestTask } from './guest-tasks.js';
import { flag, optStr, reqStr } from './params.js';
import { pathGuest } from './path-targets.js';
import { arr, bool, int, num, obj, opt, P, perm, str, UPID } from './schema.js';

const MIGRATE = { check: perm('/vms/{vmid}', ['VM.Migrate']) };

export function localDisks(state: ClusterState, g: Guest): Array<{ volid: string; size: number; is_unused: number; cdrom: number }> {
  return diskEntries(g.type, g.config)
    .filter((d) => !state.storages.get(d.storage)?.shared)
    .map((d) => ({ volid: d.volid, size: d.size, is_unused: d.key.startsWith('unused') ? 1 : 0, cdrom: 0 }));
}

/** Nodes whose storage lacks one of the guest's volumes, with the missing storages. */
export function unavailableStorages(state: ClusterState, g: Guest): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of state.nodes.values()) {
    if (n.name === g.node) continue;
    const missing = [...new Set(diskEntries(g.type, g.config).map((d) => d.storage))].filter((s) => !state.storageOn(s, n.name));
    if (missing.length > 0) out.set(n.name, missing);
  }
  return out;
}

function checkTarget(state: ClusterState, g: Guest, target: string): void {
  if (target === g.node) throw fail('target is local node.');
  const node = state.nodes.get(target);
  if (!node) throw fail(`no such cluster node '${target}'`);
  if (!node.online) throw fail(`target node '${target}' is not online`);
}

export function migrateEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const base = `/nodes/{node}/${type}/{vmid}/migrate`;
  const guest = (ctx: SimRequestContext): Guest => pathGuest(state, type, ctx);
  const qemu = type === 'qemu';

  const precondition: SimEndpoint = {
    method: 'GET',
    path: base,
    description: 'Check whether and where the guest can migrate: allowed nodes, blocking local disks or resources.',
    parameters: { node: P.node, vmid: P.vmid, target: opt(str('Only evaluate this target node.', { format: 'pve-node' })) },
    returns: qemu
      ? obj({
          running: bool('The VM is running (an online migration would be needed).'),
          allowed_nodes: opt(arr(str('Node name.'))),
          not_allowed_nodes: opt(obj({ unavailable_storages: opt(arr(str('Storage ID.'))) }, { description: 'Per node: why it cannot take the VM.' })),
          local_disks: arr(obj({ volid: str('Volume ID.'), size: int('Bytes.'), is_unused: bool('Detached disk.'), cdrom: bool('CD-ROM image.') })),
          local_resources: arr(str('Host device tied to this node.')),
          'mapped-resources': arr(str('Mapped device.')),
          'mapped-resource-info': obj({}),
          'has-dbus-vmstate': bool('A D-Bus VM state helper is attached.'),
        })
      : obj({
          running: bool('The container is running (it would be restarted).'),
          'allowed-nodes': opt(arr(str('Node name.'))),
          'not-allowed-nodes': opt(obj({}, { description: 'Per node: why it cannot take the container.' })),
        }),
    permissions: MIGRATE,
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      const g = guest(ctx);
      const target = optStr(ctx, 'target');
      const blocked = unavailableStorages(state, g);
      const candidates = [...state.nodes.values()].filter((n) => n.name !== g.node && n.online && (target === undefined || n.name === target));
      const allowed = candidates.filter((n) => !blocked.has(n.name)).map((n) => n.name);
      const notAllowed: Record<string, unknown> = {};
      for (const n of candidates) {
        const missing = blocked.get(n.name);
        if (missing) notAllowed[n.name] = { unavailable_storages: missing };
      }
      const running = g.status === 'running' ? 1 : 0;
      if (!qemu) return { running, 'allowed-nodes': allowed, 'not-allowed-nodes': notAllowed };
      return {
        running,
        allowed_nodes: allowed,
        not_allowed_nodes: notAllowed,
        local_disks: localDisks(state, g),
        local_resources: [],
        'mapped-resources': [],
        'mapped-resource-info': {},
        'has-dbus-vmstate': 0,
      };
    },
  };

  const params: Record<string, SchemaNode> = qemu
    ? {
        node: P.node,
        vmid: P.vmid,
        target: str('Node to move the VM to.', { format: 'pve-node' }),
        online: opt(bool('Live-migrate a running VM.')),
        force: opt(bool('Allow migration with local devices (root only).')),
        'with-local-disks': opt(bool('Copy disks on local storage to the target.')),
        targetstorage: opt(str('Storage mapping for local disks (source:target pairs, or one storage for all).', { format: 'storage-pair-list' })),
        migration_type: opt(str('Whether migration traffic is tunnelled.', { enum: ['secure', 'insecure'] })),
        migration_network: opt(str('Network (CIDR) for migration traffic.', { format: 'CIDR' })),
        bwlimit: opt(int('Bandwidth limit in KiB/s.', { minimum: 0 })),
        'with-conntrack-state': opt(bool('Carry over the conntrack state (live migration).', { default: 0 })),
      }
    : {
        node: P.node,
        vmid: P.vmid,
        target: str('Node to move the container to.', { format: 'pve-node' }),
        online: opt(bool('Live migration (not possible for containers).')),
        restart: opt(bool('Stop a running container, move it, start it again.')),
        timeout: opt(int('Seconds to wait for the shutdown in restart mode.', { default: 180 })),
        'target-storage': opt(str('Storage mapping for local volumes.', { format: 'storage-pair-list' })),
        bwlimit: opt(num('Bandwidth limit in KiB/s.', { minimum: 0 })),
      };

  const migrate: SimEndpoint = {
    method: 'POST',
    path: base,
    description: 'Migrate the guest to another node (task), live with `online`; the guest is locked `migrate` meanwhile.',
    parameters: params,
    returns: UPID,
    permissions: MIGRATE,
    protected: true,
    proxyto: 'node',
    handler: (ctx) => startMigration(state, guest(ctx), ctx),
  };
  return [precondition, migrate];
}

/**
 * Starts the migration of a guest to `target` as `POST …/migrate` does (checks before the task
 * answer with a 500; HA-managed guests go through HA), for that endpoint and for bulk migrations.
 */
export function startMigration(state: ClusterState, g: Guest, ctx: SimRequestContext): string {
  const qemu = g.type === 'qemu';
  const target = reqStr(ctx, 'target');
  checkTarget(state, g, target);
  const running = g.status === 'running';
  const online = flag(ctx, 'online') ?? false;
  const restart = flag(ctx, 'restart') ?? false;
  if (qemu && running && !online) throw fail("can't migrate running VM without --online");
  if (!qemu && running && online) throw fail('lxc live migration is currently not implemented');
  if (!qemu && running && !restart) throw fail("CT is running - use 'restart' for restart mode");
  const label = qemu ? 'VM' : 'CT';
  const user = ctx.principal.authId;
  if (state.haResources.has(haSid(g))) {
    return guestTask(state, g, user, 'hamigrate', {
      begin: (run) => run.log(`Requesting HA migration for ${label} ${g.vmid} to node ${target}`),
      finish: () => moveGuest(state, liveGuest(state, g), target),
    });
  }
  const local = localDisks(state, g).filter((d) => !d.is_unused);
  const withLocal = (flag(ctx, 'with-local-disks') ?? false) || optStr(ctx, 'targetstorage') !== undefined || optStr(ctx, 'target-storage') !== undefined;
  const blocked = unavailableStorages(state, g).get(target);
  return lockingGuestTask(state, g, user, qemu ? 'qmigrate' : 'vzmigrate', {
    lock: 'migrate',
    weight: 3,
    check: (run) => {
      run.log(`starting migration of ${label} ${g.vmid} to node '${target}' (${state.node(target).ip})`);
      if (blocked) throw new TaskFailure(`storage '${blocked[0]}' is not available on node '${target}'`);
      if (qemu && running && local.length > 0 && !withLocal) {
        throw new TaskFailure(`can't live migrate attached local disks without with-local-disks option`);
      }
      for (const d of local) run.log(`found local disk '${d.volid}' (attached)`);
    },
    finish: (run) => {
      if (!qemu && running) powerOff(g);
      moveGuest(state, g, target);
      if (!qemu && running) powerOn(state, g);
      run.log(`migration finished successfully (duration 00:00:0${Math.min(9, 2 + local.length)})`);
    },
  });
}

function moveGuest(state: ClusterState, g: Guest, target: string): void {
  g.node = target;
  // A live-migrated VM runs in a new QEMU process on the target.
  if (g.status === 'running') {
    g.startedAt = state.now();
    g.pid = state.allocProcess(target).pid;
  }
}
