/**
 * Guest configuration endpoints: read (with `digest`, optionally as of a snapshot or without
 * pending changes), synchronous PUT, asynchronous POST (qemu only, task `qmconfig`) and the
 * pending-changes view.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { applyConfigChange, checkConfigChange, writeConfigChange, type ConfigChange } from '../config-update.js';
import { fail, permissionDenied } from '../errors.js';
import { configDigest, isDiskKey } from '../guest-config.js';
import { guestOptions } from '../guest-options.js';
import { diskVolid, liveGuest } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestConfig, GuestType } from '../types.js';
import { serialGuestTask } from './guest-tasks.js';
import { flag, list, optStr, rootOnly } from './params.js';
import { pathGuest } from './path-targets.js';
import { arr, bool, int, obj, opt, P, perm, str, UPID } from './schema.js';

const CONFIG_PRIVS: Record<GuestType, string[]> = {
  qemu: ['VM.Config.Disk', 'VM.Config.CDROM', 'VM.Config.CPU', 'VM.Config.Memory', 'VM.Config.Network', 'VM.Config.HWType', 'VM.Config.Options', 'VM.Config.Cloudinit'],
  lxc: ['VM.Config.Disk', 'VM.Config.CPU', 'VM.Config.Memory', 'VM.Config.Network', 'VM.Config.Options'],
};

const CONTROL = new Set(['node', 'vmid', 'delete', 'revert', 'digest', 'skiplock', 'force', 'background_delay']);

function changeFrom(ctx: SimRequestContext): ConfigChange {
  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ctx.params)) if (!CONTROL.has(k) && v !== undefined) set[k] = v;
  const digest = optStr(ctx, 'digest');
  return {
    set,
    delete: list(ctx.params.delete),
    revert: list(ctx.params.revert),
    ...(digest !== undefined ? { digest } : {}),
    skiplock: flag(ctx, 'skiplock') ?? false,
    force: flag(ctx, 'force') ?? false,
  };
}

/**
 * The per-option checks PVE makes for deletions: removing a disk needs VM.Config.Disk (a CD-ROM
 * drive VM.Config.CDROM), and destroying a volume (an unusedN entry, or a disk with `force`)
 * also Datastore.AllocateSpace on its storage.
 */
function checkDeletePermissions(ctx: SimRequestContext, g: Guest, change: ConfigChange): void {
  for (const key of change.delete) {
    if (!isDiskKey(g.type, key)) continue;
    const value = g.config[key] ?? g.pending[key];
    if (value === undefined) continue;
    const volid = diskVolid(value);
    const priv = volid === undefined && g.type === 'qemu' && /media=cdrom/.test(String(value)) ? 'VM.Config.CDROM' : 'VM.Config.Disk';
    if (!ctx.hasPriv(`/vms/${g.vmid}`, priv)) throw permissionDenied(`/vms/${g.vmid}`, priv);
    const destroys = key.startsWith('unused') || (change.force && g.type === 'qemu');
    if (destroys && volid !== undefined && new RegExp(`^[^:]+:(?:\\d+/)?(?:vm|base)-${g.vmid}-`).test(volid)) {
      const storage = volid.slice(0, volid.indexOf(':'));
      if (!ctx.hasPriv(`/storage/${storage}`, 'Datastore.AllocateSpace')) throw permissionDenied(`/storage/${storage}`, 'Datastore.AllocateSpace');
    }
  }
}

/** The config a client reads: current values with pending ones applied unless `current` is set. */
function readableConfig(g: Guest, current: boolean): GuestConfig {
  if (current) return { ...g.config };
  const out: GuestConfig = { ...g.config, ...g.pending };
  for (const key of g.pendingDelete) delete out[key];
  return out;
}

function pendingList(g: Guest): Array<Record<string, unknown>> {
  const keys = new Set([...Object.keys(g.config), ...Object.keys(g.pending), ...g.pendingDelete]);
  return [...keys].sort().map((key) => {
    const item: Record<string, unknown> = { key };
    if (key in g.config) item.value = key === 'cipassword' ? '**********' : g.config[key];
    if (key in g.pending) item.pending = key === 'cipassword' ? '********** ' : g.pending[key];
    if (g.pendingDelete.has(key)) item.delete = g.pendingForce?.has(key) ? 2 : 1;
    return item;
  });
}

export function guestConfigEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const base = `/nodes/{node}/${type}/{vmid}`;
  const noun = type === 'qemu' ? 'VM' : 'container';
  const options = guestOptions(type);
  const guest = (ctx: SimRequestContext): Guest => pathGuest(state, type, ctx);
  const configCheck = { check: perm('/vms/{vmid}', CONFIG_PRIVS[type], 'any', 1) };
  // What operators look for in a guest's configuration, in their words.
  const settings =
    type === 'qemu' ? 'name, CPU cores, memory, disks, CD drive (ISO image), network cards, boot order, cloud-init' : 'CPU cores, memory, swap, root filesystem, mount points, network interfaces';

  const editParams: Record<string, SchemaNode> = {
    node: P.node,
    vmid: P.vmid,
    ...options,
    delete: opt(str('Options to remove, comma-separated.', { format: 'pve-configid-list' })),
    revert: opt(str('Pending changes to discard, comma-separated.', { format: 'pve-configid-list' })),
    digest: P.digest,
  };
  if (type === 'qemu') {
    editParams.skiplock = P.skiplock;
    editParams.force = opt(bool("With delete: destroy the removed disks' volumes instead of keeping them as unusedN.", { requires: 'delete' }));
  }

  const configProps: Record<string, SchemaNode> = {
    ...options,
    digest: str('SHA1 of the config file; pass it back on updates to detect concurrent edits.'),
    lock: opt(str('Lock held by a running operation.')),
    // Containers report `parent` too, but only the VM schema declares it.
    ...(type === 'qemu' ? { parent: opt(str('Snapshot the current state derives from.', { format: 'pve-configid', maxLength: 40 })) } : {}),
  };

  const endpoints: SimEndpoint[] = [
    {
      method: 'GET',
      path: `${base}/config`,
      description: `Read a ${noun}'s configuration: ${settings} and its other options. Pending changes are included unless current=1; the digest it carries guards a later update.`,
      parameters: {
        node: P.node,
        vmid: P.vmid,
        current: opt(bool('Show the values in effect now, without pending changes.', { default: 0 })),
        snapshot: opt(str('Show the configuration saved with this snapshot.', { format: 'pve-configid', maxLength: 40 })),
      },
      returns: obj(configProps),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const g = guest(ctx);
        const snapname = optStr(ctx, 'snapshot');
        if (snapname !== undefined) {
          const snap = g.snapshots.find((s) => s.name === snapname);
          if (!snap) throw fail(`snapshot '${snapname}' does not exist`);
          return { ...snap.config, digest: configDigest(g) };
        }
        const config: Record<string, unknown> = { ...readableConfig(g, flag(ctx, 'current') ?? false), digest: configDigest(g) };
        // The stored hash is never shown.
        if (config.cipassword) config.cipassword = '**********';
        return config;
      },
    },
    {
      method: 'PUT',
      path: `${base}/config`,
      // A container's settings stay out of its summary: there, the longer summary ranked container
      // requests ("lxc mountpoint add") below unrelated calls.
      description:
        type === 'qemu'
          ? `Change a VM's configuration at once (${settings}…); \`delete\` removes options. On a running guest, what cannot change live stays pending until the next start.`
          : `Change container options at once. They include ${settings}; \`delete\` removes options. On a running container, what cannot change live stays pending until the next start.`,
      parameters: editParams,
      returns: { type: 'null' },
      permissions: configCheck,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        rootOnly(ctx, 'skiplock');
        const g = guest(ctx);
        const change = changeFrom(ctx);
        checkDeletePermissions(ctx, g, change);
        applyConfigChange(state, g, change);
        return null;
      },
    },
    {
      method: 'GET',
      path: `${base}/pending`,
      description: "Each option of a guest's configuration with the value in effect and, for a change not yet applied, its pending value or the mark that it is to be deleted at the next start.",
      parameters: { node: P.node, vmid: P.vmid },
      returns: arr(
        obj({
          key: str('Option name.'),
          value: opt(str('Value in effect now.')),
          pending: opt(str('Value that takes effect at the next start.')),
          delete: opt(int('1 when the option is to be removed at the next start, 2 when forced.', { minimum: 0, maximum: 2 })),
        }),
      ),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      proxyto: 'node',
      handler: (ctx) => pendingList(guest(ctx)),
    },
  ];

  if (type === 'qemu') {
    endpoints.push({
      method: 'POST',
      path: `${base}/config`,
      description: "Change a VM's configuration in a worker task (qmconfig) and return its UPID: the options of the synchronous update, for changes that take long such as allocating new disks.",
      parameters: {
        ...editParams,
        background_delay: opt(int('Seconds to wait for the task before answering, when it finishes quickly.', { minimum: 1, maximum: 30 })),
      },
      returns: opt(UPID),
      permissions: configCheck,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        rootOnly(ctx, 'skiplock');
        const g = guest(ctx);
        const change = changeFrom(ctx);
        // Digest, lock and option checks run before the worker forks, so they answer with a 500.
        checkConfigChange(g, change);
        checkDeletePermissions(ctx, g, change);
        return serialGuestTask(state, g, ctx.principal.authId, 'qmconfig', {
          begin: (run) => {
            liveGuest(state, g);
            try {
              writeConfigChange(state, g, change);
            } catch (err) {
              throw new TaskFailure(err instanceof Error ? err.message.trimEnd() : String(err));
            }
            for (const key of Object.keys(change.set)) run.log(`update VM ${g.vmid}: -${key} ${String(change.set[key])}`);
          },
        });
      },
    });
  }
  return endpoints;
}
