/**
 * Creating and destroying guests (cloning, templates and resizing are in guest-disk-ops.ts). Checks PVE makes
 * before forking its worker answer with a 500; the work itself is a task. New guests exist
 * (locked `create` or `clone`) from the moment the request returns, as on a real node.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint } from '../../contract.js';
import { allocateIfNew } from '../disks.js';
import { fail, permissionDenied } from '../errors.js';
import { diskEntries, isDiskKey } from '../guest-config.js';
import { assertUnlocked, liveGuest, powerOn } from '../guest-ops.js';
import { guestOptions, storedValue } from '../guest-options.js';
import { macAddress, uuid } from '../ids.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestConfig, GuestType } from '../types.js';
import { haSid } from '../views.js';
import { guestTask, serialGuestTask } from './guest-tasks.js';
import { flag, optStr, reqInt, reqStr, rootOnly } from './params.js';
import { pathGuest, pathNode } from './path-targets.js';
import { startRestore } from './restore.js';
import { bool, int, num, opt, P, perm, str, UPID } from './schema.js';

export const T = {
  qemu: { create: 'qmcreate', destroy: 'qmdestroy', clone: 'qmclone', template: 'qmtemplate', label: 'VM', dir: 'qemu-server' },
  lxc: { create: 'vzcreate', destroy: 'vzdestroy', clone: 'vzclone', template: 'vztemplate', label: 'CT', dir: 'lxc' },
} as const;

export function newGuest(vmid: number, type: GuestType, node: string, config: GuestConfig): Guest {
  return { vmid, type, node, config, pending: {}, pendingDelete: new Set(), status: 'stopped', paused: false, startedAt: 0, pid: 0, snapshots: [] };
}

function assertVmidFree(state: ClusterState, vmid: number): void {
  state.tasks.settle();
  const other = state.guests.get(vmid);
  if (other) throw fail(`unable to create VM ${vmid} - VM ${vmid} already exists on node '${other.node}'`);
}

export function assertPool(state: ClusterState, pool: string | undefined): void {
  if (pool !== undefined && !state.pools.has(pool)) throw fail(`pool '${pool}' does not exist`);
}

/** Gives every NIC a fresh MAC, as PVE does for clones and for NICs created without one. */
export function freshMacs(state: ClusterState, type: GuestType, config: GuestConfig): void {
  for (const [key, value] of Object.entries(config)) {
    if (!/^net\d+$/.test(key)) continue;
    const text = String(value);
    if (type === 'qemu') {
      const parts = text.split(',');
      const head = parts[0] ?? '';
      const [name = '', arg = ''] = head.split('=');
      // `virtio=MAC`, `model=virtio` or a bare `virtio`.
      const model = !head.includes('=') ? head : name === 'model' ? arg : name;
      config[key] = [`${model}=${macAddress(state.rng)}`, ...parts.slice(1).filter((p) => !p.startsWith('macaddr='))].join(',');
    } else {
      config[key] = [...text.split(',').filter((p) => !p.startsWith('hwaddr=')), `hwaddr=${macAddress(state.rng)}`].join(',');
    }
  }
}

/** Fresh MACs only for NICs given without one (on create). */
function freshMacsWhereMissing(state: ClusterState, type: GuestType, config: GuestConfig): void {
  const missing: GuestConfig = {};
  for (const [key, value] of Object.entries(config)) {
    if (/^net\d+$/.test(key) && !/(?:[0-9A-F]{2}:){5}[0-9A-F]{2}/i.test(String(value))) missing[key] = value;
  }
  freshMacs(state, type, missing);
  Object.assign(config, missing);
}

function createEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const options = guestOptions(type);
  const parameters: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    ...options,
    pool: opt(P.pool),
    storage: opt(str('Default storage for disks given as a size only.', { format: 'pve-storage-id' })),
    start: opt(bool('Start the guest once it is created.', { default: 0 })),
    'ha-managed': opt(bool('Put the new guest under HA management.', { default: 0 })),
  };
  parameters.force = opt(bool('With a backup archive: restore over the existing guest of this VMID, destroying its volumes.', type === 'qemu' ? { requires: 'archive' } : {}));
  parameters.unique = opt(bool('With a backup archive: give the restored guest new MAC addresses (and a VM a new SMBIOS UUID).', { requires: type === 'qemu' ? 'archive' : 'restore' }));
  if (type === 'qemu') {
    parameters.archive = opt(str('Backup archive (volume ID) to restore instead of creating an empty VM.', { maxLength: 255 }));
    parameters['live-restore'] = opt(bool('Start the VM at once and restore its data in the background (PBS archives).'));
    parameters.bwlimit = opt(int('Restore bandwidth limit in KiB/s.', { minimum: 0 }));
  } else {
    parameters.restore = opt(bool('The ostemplate is a backup archive to restore.'));
    parameters['ignore-unpack-errors'] = opt(bool('Ignore errors while extracting the archive.'));
    parameters.bwlimit = opt(num('Restore bandwidth limit in KiB/s.', { minimum: 0 }));
  }
  if (type === 'lxc') {
    parameters.ostemplate = str('Template archive (volume ID) to create the container from.', { maxLength: 255 });
    parameters.password = opt(str('Root password inside the container.'));
    parameters['ssh-public-keys'] = opt(str('Authorized SSH keys for root, one per line.'));
  }
  return {
    method: 'POST',
    path: `/nodes/{node}/${type}`,
    description:
      type === 'qemu'
        ? "Create a virtual machine (task). With `archive`, it restores one from a backup instead; disks given as STORAGE:SIZE are allocated; the guest is locked 'create' until done."
        : "Create a container from a template (task). With `restore`, it restores one from a backup instead; disks given as STORAGE:SIZE are allocated; the guest is locked 'create' until done.",
    parameters,
    returns: UPID,
    permissions: {
      user: 'all',
      description: 'Needs VM.Allocate on /vms/{vmid} or on the target pool, plus Datastore.AllocateSpace on the storages used.',
    },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      if (type === 'qemu' ? optStr(ctx, 'archive') !== undefined : flag(ctx, 'restore')) {
        const overrides: GuestConfig = {};
        for (const [k, v] of Object.entries(ctx.params)) if (k in options && v !== undefined) overrides[k] = storedValue(type, k, v);
        return startRestore(state, type, ctx, overrides);
      }
      const node = pathNode(state, ctx);
      const vmid = reqInt(ctx, 'vmid');
      const pool = optStr(ctx, 'pool');
      if (!ctx.hasPriv(`/vms/${vmid}`, 'VM.Allocate') && !(pool && ctx.hasPriv(`/pool/${pool}`, 'VM.Allocate'))) {
        throw permissionDenied(`/vms/${vmid}`, 'VM.Allocate');
      }
      assertVmidFree(state, vmid);
      assertPool(state, pool);
      const config: GuestConfig = {};
      for (const [k, v] of Object.entries(ctx.params)) if (k in options && v !== undefined) config[k] = storedValue(type, k, v);
      const g = newGuest(vmid, type, node, config);
      if (type === 'lxc') {
        const ostemplate = reqStr(ctx, 'ostemplate');
        if (!state.volumes.some((v) => v.volid === ostemplate && v.content === 'vztmpl' && (!v.node || v.node === node))) {
          throw fail(`volume '${ostemplate}' does not exist`);
        }
        config.hostname ??= `CT${vmid}`;
        config.arch ??= 'amd64';
        config.rootfs ??= `${optStr(ctx, 'storage') ?? 'local'}:4`;
      } else {
        config.smbios1 ??= `uuid=${uuid(state.rng)}`;
        config.vmgenid ??= uuid(state.rng);
        config.meta = `creation-qemu=9.2.0,ctime=${state.nowSec()}`;
      }
      // Disks are allocated up front so storage errors answer the request, as PVE's early checks do.
      const reserved = new Set<number>();
      for (const key of Object.keys(config)) {
        if (isDiskKey(type, key)) config[key] = allocateIfNew(state, g, String(config[key]), reserved);
      }
      freshMacsWhereMissing(state, type, config);
      config.lock = 'create';
      state.guests.set(vmid, g);
      if (pool) state.setPool(g, pool);
      const start = flag(ctx, 'start') ?? false;
      const haManaged = flag(ctx, 'ha-managed') ?? false;
      return guestTask(state, g, ctx.principal.authId, T[type].create, {
        weight: 2,
        begin: (run) => {
          if (type === 'lxc') run.log(`extracting archive '${reqStr(ctx, 'ostemplate')}'`);
        },
        finish: (run) => {
          delete g.config.lock;
          if (haManaged) state.haResources.set(haSid(g), { sid: haSid(g), type: type === 'qemu' ? 'vm' : 'ct', state: 'started', max_restart: 1, max_relocate: 1, failback: 1 });
          if (start) powerOn(state, g);
          if (type === 'lxc') run.log(`Total bytes written: ${Math.floor(1.2 * 1024 ** 3)} (1.2GiB, 410MiB/s)`);
        },
        cleanup: () => {
          // A failed create leaves nothing behind.
          if (g.config.lock === 'create') state.removeGuest(g);
        },
      });
    },
  };
}

function destroyEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const t = T[type];
  const parameters: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    purge: opt(bool('Also remove the guest from backup jobs, HA and replication.', { ...(type === 'lxc' ? { default: 0 } : {}) })),
    'destroy-unreferenced-disks': opt(bool('Also remove disks on enabled storages that carry the VMID but are not in the config.', { ...(type === 'qemu' ? { default: 0 } : {}) })),
  };
  if (type === 'qemu') parameters.skiplock = P.skiplock;
  else parameters.force = opt(bool('Stop the container first if it is running.', { default: 0 }));
  return {
    method: 'DELETE',
    path: `/nodes/{node}/${type}/{vmid}`,
    description: `Destroy the ${type === 'qemu' ? 'VM' : 'container'} and all its volumes (task).`,
    parameters,
    returns: UPID,
    permissions: { check: perm('/vms/{vmid}', ['VM.Allocate']) },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      rootOnly(ctx, 'skiplock');
      const g = pathGuest(state, type, ctx);
      if (g.config.protection) throw fail(`can't remove ${t.label} ${g.vmid} - protection mode enabled`);
      const purge = flag(ctx, 'purge') ?? false;
      if (!purge && state.haResources.has(haSid(g))) {
        throw fail(`unable to remove ${t.label} ${g.vmid} - used in HA resources and purge parameter not set.`);
      }
      const skiplock = flag(ctx, 'skiplock') ?? false;
      const force = flag(ctx, 'force') ?? false;
      return serialGuestTask(state, g, ctx.principal.authId, t.destroy, {
        begin: () => {
          assertUnlocked(liveGuest(state, g), skiplock);
          if (g.status === 'running' && !force) {
            throw new TaskFailure(type === 'qemu' ? `VM ${g.vmid} is running - destroy failed` : `unable to destroy CT ${g.vmid} - container is running`);
          }
        },
        finish: (run) => {
          for (const d of diskEntries(type, g.config)) run.log(`Logical volume "${d.volid.split(':')[1] ?? d.volid}" successfully removed.`);
          state.removeGuest(g);
          if (purge) {
            for (const job of state.backupJobs.values()) {
              const ids = String(job.vmid ?? '')
                .split(',')
                .filter((id) => id !== '' && id !== String(g.vmid));
              if (job.vmid !== undefined) job.vmid = ids.join(',');
            }
          }
        },
      });
    },
  };
}

export function guestLifecycleEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  return [createEndpoint(state, type), destroyEndpoint(state, type)];
}
