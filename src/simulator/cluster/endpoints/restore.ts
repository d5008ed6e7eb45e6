/**
 * Restoring a backup archive as a guest (`POST /nodes/{node}/qemu` with `archive`,
 * `POST /nodes/{node}/lxc` with `restore=1` and the archive as `ostemplate`), also over an
 * existing guest with `force`: the existing guest must be on this node, stopped and not
 * protected; its volumes are destroyed (a VM keeps disks the backup does not contain, as
 * unusedN), its snapshots are gone, and the configuration saved in the archive comes back with
 * newly allocated disks. Task `qmrestore` / `vzrestore`.
 */
import { PveHttpError, type SimRequestContext } from '../../contract.js';
import { usableStorage, volumeName } from '../disks.js';
import { fail, locked, paramError, permissionDenied } from '../errors.js';
import { diskEntries, isDiskKey } from '../guest-config.js';
import { powerOn } from '../guest-ops.js';
import { macAddress, uuid } from '../ids.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestConfig, GuestType, StoredVolume } from '../types.js';
import { guestTask } from './guest-tasks.js';
import { flag, optStr, reqInt } from './params.js';
import { pathNode } from './path-targets.js';

const label = (type: GuestType): string => (type === 'qemu' ? 'VM' : 'CT');

/** The backup volume an archive parameter names, as this node sees it. */
function findArchive(state: ClusterState, node: string, volid: string): StoredVolume {
  const v = state.volumes.find((x) => x.volid === volid && x.content === 'backup' && (x.node === undefined || x.node === node));
  if (!v) throw fail(`volume '${volid}' does not exist`);
  const storage = volid.slice(0, volid.indexOf(':'));
  if (!state.storageOn(storage, node)) throw fail(`storage '${storage}' does not exist`);
  return v;
}

/**
 * The configuration saved in the archive. Archives the simulator wrote carry it; for the seeded
 * history, the current config of the guest with that VMID stands in (minus runtime state).
 */
function archivedConfig(state: ClusterState, archive: StoredVolume, type: GuestType): GuestConfig {
  const kind = /vzdump-(qemu|lxc)-/.exec(archive.volid)?.[1];
  if (kind !== undefined && kind !== type) {
    throw fail(type === 'qemu' ? `unable to restore VM - archive '${archive.volid}' is not a VM backup` : `unable to restore CT - archive '${archive.volid}' is not a CT backup`);
  }
  const source = archive.config ?? (archive.vmid !== undefined ? state.guests.get(archive.vmid)?.config : undefined) ?? {};
  const out: GuestConfig = {};
  for (const [k, v] of Object.entries(source)) if (k !== 'lock' && !k.startsWith('unused')) out[k] = v;
  return out;
}

export function startRestore(state: ClusterState, type: GuestType, ctx: SimRequestContext, options: GuestConfig): string {
  const node = pathNode(state, ctx);
  const vmid = reqInt(ctx, 'vmid');
  const archiveId = type === 'qemu' ? (optStr(ctx, 'archive') as string) : (optStr(ctx, 'ostemplate') as string);
  const force = flag(ctx, 'force') ?? false;
  const unique = flag(ctx, 'unique') ?? false;
  const pool = optStr(ctx, 'pool');
  const storage = optStr(ctx, 'storage');
  const emsg = `unable to restore ${label(type)} ${vmid} -`;
  state.tasks.settle();

  if (type === 'qemu') {
    for (const key of Object.keys(options)) if (isDiskKey('qemu', key)) throw paramError(key, "option conflicts with option 'archive'");
  }
  const existing = state.guests.get(vmid);
  const sameHere = existing !== undefined && existing.type === type && existing.node === node;
  if (existing && !(sameHere && force)) {
    const text = `${label(existing.type)} ${vmid} already exists on node '${existing.node}'`;
    throw fail(type === 'qemu' ? `${emsg} ${text}` : text);
  }
  if (pool !== undefined && !state.pools.has(pool)) throw fail(`pool '${pool}' does not exist`);
  if (storage !== undefined && !ctx.hasPriv(`/storage/${storage}`, 'Datastore.AllocateSpace')) throw permissionDenied(`/storage/${storage}`, 'Datastore.AllocateSpace');
  // VM.Allocate, on the guest or the pool; restoring over an existing guest also with VM.Backup.
  const allowed = ctx.hasPriv(`/vms/${vmid}`, 'VM.Allocate') || (pool !== undefined && ctx.hasPriv(`/pool/${pool}`, 'VM.Allocate')) || (force && sameHere && ctx.hasPriv(`/vms/${vmid}`, 'VM.Backup'));
  if (!allowed) throw new PveHttpError(403, 'Permission check failed\n');
  if (type === 'lxc' && sameHere) {
    if (existing.status === 'running') throw fail("can't overwrite running container");
    if (existing.config.protection) throw fail(`unable to restore CT ${vmid} - protection mode enabled`);
  }
  const archive = findArchive(state, node, archiveId);
  const saved = archivedConfig(state, archive, type);
  if (existing?.config.lock !== undefined) {
    throw type === 'qemu' ? fail(`${emsg} VM is locked (${String(existing.config.lock)})`) : locked(type, String(existing.config.lock));
  }

  // The guest config exists, locked 'create', from here on (PVE's create_and_lock_config).
  const g: Guest = existing ?? { vmid, type, node, config: {}, pending: {}, pendingDelete: new Set(), status: 'stopped', paused: false, startedAt: 0, pid: 0, snapshots: [] };
  if (!existing) state.guests.set(vmid, g);
  g.config.lock = 'create';
  const start = flag(ctx, 'start') ?? false;

  return guestTask(state, g, ctx.principal.authId, type === 'qemu' ? 'qmrestore' : 'vzrestore', {
    weight: 3,
    begin: (run) => {
      if (type === 'qemu' && sameHere) {
        if (g.config.protection) throw new TaskFailure(`${emsg} - protection mode enabled`);
        if (g.status === 'running') throw new TaskFailure(`${emsg} vm is running`);
      }
      run.log(type === 'qemu' ? `restore vma archive: ${archive.volid}` : `recovering backed-up configuration from '${archive.volid}'`);
    },
    finish: (run) => {
      const old = { ...g.config };
      const savedDisks = diskEntries(type, saved).filter((d) => !d.key.startsWith('unused'));
      // The old volumes go: a VM's disks the archive restores (others stay as unusedN), all of a container's.
      const kept: string[] = [];
      for (const d of diskEntries(type, old)) {
        const restoredHere = type === 'lxc' || savedDisks.some((s) => s.key === d.key) || d.key.startsWith('unused');
        if (restoredHere) run.log(type === 'qemu' ? `  Logical volume "${d.volid.split(':')[1]}" successfully removed.` : `destroy old volume '${d.volid}'`);
        else kept.push(d.volid);
      }
      const config: GuestConfig = { ...saved, ...options };
      const used = new Set<number>();
      for (const volid of kept) {
        const m = /-disk-(\d+)/.exec(volid);
        if (m) used.add(Number(m[1]));
      }
      for (const d of savedDisks) {
        const target = storage ?? d.storage;
        let s;
        try {
          s = usableStorage(state, target, node, type);
        } catch (err) {
          throw new TaskFailure(err instanceof Error ? err.message.trimEnd() : String(err));
        }
        let n = 0;
        while (used.has(n)) n++;
        used.add(n);
        const volid = volumeName(s, vmid, n, type);
        const rest = String(saved[d.key]).split(',').slice(1);
        config[d.key] = [volid, ...rest].join(',');
        run.log(type === 'qemu' ? `new volume ID is '${volid}'` : `restoring '${archive.volid}' now..`);
      }
      for (const volid of kept) {
        let i = 0;
        while (`unused${i}` in config) i++;
        config[`unused${i}`] = volid;
      }
      if (unique) {
        for (const [k, v] of Object.entries(config)) {
          if (!/^net\d+$/.test(k)) continue;
          config[k] =
            type === 'qemu'
              ? String(v).replace(/(?:[0-9A-F]{2}:){5}[0-9A-F]{2}/i, macAddress(state.rng))
              : String(v).replace(/hwaddr=(?:[0-9A-F]{2}:){5}[0-9A-F]{2}/i, `hwaddr=${macAddress(state.rng)}`);
        }
        if (type === 'qemu') config.smbios1 = `uuid=${uuid(state.rng)}`;
      }
      for (const key of Object.keys(g.config)) delete g.config[key];
      Object.assign(g.config, config);
      g.snapshots = [];
      g.pending = {};
      g.pendingDelete.clear();
      if (pool !== undefined) state.setPool(g, pool);
      if (start) powerOn(state, g);
      run.log(type === 'qemu' ? `restore finished` : 'merged backed-up configuration');
    },
    cleanup: () => {
      if (g.config.lock === 'create') {
        // A failed restore of a new guest leaves nothing; over an existing one the config stays locked out, as PVE warns.
        if (!existing) state.removeGuest(g);
        else delete g.config.lock;
      }
    },
  });
}
