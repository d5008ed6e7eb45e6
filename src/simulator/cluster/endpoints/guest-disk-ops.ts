/**
 * Operations that copy or change a guest's disks: full and linked clones (with PVE's checks on
 * storages, names and locks), conversion to a template, and growing a disk.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint } from '../../contract.js';
import { assertDigest } from '../config-update.js';
import { usableStorage, volumeName } from '../disks.js';
import { fail, locked } from '../errors.js';
import { copyGuestFirewall } from '../firewall.js';
import { diskEntries, formatSize, parseSize, snapshotableConfig, withDiskSize } from '../guest-config.js';
import { liveGuest } from '../guest-ops.js';
import { uuid } from '../ids.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { GuestConfig, GuestType } from '../types.js';
import { assertPool, freshMacs, newGuest, T } from './guest-lifecycle.js';
import { guestTask, serialGuestTask } from './guest-tasks.js';
import { flag, optStr, reqInt, reqStr, rootOnly } from './params.js';
import { pathGuest } from './path-targets.js';
import { bool, int, NULL, num, opt, P, perm, str, UPID } from './schema.js';

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
    description:
      type === 'qemu'
        ? 'Make a VM disk bigger (task). The size is the new total or, with a leading +, the amount to add; shrinking is refused.'
        : "Make a container's root filesystem or a mount point bigger (task). The size is the new total or, with a leading +, the amount to add; shrinking is refused.",
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

export function guestDiskOpEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  return [cloneEndpoint(state, type), templateEndpoint(state, type), resizeEndpoint(state, type)];
}
