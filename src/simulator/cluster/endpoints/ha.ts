/**
 * High availability: HA resources (which guests HA manages and in what requested state) and
 * the HA manager status as `ha-manager status` shows it.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { assertUnmodified, fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { HaResource } from '../types.js';
import { flag, list, optInt, optStr, reqStr } from './params.js';
import { arr, bool, int, NULL, obj, opt, perm, str } from './schema.js';
import { haReconcile } from '../ha-manager.js';
import { purgeFromRules } from './ha-rules.js';

const SID = str('HA resource ID: vm:<vmid>, ct:<vmid>, or a bare VMID.', { format: 'pve-ha-resource-or-vm-id' });
const STATES = ['started', 'stopped', 'enabled', 'disabled', 'ignored'];

/** resources.cfg as PVE writes it; its SHA1 is the `digest` every resource carries. */
function resourcesCfg(state: ClusterState): string {
  let text = '';
  for (const res of state.haResources.values()) {
    text += `${res.type}: ${res.sid.split(':')[1]}\n`;
    for (const [k, v] of Object.entries(res)) if (k !== 'sid' && k !== 'type' && v !== undefined) text += `\t${k} ${v}\n`;
    text += '\n';
  }
  return text;
}

function resourcesDigest(state: ClusterState): string {
  return createHash('sha1').update(resourcesCfg(state)).digest('hex');
}

export function haEndpoints(state: ClusterState): SimEndpoint[] {
  const view = (res: HaResource): Record<string, unknown> => ({ ...res, digest: resourcesDigest(state) });
  /** `vm:101`, `ct:101` or `101` (typed by the guest that has the ID). */
  const canonical = (sid: string): string => {
    if (!/^\d+$/.test(sid)) return sid;
    state.tasks.settle();
    const g = state.guests.get(Number(sid));
    if (!g) throw fail(`unable to detect SID from VMID - VM/CT ${sid} does not exist`);
    return `${g.type === 'lxc' ? 'ct' : 'vm'}:${sid}`;
  };
  const resource = (ctx: SimRequestContext): HaResource => {
    const sid = canonical(reqStr(ctx, 'sid'));
    const res = state.haResources.get(sid);
    if (!res) throw fail(`no such resource '${sid}'`);
    return res;
  };
  const editable = {
    comment: opt(str('Description.', { maxLength: 4096 })),
    group: opt(str('HA group (legacy; 9.x uses rules).', { format: 'pve-configid' })),
    max_relocate: opt(int('Relocation attempts after a failed start.', { minimum: 0, default: 1 })),
    max_restart: opt(int('Restart attempts on the same node after a failed start.', { minimum: 0, default: 1 })),
    state: opt(str('Requested state.', { enum: STATES, default: 'started' })),
    failback: opt(bool('Move back to the preferred node when it returns.', { default: 1 })),
  };
  const apply = (res: HaResource, ctx: SimRequestContext): void => {
    const s = optStr(ctx, 'state');
    if (s !== undefined) res.state = s as HaResource['state'];
    const mr = optInt(ctx, 'max_restart');
    if (mr !== undefined) res.max_restart = mr;
    const ml = optInt(ctx, 'max_relocate');
    if (ml !== undefined) res.max_relocate = ml;
    const fb = flag(ctx, 'failback');
    if (fb !== undefined) res.failback = fb ? 1 : 0;
    const comment = optStr(ctx, 'comment');
    if (comment !== undefined) res.comment = comment;
  };

  return [
    {
      method: 'GET',
      path: '/cluster/ha/resources',
      description: 'HA resources: the guests under HA management with their requested state.',
      parameters: { type: opt(str('Only VMs or only containers.', { enum: ['ct', 'vm'] })) },
      returns: arr(obj({ sid: str('HA resource ID.') }, { additionalProperties: 1 }), { links: [{ rel: 'child', href: '{sid}' }] }),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return [...state.haResources.values()].filter((r) => type === undefined || r.type === type).map(view);
      },
    },
    {
      method: 'POST',
      path: '/cluster/ha/resources',
      description: 'Enable HA for a guest: put it under HA management with the state it should be kept in.',
      parameters: { sid: SID, type: opt(str('Resource kind (taken from the ID when left out).', { enum: ['ct', 'vm'] })), ...editable },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        const sid = canonical(reqStr(ctx, 'sid'));
        const m = /^(vm|ct):(\d+)$/.exec(sid);
        if (!m) throw fail(`unable to parse service id '${sid}'`);
        const type = optStr(ctx, 'type');
        if (type !== undefined && type !== m[1]) throw fail('types does not match');
        const g = state.guests.get(Number(m[2]));
        if (!g) throw fail(`resource '${sid}' does not exist in cluster`);
        if ((g.type === 'qemu') !== (m[1] === 'vm')) throw fail(`resource '${sid}' - guest with ID ${m[2]} is not a ${m[1] === 'vm' ? 'VM' : 'CT'}`);
        if (state.haResources.has(sid)) throw fail(`resource ID '${sid}' already defined`);
        const res: HaResource = { sid, type: m[1] as 'vm' | 'ct', state: 'started', max_restart: 1, max_relocate: 1, failback: 1 };
        apply(res, ctx);
        state.haResources.set(sid, res);
        haReconcile(state, sid);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/cluster/ha/resources/{sid}',
      description: 'One HA resource.',
      parameters: { sid: SID },
      returns: obj({
        sid: SID,
        type: str('Resource kind.'),
        state: opt(str('Requested state.', { enum: STATES })),
        max_restart: opt(int('Restart attempts.')),
        max_relocate: opt(int('Relocation attempts.')),
        failback: opt(bool('Fail back to the preferred node.', { default: 1 })),
        group: opt(str('HA group.', { format: 'pve-configid' })),
        comment: opt(str('Description.')),
        digest: str('Digest of the resource definition, for safe updates.'),
      }),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => view(resource(ctx)),
    },
    {
      method: 'PUT',
      path: '/cluster/ha/resources/{sid}',
      description: 'Change an HA resource: its requested state, restart and relocate limits, comment.',
      parameters: {
        sid: SID,
        ...editable,
        delete: opt(str('Options to reset.', { format: 'pve-configid-list', maxLength: 4096 })),
        digest: opt(str('Refuse the change unless the resource still has this digest.', { maxLength: 64 })),
      },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        const res = resource(ctx);
        assertUnmodified(resourcesDigest(state), optStr(ctx, 'digest'));
        for (const key of list(ctx.params.delete)) {
          if (key === 'comment') delete res.comment;
          else if (key === 'state') res.state = 'started';
          else if (key === 'max_restart' || key === 'max_relocate') res[key] = 1;
          else if (key === 'failback') res.failback = 1;
        }
        apply(res, ctx);
        haReconcile(state, res.sid);
        return null;
      },
    },
    {
      method: 'DELETE',
      path: '/cluster/ha/resources/{sid}',
      description: 'Take a guest out of HA management (the guest itself stays).',
      parameters: { sid: SID, purge: opt(bool('Also remove the guest from HA rules.', { default: 1 })) },
      returns: NULL,
      permissions: { check: perm('/', ['Sys.Console']) },
      protected: true,
      handler: (ctx) => {
        const sid = canonical(reqStr(ctx, 'sid'));
        if (!state.haResources.has(sid)) throw fail(`cannot delete service '${sid}', not HA managed!`);
        state.haResources.delete(sid);
        if (flag(ctx, 'purge') ?? true) purgeFromRules(state, sid);
        return null;
      },
    },
    {
      method: 'GET',
      path: '/cluster/ha/status',
      description: 'HA status reports (directory index).',
      parameters: {},
      returns: arr(obj({}), { links: [{ rel: 'child', href: '{name}' }] }),
      permissions: { user: 'all' },
      handler: () => [{ name: 'current' }, { name: 'manager_status' }],
    },
    {
      method: 'GET',
      path: '/cluster/ha/status/current',
      description: 'HA manager view: quorum, master, the local resource manager of each node and every managed service.',
      parameters: {},
      returns: arr(
        obj({
          id: str('Entry ID.'),
          type: { type: 'string', enum: ['quorum', 'master', 'lrm', 'service', 'fencing'], description: 'Entry kind.' },
          node: str('Node the entry is about.'),
          status: str('Human-readable status line.'),
          quorate: opt(bool('Cluster quorum (quorum entry).')),
          timestamp: opt(int('Last update (epoch seconds).')),
          sid: opt(str('Service ID (service entries).')),
          state: opt(str('Service state.')),
          crm_state: opt(str('State the cluster resource manager assigned.')),
          request_state: opt(str('Requested state.')),
          max_restart: opt(int('Restart attempts.')),
          max_relocate: opt(int('Relocation attempts.')),
          failback: opt(bool('Fail back to the preferred node.', { default: 1 })),
        }),
      ),
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        const now = state.nowSec();
        const nodes = [...state.nodes.values()];
        const master = nodes.find((n) => n.online);
        const online = nodes.filter((n) => n.online).length;
        const quorate = online * 2 > nodes.length ? 1 : 0;
        const date = new Date(now * 1000).toUTCString();
        const out: Array<Record<string, unknown>> = [{ id: 'quorum', type: 'quorum', node: master?.name ?? '', status: quorate ? 'OK' : 'No quorum on node', quorate }];
        if (master) out.push({ id: 'master', type: 'master', node: master.name, status: `${master.name} (active, ${date})`, timestamp: now });
        const managed = state.haResources.size > 0;
        for (const n of nodes) {
          const mode = !n.online ? 'old timestamp - dead?' : managed ? 'active' : 'idle';
          out.push({ id: `lrm:${n.name}`, type: 'lrm', node: n.name, status: `${n.name} (${mode}, ${date})`, timestamp: now });
        }
        for (const res of state.haResources.values()) {
          const g = state.guests.get(Number(res.sid.split(':')[1]));
          const node = g?.node ?? '';
          const live = g ? (g.status === 'running' ? 'started' : 'stopped') : 'error';
          out.push({
            id: `service:${res.sid}`,
            type: 'service',
            sid: res.sid,
            node,
            state: live,
            crm_state: live,
            request_state: res.state,
            status: `${res.sid} (${node}, ${live})`,
            max_restart: res.max_restart,
            max_relocate: res.max_relocate,
            failback: res.failback,
          });
        }
        return out;
      },
    },
  ];
}
