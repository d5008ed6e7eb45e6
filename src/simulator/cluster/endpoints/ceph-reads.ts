/**
 * Ceph as the cluster and each node report it: status and health, flags, the configuration and
 * its database, monitors, managers, metadata servers and CephFS, the log, and whether stopping a
 * service is safe (the cluster's Ceph: ceph-model.ts; OSDs and pools: ceph-osd-reads.ts).
 */
import type { SimEndpoint } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import { optInt, reqStr } from './params.js';
import { BOOLEAN, int, LIST, OBJ, opt, P, perm, str, TEXT } from './schema.js';
import { CEPH_AUDIT, cephModel, CEPH_FLAGS, FULL_VERSION, VERSION } from './ceph-model.js';

export function cephEndpoints(state: ClusterState): SimEndpoint[] {
  const { ceph, nodes, node, health, status, config, nodeIndex } = cephModel(state);
  return [
    {
      method: 'GET',
      path: '/cluster/ceph',
      description: 'Cluster-wide Ceph sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => (ceph(), ['flags', 'metadata', 'status'].map((name) => ({ name }))),
    },
    {
      method: 'GET',
      path: '/cluster/ceph/status',
      description: 'Ceph cluster status: health, monitors in quorum, OSDs, placement groups and usage.',
      parameters: {},
      returns: OBJ,
      permissions: CEPH_AUDIT,
      protected: true,
      handler: () => status(),
    },
    {
      method: 'GET',
      path: '/cluster/ceph/flags',
      description: 'Ceph OSD flags and whether each is set.',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: () => {
        const c = ceph();
        return CEPH_FLAGS.map(([name, description]) => ({ name, description, value: c.flags.has(name) ? 1 : 0 }));
      },
    },
    {
      method: 'GET',
      path: '/cluster/ceph/flags/{flag}',
      description: 'Whether one Ceph flag is set.',
      parameters: { flag: str('The flag asked for.', { enum: ['nobackfill', 'nodeep-scrub', 'nodown', 'noin', 'noout', 'norebalance', 'norecover', 'noscrub', 'notieragent', 'noup', 'pause'] }) },
      returns: BOOLEAN,
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: (ctx) => {
        const c = ceph();
        const flag = reqStr(ctx, 'flag');
        if (!CEPH_FLAGS.some(([n]) => n === flag)) throw fail(`unknown flag '${flag}'`);
        return c.flags.has(flag) ? 1 : 0;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph',
      description: 'Ceph sections of a node (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      handler: nodeIndex(['cfg', 'cmd-safety', 'crush', 'fs', 'log', 'mds', 'mgr', 'mon', 'osd', 'pool', 'rules', 'status']),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/status',
      description: 'Ceph cluster status as this node sees it.',
      parameters: { node: P.node },
      returns: OBJ,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), status()),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/cfg',
      description: 'Ceph configuration views (directory index).',
      parameters: { node: P.node },
      returns: LIST,
      permissions: { user: 'all' },
      handler: nodeIndex(['db', 'raw', 'value']),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/cfg/raw',
      description: 'The ceph.conf file.',
      parameters: { node: P.node },
      returns: TEXT,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const bySection = new Map<string, string[]>();
        for (const [section, key, value] of config()) bySection.set(section, [...(bySection.get(section) ?? []), `\t${key} = ${value}`]);
        return [...bySection].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join('\n');
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/cfg/db',
      description: 'Settings stored in the Ceph configuration database.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (
        node(ctx),
        [
          { section: 'global', name: 'osd_pool_default_pg_autoscale_mode', value: 'on', level: 'advanced', mask: '', can_update_at_runtime: 1 },
          { section: 'mgr', name: 'mgr/dashboard/ssl', value: 'false', level: 'advanced', mask: '', can_update_at_runtime: 0 },
        ]
      ),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/cfg/value',
      description: 'Values of chosen ceph.conf keys (section:key list).',
      parameters: { node: P.node, 'config-keys': str('Keys to read, as section:key pairs separated by semicolons or commas.') },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const out: Record<string, Record<string, string>> = {};
        for (const item of reqStr(ctx, 'config-keys')
          .split(/[;,\s]+/)
          .filter(Boolean)) {
          const [section, key] = item.split(':');
          const hit = config().find(([s, k]) => s === section && k === key);
          if (hit) (out[hit[0]] ??= {})[hit[1]] = hit[2];
        }
        return out;
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/mon',
      description: 'Ceph monitors: one per node, in quorum while the node is up.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (
        node(ctx),
        nodes().map((n) => ({
          name: n.name,
          host: 1,
          addr: `${n.ip}:6789/0`,
          rank: n.nodeid - 1,
          quorum: n.online ? 1 : 0,
          state: n.online ? 'running' : 'stopped',
          service: 1,
          direxists: '1',
          ceph_version: FULL_VERSION,
          ceph_version_short: VERSION,
        }))
      ),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/mgr',
      description: 'Ceph managers: the active one and the standbys.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const active = nodes().find((n) => n.online);
        return nodes().map((n) => ({ name: n.name, host: n.name, addr: n.ip, state: !n.online ? 'stopped' : n === active ? 'active' : 'standby' }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/mds',
      description: 'CephFS metadata servers.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        return nodes()
          .slice(0, 2)
          .map((n, i) => ({ name: n.name, host: n.name, addr: `${n.ip}:6801`, state: i === 0 ? 'up:active' : 'up:standby', ...(i === 0 ? { rank: 0 } : {}), standby_replay: 0 }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/fs',
      description: 'CephFS file systems with their pools.',
      parameters: { node: P.node },
      returns: LIST,
      permissions: CEPH_AUDIT,
      proxyto: 'node',
      protected: true,
      handler: (ctx) => (node(ctx), [{ name: 'cephfs', metadata_pool: 'cephfs_metadata', data_pool: 'cephfs_data' }]),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/log',
      description: 'The Ceph cluster log as numbered lines.',
      parameters: { node: P.node, start: opt(int('First line to return.')), limit: opt(int('Lines to return at most.')) },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        node(ctx);
        const h = health();
        const now = state.nowSec();
        const all = Array.from(
          { length: 24 },
          (_, k) => `${new Date((now - (24 - k) * 3600) * 1000).toISOString()} mgr.${nodes()[0]?.name} (mgr.4242) ${k} : cluster [DBG] pgmap v${1000 + k}: 337 pgs: 337 active+clean; ${h.status}`,
        );
        const start = optInt(ctx, 'start') ?? 0;
        const limit = optInt(ctx, 'limit') ?? 50;
        ctx.setTotal(all.length);
        return all.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/ceph/cmd-safety',
      description: 'Whether stopping or destroying a Ceph service keeps the data available.',
      parameters: {
        node: P.node,
        action: str('The action asked for.', { enum: ['stop', 'destroy'] }),
        id: str('Identifier of the object.'),
        service: str('Service name.', { enum: ['osd', 'mon', 'mds'] }),
      },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
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
