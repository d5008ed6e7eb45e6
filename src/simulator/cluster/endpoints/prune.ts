/**
 * Pruning backups on a storage by retention: the dry run (GET, what would be kept or removed)
 * and the prune itself (DELETE, task `prunebackups`), per guest or for the whole storage.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail, permissionDenied } from '../errors.js';
import { parseRetention, pruneList, removeMarked, type Retention } from '../prune.js';
import type { ClusterState } from '../state.js';
import type { SimStorage } from '../types.js';
import { optInt, optStr, reqStr } from './params.js';
import { pathNode } from './path-targets.js';
import { arr, int, obj, opt, P, perm, str, UPID, VMID_RANGE } from './schema.js';

const PARAMS = {
  node: P.node,
  storage: P.storage,
  'prune-backups': opt(str("Retention to apply, e.g. keep-last=3,keep-weekly=2; the storage's own setting when left out.", { format: 'prune-backups' })),
  type: opt(str('Only backups of VMs or of containers.', { enum: ['qemu', 'lxc'] })),
  vmid: opt(int('Only backups of this guest.', { ...VMID_RANGE })),
};

export function pruneEndpoints(state: ClusterState): SimEndpoint[] {
  const target = (ctx: SimRequestContext): { node: string; s: SimStorage; keep: Retention } => {
    const node = pathNode(state, ctx);
    const id = reqStr(ctx, 'storage');
    const s = state.storageOn(id, node);
    if (!s) throw fail(`storage '${id}' does not exist`);
    if (!s.content.includes('backup')) throw fail(`storage '${id}' does not support backups`);
    const text = optStr(ctx, 'prune-backups') ?? (s.props['prune-backups'] !== undefined ? String(s.props['prune-backups']) : undefined);
    if (text === undefined) throw fail(`no prune-backups options configured for storage '${id}'`);
    return { node, s, keep: parseRetention(text) };
  };
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/prunebackups',
      description:
        'Which backups on a storage a prune would keep or remove, as a dry run: every backup with the mark the retention gives it (keep, remove, protected, or renamed for archives without the standard name).',
      parameters: PARAMS,
      returns: arr(
        obj({
          volid: str('Backup volume ID.'),
          ctime: int('Creation time (epoch seconds).'),
          mark: str('What pruning would do: keep, remove, protected or renamed.'),
          type: str('Guest type the backup is of (qemu, lxc, or unknown).'),
          vmid: opt(int('Guest the backup is of.')),
        }),
      ),
      permissions: { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const { node, s, keep } = target(ctx);
        return pruneList(state, s.storage, node, keep, optInt(ctx, 'vmid'), optStr(ctx, 'type')).map(({ volume: _v, ...e }) => e);
      },
    },
    {
      method: 'DELETE',
      path: '/nodes/{node}/storage/{storage}/prunebackups',
      description: 'Prune the backups on a storage now: remove those the retention does not keep (task `prunebackups`); protected backups stay.',
      parameters: PARAMS,
      returns: UPID,
      permissions: { user: 'all', description: 'Datastore.Allocate on the storage, or with vmid Datastore.AllocateSpace on it and VM.Backup on the guest.' },
      protected: true,
      proxyto: 'node',
      handler: (ctx) => {
        const vmid = optInt(ctx, 'vmid');
        const storageId = reqStr(ctx, 'storage');
        if (vmid !== undefined) {
          if (!ctx.hasPriv(`/storage/${storageId}`, 'Datastore.AllocateSpace')) throw permissionDenied(`/storage/${storageId}`, 'Datastore.AllocateSpace');
          if (!ctx.hasPriv(`/vms/${vmid}`, 'VM.Backup')) throw permissionDenied(`/vms/${vmid}`, 'VM.Backup');
        } else if (!ctx.hasPriv(`/storage/${storageId}`, 'Datastore.Allocate')) {
          throw permissionDenied(`/storage/${storageId}`, 'Datastore.Allocate');
        }
        const { node, s, keep } = target(ctx);
        const type = optStr(ctx, 'type');
        return state.tasks.start({
          node,
          type: 'prunebackups',
          id: `${vmid !== undefined ? `${vmid}@` : ''}${s.storage}`,
          user: ctx.principal.authId,
          finish: (run) => {
            removeMarked(state, pruneList(state, s.storage, node, keep, vmid, type), (line) => run.log(line));
          },
        });
      },
    },
  ];
}
