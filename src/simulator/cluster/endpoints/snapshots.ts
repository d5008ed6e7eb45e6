/**
 * Snapshots of VMs and containers: list (always ending with the `current` pseudo-entry),
 * create, delete and rollback as worker tasks holding the matching config lock, and the
 * per-snapshot config and description.
 */
import { snapshotBlocker } from '../snapshot-support.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import { configDigest, snapshotableConfig } from '../guest-config.js';
import { powerOff, powerOn } from '../guest-ops.js';
import type { ClusterState } from '../state.js';
import { TaskFailure } from '../tasks.js';
import type { Guest, GuestType, Snapshot } from '../types.js';
import { lockingGuestTask } from './guest-tasks.js';
import { flag, optStr, reqStr } from './params.js';
import { pathGuest } from './path-targets.js';
import { arr, bool, int, NULL, obj, opt, P, perm, str, UPID } from './schema.js';

const SNAPSHOT = { check: perm('/vms/{vmid}', ['VM.Snapshot']) };

const TASKS: Record<GuestType, { create: string; del: string; rollback: string }> = {
  qemu: { create: 'qmsnapshot', del: 'qmdelsnapshot', rollback: 'qmrollback' },
  lxc: { create: 'vzsnapshot', del: 'vzdelsnapshot', rollback: 'vzrollback' },
};

function findSnapshot(g: Guest, name: string): Snapshot {
  const snap = g.snapshots.find((s) => s.name === name);
  if (!snap) throw fail(`snapshot '${name}' does not exist`);
  return snap;
}

/** Task-time check: the snapshot may have gone since the request was accepted. */
function assertSnapshotExists(g: Guest, name: string): void {
  if (!g.snapshots.some((s) => s.name === name)) throw new TaskFailure(`snapshot '${name}' does not exist`);
}

export function snapshotEndpoints(state: ClusterState, type: GuestType): SimEndpoint[] {
  const base = `/nodes/{node}/${type}/{vmid}/snapshot`;
  const names = TASKS[type];
  const guest = (ctx: SimRequestContext): Guest => pathGuest(state, type, ctx);
  const pathSnapshot = (ctx: SimRequestContext): Snapshot => findSnapshot(guest(ctx), reqStr(ctx, 'snapname'));
  const snapParams = { node: P.node, vmid: P.vmid, snapname: P.snapname };

  return [
    {
      method: 'GET',
      path: base,
      description: 'Snapshots of the guest, oldest first, followed by the `current` entry that marks where the running state stands.',
      parameters: { node: P.node, vmid: P.vmid },
      returns: arr(
        obj({
          name: str('Snapshot name (`current` for the live state).'),
          description: opt(str('Snapshot notes.')),
          snaptime: opt(int('Creation time (epoch seconds).')),
          parent: opt(str('Snapshot this one was taken after.')),
          ...(type === 'qemu' ? { vmstate: opt(bool('RAM state was saved with the snapshot.')) } : {}),
        }),
        { links: [{ rel: 'child', href: '{name}' }] },
      ),
      permissions: { check: perm('/vms/{vmid}', ['VM.Audit']) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = guest(ctx);
        const out: Array<Record<string, unknown>> = [...g.snapshots]
          .sort((a, b) => a.snaptime - b.snaptime)
          .map((s) => {
            const item: Record<string, unknown> = { name: s.name, description: s.description, snaptime: s.snaptime };
            if (type === 'qemu') item.vmstate = s.vmstate ? 1 : 0;
            if (s.parent) item.parent = s.parent;
            return item;
          });
        const current: Record<string, unknown> = { name: 'current', description: 'You are here!', digest: configDigest(g), running: g.status === 'running' ? 1 : 0 };
        if (g.config.parent !== undefined) current.parent = g.config.parent;
        out.push(current);
        return out;
      },
    },
    {
      method: 'POST',
      path: base,
      description:
        type === 'qemu'
          ? 'Take a snapshot of the VM (task), with `vmstate` including its RAM; the guest is locked with `snapshot` while it runs.'
          : 'Take a snapshot of the container (task); the guest is locked with `snapshot` while it runs.',
      parameters: {
        ...snapParams,
        description: opt(str('Notes to keep with the snapshot.')),
        ...(type === 'qemu' ? { vmstate: opt(bool('Also save the RAM of the running VM.')) } : {}),
      },
      returns: UPID,
      permissions: SNAPSHOT,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = guest(ctx);
        const name = reqStr(ctx, 'snapname');
        if (name === 'current') throw fail("unable to use snapshot name 'current' (reserved name)");
        if (name.toLowerCase() === 'pending') throw fail("unable to use snapshot name 'pending' (reserved name)");
        const vmstate = type === 'qemu' && (flag(ctx, 'vmstate') ?? false) && g.status === 'running';
        return lockingGuestTask(state, g, ctx.principal.authId, names.create, {
          lock: 'snapshot',
          check: () => {
            if (g.snapshots.some((s) => s.name === name)) throw new TaskFailure(`snapshot name '${name}' already used`);
            // As PVE: the task fails when a disk sits where no snapshot can be taken (raw on a directory storage…).
            if (snapshotBlocker(state, g)) throw new TaskFailure('snapshot feature is not available');
          },
          finish: () => {
            const snap: Snapshot = {
              name,
              description: optStr(ctx, 'description') ?? '',
              snaptime: state.nowSec(),
              config: snapshotableConfig(g.config),
              ...(type === 'qemu' ? { vmstate: vmstate ? 1 : 0 } : {}),
              ...(g.config.parent !== undefined ? { parent: String(g.config.parent) } : {}),
            };
            g.snapshots.push(snap);
            g.config.parent = name;
          },
        });
      },
    },
    {
      method: 'GET',
      path: `${base}/{snapname}`,
      description: 'Actions available on one snapshot (directory index).',
      parameters: snapParams,
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{cmd}' }] }),
      permissions: { user: 'all' },
      handler: (ctx) => {
        pathSnapshot(ctx);
        return [{ cmd: 'rollback' }, { cmd: 'config' }];
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{snapname}`,
      description: 'Remove a snapshot (task); later snapshots are re-parented.',
      parameters: { ...snapParams, force: opt(bool('Drop the snapshot from the config even if removing its data fails.')) },
      returns: UPID,
      permissions: SNAPSHOT,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = guest(ctx);
        const name = reqStr(ctx, 'snapname');
        return lockingGuestTask(state, g, ctx.principal.authId, names.del, {
          lock: 'snapshot-delete',
          check: () => assertSnapshotExists(g, name),
          finish: () => {
            const snap = findSnapshot(g, name);
            for (const s of g.snapshots) {
              if (s.parent !== name) continue;
              if (snap.parent) s.parent = snap.parent;
              else delete s.parent;
            }
            if (g.config.parent === name) {
              if (snap.parent) g.config.parent = snap.parent;
              else delete g.config.parent;
            }
            g.snapshots = g.snapshots.filter((s) => s !== snap);
          },
        });
      },
    },
    {
      method: 'POST',
      path: `${base}/{snapname}/rollback`,
      description:
        'Return the guest to a snapshot (roll it back), putting its disks and configuration back as they were (task). A running guest is stopped unless the snapshot holds RAM state; `start` starts it afterwards.',
      parameters: { ...snapParams, start: opt(bool('Start the guest after the rollback.', { default: 0 })) },
      returns: UPID,
      permissions: { check: perm('/vms/{vmid}', ['VM.Snapshot', 'VM.Snapshot.Rollback'], 'any', 1) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const g = guest(ctx);
        const name = reqStr(ctx, 'snapname');
        const start = flag(ctx, 'start') ?? false;
        return lockingGuestTask(state, g, ctx.principal.authId, names.rollback, {
          lock: 'rollback',
          check: () => assertSnapshotExists(g, name),
          finish: () => {
            const snap = findSnapshot(g, name);
            if (g.status === 'running') powerOff(g);
            const lock = g.config.lock;
            g.config = { ...snap.config, parent: name };
            if (lock !== undefined) g.config.lock = lock;
            g.pending = {};
            g.pendingDelete.clear();
            if (snap.vmstate || start) powerOn(state, g);
          },
        });
      },
    },
    {
      method: 'GET',
      path: `${base}/{snapname}/config`,
      description: 'The guest configuration as saved with the snapshot, plus its metadata.',
      parameters: snapParams,
      returns: obj({}),
      permissions: { check: perm('/vms/{vmid}', ['VM.Snapshot', 'VM.Snapshot.Rollback', 'VM.Audit'], 'any', 1) },
      proxyto: 'node',
      handler: (ctx) => {
        const snap = pathSnapshot(ctx);
        const out: Record<string, unknown> = { ...snap.config, snaptime: snap.snaptime };
        if (snap.description) out.description = snap.description;
        if (snap.parent) out.parent = snap.parent;
        if (type === 'qemu') out.vmstate = snap.vmstate ?? 0;
        return out;
      },
    },
    {
      method: 'PUT',
      path: `${base}/{snapname}/config`,
      description: 'Change the notes of a snapshot.',
      parameters: { ...snapParams, description: opt(str('New notes.')) },
      returns: NULL,
      permissions: SNAPSHOT,
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const snap = pathSnapshot(ctx);
        const description = optStr(ctx, 'description');
        if (description !== undefined) snap.description = description;
        return null;
      },
    },
  ];
}
