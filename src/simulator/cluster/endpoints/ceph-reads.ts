/**
 * Ceph as a hyper-converged cluster runs it: a clustered preset with the `ceph` RBD storage has a
 * monitor and a manager on every node, four OSDs per node (the disks /nodes/{node}/disks/list
 * shows as OSDs), the RBD pool the storage uses plus `.mgr` and a CephFS, and reports usage from
 * the guest disks on that storage. A cluster without Ceph answers as a node without the
 * packages does.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { optInt, reqStr } from './params.js';
import { BOOLEAN, int, LIST, OBJ, opt, P, perm, str, TEXT } from './schema.js';

type Json = Record<string, unknown>;

const VERSION = '19.2.3';
const FULL_VERSION = `ceph version ${VERSION} (c92aebb279828e9c3c1f5d24613efca272649e62) squid (stable)`;
const TiB = 1024 ** 4;
const OSD_SIZE = 3840 * 10 ** 9;
export const CEPH_FLAGS: ReadonlyArray<[string, string]> = [
  ['nobackfill', 'Backfilling of placement groups is paused'],
  ['nodeep-scrub', 'Deep scrubbing is off'],
  ['nodown', 'OSD failure reports are ignored'],
  ['noin', 'OSDs that start are not marked in'],
  ['noout', 'OSDs are not marked out after the down interval'],
  ['norebalance', 'Rebalancing is paused'],
  ['norecover', 'Recovery is paused'],
  ['noscrub', 'Scrubbing is off'],
  ['notieragent', 'Cache tiering is paused'],
  ['noup', 'OSDs are not allowed to come up'],
  ['pause', 'Reads and writes are paused'],
];

interface CephState {
  fsid: string;
  flags: Set<string>;
}

export function cephEndpoints(state: ClusterState): SimEndpoint[] {
  const enabled = () => state.storages.get('ceph')?.type === 'rbd' && state.nodes.size > 1;
  const ceph = (): CephState => {
    if (!enabled()) throw fail('binary not installed: /usr/bin/ceph-mon');
    return state.area('ceph', () => ({ fsid: uuid(state.clusterName ?? 'ceph'), flags: new Set<string>() }));
  };
  const nodes = () => [...state.nodes.values()];
  const node = (ctx: SimRequestContext): SimNode => {
    const n = state.node(reqStr(ctx, 'node'));
    ceph();
    return n;
  };
  const osds = () => nodes().flatMap((n) => [0, 1, 2, 3].map((k) => ({ id: (n.nodeid - 1) * 4 + k, host: n, dev: `/dev/sd${String.fromCharCode(97 + k)}` })));
  const used = () => state.storageUsage().get('ceph') ?? 0;
  const rawTotal = () => osds().length * OSD_SIZE;
  const pools = (): Json[] => {
    const u = used();
    const avail = Math.max(0, rawTotal() / 3 - u);
    const pool = (id: number, name: string, app: string, bytes: number, pg: number): Json => ({
      pool: id, pool_name: name, size: 3, min_size: 2, pg_num: pg, pg_num_final: pg, pg_autoscale_mode: 'on', crush_rule: 0, crush_rule_name: 'replicated_rule', type: 'replicated',
      bytes_used: bytes * 3, percent_used: Math.round((bytes / (bytes + avail)) * 1e6) / 1e6, application_metadata: { [app]: {} },
    });
    return [pool(1, '.mgr', 'mgr', 32 * 1024 ** 2, 1), pool(2, String(state.storages.get('ceph')?.props.pool ?? 'vm-pool'), 'rbd', u, 256), pool(3, 'cephfs_data', 'cephfs', Math.floor(0.2 * TiB), 64), pool(4, 'cephfs_metadata', 'cephfs', 2 * 1024 ** 3, 16)];
  };
  const health = () => {
    const down = osds().filter((o) => !o.host.online);
    const flags = [...(state.area('ceph', () => ({ fsid: '', flags: new Set<string>() })) as CephState).flags];
    const checks: Json = {};
    if (down.length) checks.OSD_DOWN = { severity: 'HEALTH_WARN', summary: { message: `${down.length} osds down`, count: down.length } };
    if (flags.length) checks.OSDMAP_FLAGS = { severity: 'HEALTH_WARN', summary: { message: `${flags.join(',')} flag(s) set`, count: flags.length } };
    return { status: Object.keys(checks).length ? 'HEALTH_WARN' : 'HEALTH_OK', checks, mutes: [] };
  };
  const status = (): Json => {
    const c = ceph();
    const up = osds().filter((o) => o.host.online);
    const quorum = nodes().filter((n) => n.online);
    return {
      fsid: c.fsid,
      health: health(),
      election_epoch: 42,
      quorum: quorum.map((n) => n.nodeid - 1),
      quorum_names: quorum.map((n) => n.name),
      quorum_age: Math.floor((state.now() - Math.max(...nodes().map((n) => n.bootedAt))) / 1000),
      monmap: { epoch: 3, min_mon_release_name: 'squid', num_mons: nodes().length },
      osdmap: { epoch: 311, num_osds: osds().length, num_up_osds: up.length, osd_up_since: 0, num_in_osds: osds().length, num_remapped_pgs: 0 },
      pgmap: { pgs_by_state: [{ state_name: 'active+clean', count: 337 }], num_pgs: 337, num_pools: 4, num_objects: Math.floor(used() / 4194304), data_bytes: used(), bytes_used: used() * 3, bytes_avail: rawTotal() - used() * 3, bytes_total: rawTotal(), read_bytes_sec: 12_582_912, write_bytes_sec: 4_194_304, read_op_per_sec: 410, write_op_per_sec: 160 },
      fsmap: { epoch: 12, id: 1, up: 1, in: 1, max: 1, by_rank: [{ filesystem_id: 1, rank: 0, name: nodes()[0]?.name, status: 'up:active', gid: 4242 }], up_standby: 1 },
      mgrmap: { available: true, num_standbys: nodes().length - 1, modules: ['iostat', 'nfs', 'restful'], services: {} },
      servicemap: { epoch: 5, modified: new Date(state.now()).toISOString(), services: {} },
      progress_events: {},
    };
  };
  const osd = (ctx: SimRequestContext) => {
    const n = node(ctx);
    const id = Number(reqStr(ctx, 'osdid'));
    const o = osds().find((x) => x.id === id);
    if (!o) throw fail(`OSD '${id}' does not exist`);
    if (o.host.name !== n.name) throw fail(`OSD '${id}' is not on node '${n.name}'`);
    return o;
  };
  const pool = (ctx: SimRequestContext): Json => {
    node(ctx);
    const p = pools().find((x) => x.pool_name === reqStr(ctx, 'name'));
    if (!p) throw fail(`pool '${reqStr(ctx, 'name')}' does not exist`);
    return p;
  };
  const config = () => {
    const c = ceph();
    return [
      ['global', 'fsid', c.fsid], ['global', 'mon_host', nodes().map((n) => n.ip).join(' ')], ['global', 'public_network', '10.0.0.0/16'], ['global', 'cluster_network', '10.0.0.0/16'],
      ['global', 'auth_client_required', 'cephx'], ['global', 'osd_pool_default_size', '3'], ['global', 'osd_pool_default_min_size', '2'],
      ['client', 'keyring', '/etc/pve/priv/$cluster.$name.keyring'],
    ] as Array<[string, string, string]>;
  };
  const nodeIndex = (names: string[]) => (ctx: SimRequestContext) => (node(ctx), names.map((name) => ({ name })));
  return [
    {
      method: 'GET', path: '/cluster/ceph',
      description: 'Cluster-wide Ceph sections (directory index).',
      parameters: {}, returns: LIST, permissions: { user: 'all' },
      handler: () => (ceph(), ['flags', 'metadata', 'status'].map((name) => ({ name }))),
    },
    {
      method: 'GET', path: '/cluster/ceph/status',
      description: 'Ceph cluster status: health, monitors in quorum, OSDs, placement groups and usage.',
      parameters: {}, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, protected: true,
      handler: () => status(),
    },
    {
      method: 'GET', path: '/cluster/ceph/flags',
      description: 'Ceph OSD flags and whether each is set.',
      parameters: {}, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) }, protected: true,
      handler: () => {
        const c = ceph();
        return CEPH_FLAGS.map(([name, description]) => ({ name, description, value: c.flags.has(name) ? 1 : 0 }));
      },
    },
    {
      method: 'GET', path: '/cluster/ceph/flags/{flag}',
      description: 'Whether one Ceph flag is set.',
      parameters: { flag: str('The flag asked for.', { enum: ['nobackfill', 'nodeep-scrub', 'nodown', 'noin', 'noout', 'norebalance', 'norecover', 'noscrub', 'notieragent', 'noup', 'pause'] }) }, returns: BOOLEAN, permissions: { check: perm('/', ['Sys.Audit']) }, protected: true,
      handler: (ctx) => {
        const c = ceph();
        const flag = reqStr(ctx, 'flag');
        if (!CEPH_FLAGS.some(([n]) => n === flag)) throw fail(`unknown flag '${flag}'`);
        return c.flags.has(flag) ? 1 : 0;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph',
      description: 'Ceph sections of a node (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) },
      handler: nodeIndex(['cfg', 'cmd-safety', 'crush', 'fs', 'log', 'mds', 'mgr', 'mon', 'osd', 'pool', 'rules', 'status']),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/status',
      description: 'Ceph cluster status as this node sees it.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), status()),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/cfg',
      description: 'Ceph configuration views (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: nodeIndex(['db', 'raw', 'value']),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/cfg/raw',
      description: 'The ceph.conf file.',
      parameters: { node: P.node }, returns: TEXT, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const bySection = new Map<string, string[]>();
        for (const [section, key, value] of config()) bySection.set(section, [...(bySection.get(section) ?? []), `\t${key} = ${value}`]);
        return [...bySection].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join('\n');
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/cfg/db',
      description: 'Settings stored in the Ceph configuration database.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), [
        { section: 'global', name: 'osd_pool_default_pg_autoscale_mode', value: 'on', level: 'advanced', mask: '', can_update_at_runtime: 1 },
        { section: 'mgr', name: 'mgr/dashboard/ssl', value: 'false', level: 'advanced', mask: '', can_update_at_runtime: 0 },
      ]),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/cfg/value',
      description: 'Values of chosen ceph.conf keys (section:key list).',
      parameters: { node: P.node, 'config-keys': str('The config keys asked for.') }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const out: Record<string, Record<string, string>> = {};
        for (const item of reqStr(ctx, 'config-keys').split(/[;,\s]+/).filter(Boolean)) {
          const [section, key] = item.split(':');
          const hit = config().find(([s, k]) => s === section && k === key);
          if (hit) (out[hit[0]] ??= {})[hit[1]] = hit[2];
        }
        return out;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/osd',
      description: 'The OSD tree: hosts and their OSDs with state, usage and device class.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const perOsd = used() * 3 / osds().length;
        return {
          flags: [...ceph().flags].join(','),
          root: {
            name: 'default', type: 'root', id: -1, leaf: 0,
            children: nodes().map((n) => ({
              name: n.name, type: 'host', id: -2 - n.nodeid, leaf: 0, status: n.online ? 'up' : 'down',
              children: osds().filter((o) => o.host === n).map((o) => ({ id: o.id, name: `osd.${o.id}`, type: 'osd', leaf: 1, host: n.name, status: n.online ? 'up' : 'down', in: 1, crush_weight: 3.4931, reweight: 1, device_class: 'ssd', osdtype: 'bluestore', bytes_used: Math.floor(perOsd), total_space: OSD_SIZE, percent_used: Math.round((perOsd / OSD_SIZE) * 1e4) / 100, commit_latency_ms: 1, apply_latency_ms: 1, ceph_version: FULL_VERSION, ceph_version_short: VERSION })),
            })),
          },
        };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/osd/{osdid}',
      description: 'Views of one OSD (directory index).',
      parameters: { node: P.node, osdid: int('The osdid asked for.') }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => (osd(ctx), ['lv-info', 'metadata'].map((name) => ({ name }))),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/osd/{osdid}/metadata',
      description: 'Where an OSD runs and which device backs it.',
      parameters: { node: P.node, osdid: int('The osdid asked for.') }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const o = osd(ctx);
        return {
          osd: { id: o.id, hostname: o.host.name, pid: 4000 + o.id, version: FULL_VERSION, osd_objectstore: 'bluestore', osd_data: `/var/lib/ceph/osd/ceph-${o.id}`, mem_usage: 4 * 1024 ** 3, front_addr: `${o.host.ip}:6802`, back_addr: `${o.host.ip}:6803`, hb_front_addr: `${o.host.ip}:6805`, hb_back_addr: `${o.host.ip}:6804` },
          devices: [{ device: 'block', dev_node: `/dev/dm-${o.id % 4}`, devices: o.dev.slice(5), size: OSD_SIZE, support_discard: 1, type: 'ssd' }],
        };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/osd/{osdid}/lv-info',
      description: 'The logical volume behind an OSD.',
      parameters: { node: P.node, osdid: int('The osdid asked for.') }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const o = osd(ctx);
        const id = uuid(`osd-${o.id}`);
        return { lv_name: `osd-block-${id}`, vg_name: `ceph-${uuid(`vg-${o.id}`)}`, lv_path: `/dev/ceph-${uuid(`vg-${o.id}`)}/osd-block-${id}`, lv_size: OSD_SIZE, lv_uuid: id.slice(0, 6), creation_time: new Date(o.host.bootedAt - 100 * 86400000).toISOString().replace('T', ' ').slice(0, 19) };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/mon',
      description: 'Ceph monitors: one per node, in quorum while the node is up.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), nodes().map((n) => ({ name: n.name, host: 1, addr: `${n.ip}:6789/0`, rank: n.nodeid - 1, quorum: n.online ? 1 : 0, state: n.online ? 'running' : 'stopped', service: 1, direxists: '1', ceph_version: FULL_VERSION, ceph_version_short: VERSION }))),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/mgr',
      description: 'Ceph managers: the active one and the standbys.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const active = nodes().find((n) => n.online);
        return nodes().map((n) => ({ name: n.name, host: n.name, addr: n.ip, state: !n.online ? 'stopped' : n === active ? 'active' : 'standby' }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/mds',
      description: 'CephFS metadata servers.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        return nodes().slice(0, 2).map((n, i) => ({ name: n.name, host: n.name, addr: `${n.ip}:6801`, state: i === 0 ? 'up:active' : 'up:standby', ...(i === 0 ? { rank: 0 } : {}), standby_replay: 0 }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/fs',
      description: 'CephFS file systems with their pools.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), [{ name: 'cephfs', metadata_pool: 'cephfs_metadata', data_pool: 'cephfs_data' }]),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/pool',
      description: 'Ceph pools with replication, placement groups and usage.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), pools()),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/pool/{name}',
      description: 'Views of one pool (directory index).',
      parameters: { node: P.node, name: str('Name of the object.') }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) },
      handler: (ctx) => (pool(ctx), [{ name: 'status' }]),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/pool/{name}/status',
      description: 'Settings and usage of one pool.',
      parameters: { node: P.node, name: str('Name of the object.') }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const p = pool(ctx);
        const app = Object.keys(p.application_metadata as object)[0];
        return { id: p.pool, name: p.pool_name, size: p.size, min_size: p.min_size, pg_num: p.pg_num, pgp_num: p.pg_num, pg_autoscale_mode: 'on', crush_rule: 'replicated_rule', ...(app === 'rbd' || app === 'cephfs' ? { application: app } : {}), fast_read: 0, hashpspool: 1, nodelete: 0, nopgchange: 0, nosizechange: 0, noscrub: 0, 'nodeep-scrub': 0, use_gmt_hitset: 1, write_fadvise_dontneed: 0 };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/crush',
      description: 'The CRUSH map as text.',
      parameters: { node: P.node }, returns: TEXT, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const hosts = nodes().map((n) => `host ${n.name} {\n\tid ${-2 - n.nodeid}\n\talg straw2\n\thash 0\n${osds().filter((o) => o.host === n).map((o) => `\titem osd.${o.id} weight 3.493`).join('\n')}\n}`);
        return `# begin crush map\n${osds().map((o) => `device ${o.id} osd.${o.id} class ssd`).join('\n')}\n\n${hosts.join('\n')}\nroot default {\n\tid -1\n${nodes().map((n) => `\titem ${n.name} weight 13.972`).join('\n')}\n}\n\nrule replicated_rule {\n\tid 0\n\ttype replicated\n\tstep take default\n\tstep chooseleaf firstn 0 type host\n\tstep emit\n}\n# end crush map\n`;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/rules',
      description: 'CRUSH rules pools can use.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), [{ name: 'replicated_rule' }]),
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/log',
      description: 'The Ceph cluster log as numbered lines.',
      parameters: { node: P.node, start: opt(int('First line to return.')), limit: opt(int('Lines to return at most.')) }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const h = health();
        const now = state.nowSec();
        const all = Array.from({ length: 24 }, (_, k) => `${new Date((now - (24 - k) * 3600) * 1000).toISOString()} mgr.${nodes()[0]?.name} (mgr.4242) ${k} : cluster [DBG] pgmap v${1000 + k}: 337 pgs: 337 active+clean; ${h.status}`);
        const start = optInt(ctx, 'start') ?? 0;
        const limit = optInt(ctx, 'limit') ?? 50;
        ctx.setTotal(all.length);
        return all.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/ceph/cmd-safety',
      description: 'Whether stopping or destroying a Ceph service keeps the data available.',
      parameters: { node: P.node, action: str('The action asked for.', { enum: ['stop', 'destroy'] }), id: str('Identifier of the object.'), service: str('Service name.', { enum: ['osd', 'mon', 'mds'] }) }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const service = reqStr(ctx, 'service');
        const onlineMons = nodes().filter((n) => n.online).length;
        if (service === 'mon') return onlineMons - 1 > nodes().length / 2 ? { safe: 1 } : { safe: 0, status: 'stopping this monitor would lose quorum' };
        if (service === 'osd') return nodes().every((n) => n.online) ? { safe: 1 } : { safe: 0, status: 'some placement groups would become unavailable' };
        return { safe: 1 };
      },
    },
  ];
}

function uuid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
