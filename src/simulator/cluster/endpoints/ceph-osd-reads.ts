/**
 * Ceph's OSDs, pools and CRUSH map as a node reports them: each OSD with its metadata and LVM
 * volume, each pool with its usage, the CRUSH tree and rules (src/simulator/cluster/endpoints/ceph-model.ts).
 */
import type { SimEndpoint } from '../../contract.js';
import type { ClusterState } from '../state.js';
import { int, LIST, OBJ, P, perm, str, TEXT } from './schema.js';
import { CEPH_AUDIT, cephModel, FULL_VERSION, VERSION, OSD_SIZE, uuid } from './ceph-model.js';

export function cephOsdEndpoints(state: ClusterState): SimEndpoint[] {
  const { ceph, nodes, node, osds, used, pools, osd, pool } = cephModel(state);
  return [
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/osd',
      description: 'The Ceph OSDs as a tree of hosts, each OSD with its status (up or down, in or out), usage and device class.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const perOsd = (used() * 3) / osds().length;
        return {
          flags: [...ceph().flags].join(','),
          root: {
            name: 'default',
            type: 'root',
            id: -1,
            leaf: 0,
            children: nodes().map((n) => ({
              name: n.name,
              type: 'host',
              id: -2 - n.nodeid,
              leaf: 0,
              status: n.online ? 'up' : 'down',
              children: osds()
                .filter((o) => o.host === n)
                .map((o) => ({
                  id: o.id,
                  name: `osd.${o.id}`,
                  type: 'osd',
                  leaf: 1,
                  host: n.name,
                  status: n.online ? 'up' : 'down',
                  in: 1,
                  crush_weight: 3.4931,
                  reweight: 1,
                  device_class: 'ssd',
                  osdtype: 'bluestore',
                  bytes_used: Math.floor(perOsd),
                  total_space: OSD_SIZE,
                  percent_used: Math.round((perOsd / OSD_SIZE) * 1e4) / 100,
                  commit_latency_ms: 1,
                  apply_latency_ms: 1,
                  ceph_version: FULL_VERSION,
                  ceph_version_short: VERSION,
                })),
            })),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/osd/{osdid}',
      description: 'Views of one OSD (directory index).',
      parameters: { node: P.node, osdid: int('The osdid asked for.') },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => (osd(ctx), ['lv-info', 'metadata'].map((name) => ({ name }))),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/osd/{osdid}/metadata',
      description: 'Where an OSD runs and which device backs it.',
      parameters: { node: P.node, osdid: int('The osdid asked for.') },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const o = osd(ctx);
        return {
          osd: {
            id: o.id,
            hostname: o.host.name,
            pid: 4000 + o.id,
            version: FULL_VERSION,
            osd_objectstore: 'bluestore',
            osd_data: `/var/lib/ceph/osd/ceph-${o.id}`,
            mem_usage: 4 * 1024 ** 3,
            front_addr: `${o.host.ip}:6802`,
            back_addr: `${o.host.ip}:6803`,
            hb_front_addr: `${o.host.ip}:6805`,
            hb_back_addr: `${o.host.ip}:6804`,
          },
          devices: [{ device: 'block', dev_node: `/dev/dm-${o.id % 4}`, devices: o.dev.slice(5), size: OSD_SIZE, support_discard: 1, type: 'ssd' }],
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/osd/{osdid}/lv-info',
      description: 'The logical volume behind an OSD.',
      parameters: { node: P.node, osdid: int('The osdid asked for.') },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const o = osd(ctx);
        const id = uuid(`osd-${o.id}`);
        return {
          lv_name: `osd-block-${id}`,
          vg_name: `ceph-${uuid(`vg-${o.id}`)}`,
          lv_path: `/dev/ceph-${uuid(`vg-${o.id}`)}/osd-block-${id}`,
          lv_size: OSD_SIZE,
          lv_uuid: id.slice(0, 6),
          creation_time: new Date(o.host.bootedAt - 100 * 86400000).toISOString().replace('T', ' ').slice(0, 19),
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/pool',
      description: 'Ceph pools with replication, placement groups and usage.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), pools()),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/pool/{name}',
      description: 'Views of one pool (directory index).',
      parameters: { node: P.node, name: str('Name of the object.') },
      returns: LIST,
      permissions: CEPH_AUDIT,
      handler: (ctx) => (pool(ctx), [{ name: 'status' }]),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/pool/{name}/status',
      description: 'Settings and usage of one pool.',
      parameters: { node: P.node, name: str('Name of the object.') },
      returns: OBJ,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const p = pool(ctx);
        const app = Object.keys(p.application_metadata as object)[0];
        return {
          id: p.pool,
          name: p.pool_name,
          size: p.size,
          min_size: p.min_size,
          pg_num: p.pg_num,
          pgp_num: p.pg_num,
          pg_autoscale_mode: 'on',
          crush_rule: 'replicated_rule',
          ...(app === 'rbd' || app === 'cephfs' ? { application: app } : {}),
          fast_read: 0,
          hashpspool: 1,
          nodelete: 0,
          nopgchange: 0,
          nosizechange: 0,
          noscrub: 0,
          'nodeep-scrub': 0,
          use_gmt_hitset: 1,
          write_fadvise_dontneed: 0,
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/crush',
      description: 'The CRUSH map as text.',
      parameters: { node: P.node },
      returns: TEXT,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const hosts = nodes().map(
          (n) =>
            `host ${n.name} {\n\tid ${-2 - n.nodeid}\n\talg straw2\n\thash 0\n${osds()
              .filter((o) => o.host === n)
              .map((o) => `\titem osd.${o.id} weight 3.493`)
              .join('\n')}\n}`,
        );
        return `# begin crush map\n${osds()
          .map((o) => `device ${o.id} osd.${o.id} class ssd`)
          .join('\n')}\n\n${hosts.join('\n')}\nroot default {\n\tid -1\n${nodes()
          .map((n) => `\titem ${n.name} weight 13.972`)
          .join('\n')}\n}\n\nrule replicated_rule {\n\tid 0\n\ttype replicated\n\tstep take default\n\tstep chooseleaf firstn 0 type host\n\tstep emit\n}\n# end crush map\n`;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/rules',
      description: 'CRUSH rules pools can use.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), [{ name: 'replicated_rule' }]),
    },
  ];
}
