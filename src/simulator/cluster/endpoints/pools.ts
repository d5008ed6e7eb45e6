/**
 * Resource pools: list, create, read with members, update membership, delete. Both the
 * classic `/pools/{poolid}` paths and the 9.x variants with `poolid` as a parameter.
 */
import type { SchemaNode } from '../../../schema/model.js';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail, permissionDenied } from '../errors.js';
import { guestName } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import type { Pool } from '../types.js';
import { changeOperations } from './change.js';
import { flag, list, optStr, reqStr } from './params.js';
import { arr, bool, int, obj, opt, perm, str } from './schema.js';

const POOLID = str('Pool ID.', { format: 'pve-poolid' });
const TYPE_FILTER = opt(str('Only members of this kind.', { enum: ['qemu', 'lxc', 'storage'] }));
const MEMBER = obj(
  {
    id: str('Member ID (qemu/100, lxc/101, storage/<node>/<storage>).'),
    node: str('Node of the member.'),
    type: str('Member kind.', { enum: ['qemu', 'lxc', 'openvz', 'storage'] }),
    vmid: opt(int('Guest ID (guest members).')),
    storage: opt(str('Storage ID (storage members).')),
  },
  { additionalProperties: 1 },
);

const UPDATE_PARAMS: Record<string, SchemaNode> = {
  poolid: POOLID,
  comment: opt(str('Description of the pool.')),
  vms: opt(str('Guests to add (or remove with delete=1).', { format: 'pve-vmid-list' })),
  storage: opt(str('Storages to add (or remove with delete=1).', { format: 'pve-storage-id-list' })),
  delete: opt(bool('Remove the listed members instead of adding them.', { default: 0 })),
  'allow-move': opt(bool('Take guests out of the pool they are in now.', { default: 0 })),
};

export function poolEndpoints(state: ClusterState): SimEndpoint[] {
  const pool = (ctx: SimRequestContext): Pool => {
    const id = reqStr(ctx, 'poolid');
    const p = state.pools.get(id);
    if (!p) throw fail(`pool '${id}' does not exist`);
    return p;
  };

  const members = (p: Pool, type: string | undefined): Array<Record<string, unknown>> => {
    const out: Array<Record<string, unknown>> = [];
    for (const vmid of [...p.vms].sort((a, b) => a - b)) {
      const g = state.guests.get(vmid);
      if (!g || (type !== undefined && g.type !== type)) continue;
      const rt = state.guestRuntime(g);
      out.push({
        id: `${g.type}/${vmid}`,
        type: g.type,
        vmid,
        node: g.node,
        name: guestName(g),
        status: rt.status,
        template: g.config.template ? 1 : 0,
        cpu: rt.cpu,
        maxcpu: rt.cpus,
        mem: rt.mem,
        maxmem: rt.maxmem,
        disk: rt.disk,
        maxdisk: rt.maxdisk,
        uptime: rt.uptime,
        netin: rt.netin,
        netout: rt.netout,
        diskread: rt.diskread,
        diskwrite: rt.diskwrite,
        ...(g.config.tags !== undefined ? { tags: g.config.tags } : {}),
      });
    }
    if (type === undefined || type === 'storage') {
      const used = state.storageUsage();
      for (const sid of [...p.storages].sort()) {
        const s = state.storages.get(sid);
        if (!s) continue;
        for (const n of state.nodes.values()) {
          if (!state.storageOn(sid, n.name)) continue;
          out.push({
            id: `storage/${n.name}/${sid}`,
            type: 'storage',
            storage: sid,
            node: n.name,
            status: n.online ? 'available' : 'unknown',
            plugintype: s.type,
            shared: s.shared ? 1 : 0,
            content: s.content.join(','),
            disk: used.get(state.storageKey(s, n.name)) ?? 0,
            maxdisk: s.total,
          });
        }
      }
    }
    return out;
  };

  const update = (ctx: SimRequestContext): null => {
    const p = pool(ctx);
    const comment = optStr(ctx, 'comment');
    if (comment !== undefined) p.comment = comment;
    const remove = flag(ctx, 'delete') ?? false;
    const allowMove = flag(ctx, 'allow-move') ?? false;
    for (const id of list(ctx.params.vms).map(Number)) {
      const g = state.guests.get(id);
      if (!g) throw fail(`VM ${id} does not exist`);
      if (!ctx.hasPriv(`/vms/${id}`, 'VM.Allocate')) throw permissionDenied(`/vms/${id}`, 'VM.Allocate');
      if (remove) {
        if (g.pool === p.poolid) state.setPool(g, undefined);
        continue;
      }
      if (g.pool === p.poolid) continue;
      if (g.pool !== undefined && !allowMove) throw fail(`VM ${id} belongs already to pool '${g.pool}' and allow-move is not set`);
      state.setPool(g, p.poolid);
    }
    for (const sid of list(ctx.params.storage)) {
      if (!state.storages.has(sid)) throw fail(`storage '${sid}' does not exist`);
      if (remove) p.storages.delete(sid);
      else p.storages.add(sid);
    }
    return null;
  };

  const remove = (ctx: SimRequestContext): null => {
    const p = pool(ctx);
    if (p.vms.size > 0 || p.storages.size > 0) throw fail('pool not empty');
    state.pools.delete(p.poolid);
    return null;
  };

  /** A pool change: needs Pool.Allocate on the pool and answers with nothing. */
  const change = changeOperations({ check: perm('/pool/{poolid}', ['Pool.Allocate']) });

  return [
    {
      method: 'GET',
      path: '/pools',
      description: 'Resource pools the caller may audit; with poolid, that pool including its members.',
      parameters: { poolid: opt(POOLID), type: opt(str('Only members of this kind.', { enum: ['qemu', 'lxc', 'storage'], requires: 'poolid' })) },
      returns: arr(obj({ poolid: str('Pool ID.'), comment: opt(str('Description.')), members: opt(arr(MEMBER)) }), { links: [{ rel: 'child', href: '{poolid}' }] }),
      permissions: { user: 'all', description: 'Lists pools with Pool.Audit (or Pool.Allocate).' },
      handler: (ctx) => {
        const only = optStr(ctx, 'poolid');
        const type = optStr(ctx, 'type');
        return [...state.pools.values()]
          .filter((p) => (only === undefined || p.poolid === only) && (ctx.hasPriv(`/pool/${p.poolid}`, 'Pool.Audit') || ctx.hasPriv(`/pool/${p.poolid}`, 'Pool.Allocate')))
          .map((p) => ({ poolid: p.poolid, ...(p.comment !== undefined ? { comment: p.comment } : {}), ...(only !== undefined ? { members: members(p, type) } : {}) }));
      },
    },
    change('POST', '/pools', 'Create a resource pool.', { poolid: POOLID, comment: opt(str('Description of the pool.')) }, (ctx) => {
      const id = reqStr(ctx, 'poolid');
      if (state.pools.has(id)) throw fail(`pool '${id}' already exists`);
      const comment = optStr(ctx, 'comment');
      state.pools.set(id, { poolid: id, ...(comment !== undefined ? { comment } : {}), vms: new Set(), storages: new Set() });
      return null;
    }),
    change('PUT', '/pools', 'Add guests and storages to a pool, or with delete=1 take them out, or change its comment (poolid given as a parameter).', UPDATE_PARAMS, update),
    change('DELETE', '/pools', 'Delete an empty pool (poolid given as a parameter).', { poolid: POOLID }, remove),
    {
      method: 'GET',
      path: '/pools/{poolid}',
      description: 'One pool with its members and their current usage.',
      parameters: { poolid: POOLID, type: TYPE_FILTER },
      returns: obj({ comment: opt(str('Description.')), members: arr(MEMBER) }, { additionalProperties: 0 }),
      permissions: { check: perm('/pool/{poolid}', ['Pool.Audit']) },
      handler: (ctx) => {
        const p = pool(ctx);
        return { ...(p.comment !== undefined ? { comment: p.comment } : {}), members: members(p, optStr(ctx, 'type')) };
      },
    },
    change('PUT', '/pools/{poolid}', 'Add guests and storages to a pool, or with delete=1 take them out, or change its comment.', UPDATE_PARAMS, update),
    change('DELETE', '/pools/{poolid}', 'Delete an empty pool.', { poolid: POOLID }, remove),
  ];
}
