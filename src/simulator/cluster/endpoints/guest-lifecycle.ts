/**
 * Creating, cloning, converting to template, resizing and destroying guests. Checks PVE makes
 * before forking its worker answer with a 500; the work itself is a task. New guests exist
 * (locked `create` or `clone`) from the moment the request returns, as on a real node.
 */
import { copyGuestFirewall } from '../firewall.js';
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint } from '../../contract.js';
import { assertDigest } from '../config-update.js';
import { allocateIfNew, usableStorage, volumeName } from '../disks.js';
import { fail, locked, permissionDenied } from '../errors.js';
import { diskEntries, formatSize, isDiskKey, parseSize, snapshotableConfig, withDiskSize } from '../guest-config.js';
import { guestOptions, storedValue } from '../guest-options.js';
import { assertUnlocked, liveGuest, powerOn } from '../guest-ops.js';
import { macAddress, uuid } from '../ids.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestConfig, GuestType } from '../types.js';
import { haSid } from '../views.js';
import { guestTask, serialGuestTask } from './guest-tasks.js';
import { startRestore } from './restore.js';
import { flag, optStr, reqInt, reqStr, rootOnly } from './params.js';
import { pathGuest, pathNode } from './path-targets.js';
import { bool, int, NULL, num, opt, P, perm, str, UPID } from './schema.js';

const T = {
  qemu: { create: 'qmcreate', destroy: 'qmdestroy', clone: 'qmclone', template: 'qmtemplate', label: 'VM', dir: 'qemu-server' },
  lxc: { create: 'vzcreate', destroy: 'vzdestroy', clone: 'vzclone', template: 'vztemplate', label: 'CT', dir: 'lxc' },
} as const;

function newGuest(vmid: number, type: GuestType, node: string, config: GuestConfig): Guest {
  return { vmid, type, node, config, pending: {}, pendingDelete: new Set(), status: 'stopped', paused: false, startedAt: 0, pid: 0, snapshots: [] };
}

function assertVmidFree(state: ClusterState, vmid: number): void {
  state.tasks.settle();
  const other = state.guests.get(vmid);
  if (other) throw fail(`unable to create VM ${vmid} - VM ${vmid} already exists on node '${other.node}'`);
}

function assertPool(state: ClusterState, pool: string | undefined): void {
  if (pool !== undefined && !state.pools.has(pool)) throw fail(`pool '${pool}' does not exist`);
}

/** Gives every NIC a fresh MAC, as PVE does for clones and for NICs created without one. */
function freshMacs(state: ClusterState, type: GuestType, config: GuestConfig): void {
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
    description: `Create a ${type === 'qemu' ? 'virtual machine' : 'container'} (task). Disks given as STORAGE:SIZE are allocated; the guest is locked 'create' until done.`,
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
              const ids = String(job.vmid ?? '').split(',').filter((id) => id !== '' && id !== String(g.vmid));
              if (job.vmid !== undefined) job.vmid = ids.join(',');
            }
          }
        },
      });
    },
  };
}

function cloneEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const t = T[type];
  const parameters: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    newid: int('VMID of the copy.', { format: 'pve-vmid', minimum: 100, maximum: 999999999 }),
    description: opt(str('Notes for the copy.')),
    pool: opt(P.pool),
    snapname: opt(P.snapname),
    storage: opt(str('Target storage for a full clone.', { format: 'pve-storage-id' })),
    full: opt(bool('Copy all disks (always for non-templates; templates default to linked clones).')),
    target: opt(str('Node to create the copy on (needs shared storage).', { format: 'pve-node' })),
  };
  if (type === 'qemu') {
    parameters.name = opt(str('Name of the copy.', { format: 'dns-name' }));
    parameters.format = opt(str('Image format of a full clone on file storage.', { enum: ['raw', 'qcow2', 'vmdk'] }));
    parameters.bwlimit = opt(int('I/O bandwidth limit in KiB/s.', { minimum: 0 }));
  } else {
    parameters.hostname = opt(str('Hostname of the copy.', { format: 'dns-name' }));
    parameters.bwlimit = opt(num('I/O bandwidth limit in KiB/s.', { minimum: 0 }));
  }
  return {
    method: 'POST',
    path: `/nodes/{node}/${type}/{vmid}/clone`,
    description: `Copy a ${type === 'qemu' ? 'VM' : 'container'} or template to a new VMID (task). The copy is locked 'clone' until the task ends.`,
    parameters,
    returns: UPID,
    permissions: {
      check: ['and', perm('/vms/{vmid}', ['VM.Clone']), ['or', perm('/vms/{newid}', ['VM.Allocate']), perm('/pool/{pool}', ['VM.Allocate'], 'require_param', 'pool')]],
    },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      const src = pathGuest(state, type, ctx);
      const newid = reqInt(ctx, 'newid');
      const pool = optStr(ctx, 'pool');
      const targetNode = optStr(ctx, 'target') ?? src.node;
      const snapname = optStr(ctx, 'snapname');
      const storage = optStr(ctx, 'storage');
      assertPool(state, pool);
      state.node(targetNode);
      if (src.config.lock !== undefined) throw locked(type, String(src.config.lock));
      const snap = snapname === undefined ? undefined : src.snapshots.find((s) => s.name === snapname);
      if (snapname !== undefined && !snap) throw fail(`snapshot '${snapname}' does not exist`);
      const full = flag(ctx, 'full') ?? !src.config.template;
      if (storage !== undefined && !full) throw fail("parameter 'storage' not allowed for linked clones");
      if (!full && !src.config.template) throw fail('Linked clone feature is not supported for drive (not a template)');
      if (storage !== undefined) usableStorage(state, storage, targetNode, type);
      const sourceConfig = snapshotableConfig(snap ? snap.config : src.config);
      const disks = diskEntries(type, sourceConfig).filter((d) => !d.key.startsWith('unused'));
      if (targetNode !== src.node && disks.some((d) => !state.storages.get(storage ?? d.storage)?.shared)) {
        throw fail(`can't clone VM to node '${targetNode}' (VM uses local storage)`);
      }
      if (state.guests.has(newid)) throw fail(`unable to create VM ${newid}: config file already exists`);

      const config: GuestConfig = {};
      for (const [k, v] of Object.entries(sourceConfig)) if (!k.startsWith('unused') && k !== 'template') config[k] = v;
      freshMacs(state, type, config);
      if (type === 'qemu') {
        config.name = optStr(ctx, 'name') ?? `Copy-of-VM-${String(sourceConfig.name ?? src.vmid)}`;
        config.smbios1 = `uuid=${uuid(state.rng)}`;
        if (config.vmgenid !== undefined) config.vmgenid = uuid(state.rng);
      } else if (optStr(ctx, 'hostname') !== undefined) {
        config.hostname = reqStr(ctx, 'hostname');
      }
      const description = optStr(ctx, 'description');
      if (description !== undefined) config.description = description;
      config.lock = 'clone';
      const copy = newGuest(newid, type, targetNode, config);
      // The copy's volumes are named now (the target config lists them at once); data copying is the task.
      const reserved = new Set<number>();
      for (const d of disks) {
        const target = state.storages.get(storage ?? d.storage);
        if (!target) throw fail(`storage '${storage ?? d.storage}' does not exist`);
        let n = 0;
        while (reserved.has(n)) n++;
        reserved.add(n);
        const volid = full ? volumeName(target, newid, n, type) : `${d.volid}/vm-${newid}-disk-${n}`;
        const rest = String(sourceConfig[d.key]).split(',').slice(1);
        config[d.key] = [volid, ...rest].join(',');
      }
      state.guests.set(newid, copy);
      state.copyGuestIpsets(src.vmid, newid);
      copyGuestFirewall(state, src.vmid, newid);
      if (pool) state.setPool(copy, pool);
      return guestTask(state, src, ctx.principal.authId, t.clone, {
        weight: full ? 3 : 1,
        begin: (run) => {
          run.log(`create ${full ? 'full' : 'linked'} clone of drive(s) from ${t.label} ${src.vmid}`);
        },
        finish: (run) => {
          for (const d of disks) run.log(`transferred ${formatSize(d.size || 1024 ** 3)} of ${formatSize(d.size || 1024 ** 3)} (100.00%)`);
          delete copy.config.lock;
        },
        cleanup: () => {
          if (copy.config.lock === 'clone') state.removeGuest(copy);
        },
      });
    },
  };
}

function templateEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const t = T[type];
  const diskEnum = type === 'qemu' ? qemuDiskKeys() : undefined;
  return {
    method: 'POST',
    path: `/nodes/{node}/${type}/{vmid}/template`,
    description:
      type === 'qemu'
        ? 'Turn a stopped VM into a template: its disks become read-only base images (task).'
        : 'Turn a stopped container into a template (runs as a task; the request itself returns nothing).',
    parameters: {
      node: P.node,
      vmid: P.vmid,
      ...(diskEnum ? { disk: opt(str('Convert only this disk to a base image.', { enum: diskEnum })) } : {}),
    },
    returns: type === 'qemu' ? UPID : NULL,
    permissions: { check: perm('/vms/{vmid}', ['VM.Allocate']) },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      const g = pathGuest(state, type, ctx);
      if (g.config.template) throw fail(`you can't convert a template to a template`);
      if (g.status === 'running') throw fail(`you can't convert a ${type === 'qemu' ? 'VM' : 'CT'} to template if ${type === 'qemu' ? 'VM' : 'CT'} is running`);
      if (g.config.lock !== undefined) throw locked(type, String(g.config.lock));
      const onlyDisk = optStr(ctx, 'disk');
      const upid = serialGuestTask(state, g, ctx.principal.authId, t.template, {
        finish: () => {
          liveGuest(state, g);
          for (const d of diskEntries(type, g.config)) {
            if (onlyDisk !== undefined && d.key !== onlyDisk) continue;
            g.config[d.key] = String(g.config[d.key]).replace(`vm-${g.vmid}-disk-`, `base-${g.vmid}-disk-`);
          }
          g.config.template = 1;
        },
      });
      return type === 'qemu' ? upid : null;
    },
  };
}

function qemuDiskKeys(): string[] {
  const keys: string[] = [];
  for (let i = 0; i < 4; i++) keys.push(`ide${i}`);
  for (let i = 0; i < 31; i++) keys.push(`scsi${i}`);
  for (let i = 0; i < 16; i++) keys.push(`virtio${i}`);
  for (let i = 0; i < 6; i++) keys.push(`sata${i}`);
  keys.push('efidisk0', 'tpmstate0');
  return keys;
}

function lxcDiskKeys(): string[] {
  const keys = ['rootfs'];
  for (let i = 0; i < 256; i++) keys.push(`mp${i}`);
  return keys;
}

function resizeEndpoint(state: ClusterState, type: GuestType): SimEndpoint {
  const parameters: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    disk: str('Disk to grow.', { enum: type === 'qemu' ? qemuDiskKeys() : lxcDiskKeys() }),
    size: str('New size, or +SIZE to grow by that much (K, M, G or T suffix).', { pattern: '\\+?\\d+(\\.\\d+)?[KMGT]?' }),
    digest: P.digest,
  };
  if (type === 'qemu') parameters.skiplock = P.skiplock;
  return {
    method: 'PUT',
    path: `/nodes/{node}/${type}/{vmid}/resize`,
    description: 'Grow a guest disk (task). Shrinking is refused.',
    parameters,
    returns: UPID,
    permissions: { check: type === 'qemu' ? perm('/vms/{vmid}', ['VM.Config.Disk']) : perm('/vms/{vmid}', ['VM.Config.Disk'], 'any', 1) },
    protected: true,
    proxyto: 'node',
    handler: (ctx) => {
      rootOnly(ctx, 'skiplock');
      const g = pathGuest(state, type, ctx);
      assertDigest(g, optStr(ctx, 'digest'));
      if (g.config.lock !== undefined && !(flag(ctx, 'skiplock') ?? false)) throw locked(type, String(g.config.lock));
      const key = reqStr(ctx, 'disk');
      const disk = diskEntries(type, g.config).find((d) => d.key === key);
      if (!disk) throw fail(`disk '${key}' does not exist`);
      const sizeText = reqStr(ctx, 'size');
      const grow = sizeText.startsWith('+');
      const amount = parseSize(grow ? sizeText.slice(1) : sizeText);
      if (amount === undefined) throw fail(`invalid size '${sizeText}'`);
      const newSize = grow ? disk.size + amount : amount;
      if (newSize < disk.size) throw fail('shrinking disks is not supported');
      return serialGuestTask(state, g, ctx.principal.authId, 'resize', {
        finish: (run) => {
          liveGuest(state, g);
          const current = g.config[key];
          if (current === undefined) throw new TaskFailure(`disk '${key}' does not exist`);
          g.config[key] = withDiskSize(String(current), newSize);
          run.log(`Size of logical volume changed from ${formatSize(disk.size)} to ${formatSize(newSize)}.`);
        },
      });
    },
  };
}

export function guestLifecycleEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  return [createEndpoint(state, type), destroyEndpoint(state, type), cloneEndpoint(state, type), templateEndpoint(state, type), resizeEndpoint(state, type)];
}
