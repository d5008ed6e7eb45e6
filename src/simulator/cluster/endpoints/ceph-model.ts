/**
 * The Ceph a hyper-converged cluster runs, as the Ceph endpoints read it: a clustered preset with
 * the `ceph` RBD storage has a monitor and a manager on every node, four OSDs per node (the disks
 * /nodes/{node}/disks/list shows as OSDs), the RBD pool the storage uses plus `.mgr` and a
 * CephFS, and reports usage from the guest disks on that storage. A cluster without Ceph answers
 * as a node without the packages does.
 */
import { createHash } from 'node:crypto';
import type { SimPermissions, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { reqStr } from './params.js';
import { perm } from './schema.js';

type Json = Record<string, unknown>;

export const VERSION = '19.2.3';
export const FULL_VERSION = `ceph version ${VERSION} (c92aebb279828e9c3c1f5d24613efca272649e62) squid (stable)`;
const TiB = 1024 ** 4;
export const OSD_SIZE = 3840 * 10 ** 9;
/** What most Ceph reads check: Sys.Audit or Datastore.Audit on `/`. */
export const CEPH_AUDIT: SimPermissions = { check: perm('/', ['Sys.Audit', 'Datastore.Audit'], 'any', 1) };

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

/** The cluster's Ceph, derived from its nodes and storages on each read. */
export function cephModel(state: ClusterState) {
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
      pool: id,
      pool_name: name,
      size: 3,
      min_size: 2,
      pg_num: pg,
      pg_num_final: pg,
      pg_autoscale_mode: 'on',
      crush_rule: 0,
      crush_rule_name: 'replicated_rule',
      type: 'replicated',
      bytes_used: bytes * 3,
      percent_used: Math.round((bytes / (bytes + avail)) * 1e6) / 1e6,
      application_metadata: { [app]: {} },
    });
    return [
      pool(1, '.mgr', 'mgr', 32 * 1024 ** 2, 1),
      pool(2, String(state.storages.get('ceph')?.props.pool ?? 'vm-pool'), 'rbd', u, 256),
      pool(3, 'cephfs_data', 'cephfs', Math.floor(0.2 * TiB), 64),
      pool(4, 'cephfs_metadata', 'cephfs', 2 * 1024 ** 3, 16),
    ];
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
      pgmap: {
        pgs_by_state: [{ state_name: 'active+clean', count: 337 }],
        num_pgs: 337,
        num_pools: 4,
        num_objects: Math.floor(used() / 4194304),
        data_bytes: used(),
        bytes_used: used() * 3,
        bytes_avail: rawTotal() - used() * 3,
        bytes_total: rawTotal(),
        read_bytes_sec: 12_582_912,
        write_bytes_sec: 4_194_304,
        read_op_per_sec: 410,
        write_op_per_sec: 160,
      },
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
      ['global', 'fsid', c.fsid],
      [
        'global',
        'mon_host',
        nodes()
          .map((n) => n.ip)
          .join(' '),
      ],
      ['global', 'public_network', '10.0.0.0/16'],
      ['global', 'cluster_network', '10.0.0.0/16'],
      ['global', 'auth_client_required', 'cephx'],
      ['global', 'osd_pool_default_size', '3'],
      ['global', 'osd_pool_default_min_size', '2'],
      ['client', 'keyring', '/etc/pve/priv/$cluster.$name.keyring'],
    ] as Array<[string, string, string]>;
  };
  const nodeIndex = (names: string[]) => (ctx: SimRequestContext) => (node(ctx), names.map((name) => ({ name })));
  return { ceph, nodes, node, osds, used, pools, health, status, osd, pool, config, nodeIndex };
}

/** A stable UUID from a seed (the cluster FSID, OSD ids). */
export function uuid(seed: string): string {
  const h = createHash('sha1').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
