/**
 * Cluster-wide reads beyond the inventory: the corosync configuration, the cluster log, metric
 * servers and the metrics export, notification targets and matchers, resource mappings, HA
 * manager status, what a backup job includes, ACME, scheduled-job analysis, storage definitions
 * and series, and a guest's series, features and agent views. Secrets (tokens, passwords, keys)
 * are never part of an answer, as on PVE.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint } from '../../contract.js';
import { diskEntries } from '../guest-config.js';
import { fail } from '../errors.js';
import { shownInterfaces } from '../network-stage.js';
import type { ClusterState } from '../state.js';
import { reqStr } from './params.js';
import { int, INTEGER, LIST, OBJ, opt, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;

const digestOf = (v: unknown): string => createHash('sha1').update(JSON.stringify(v)).digest('hex');

/** Backup-job selection: which guests and which of their disks a job includes. */
function includedVolumes(state: ClusterState, job: Json): Json {
  const vmids = job.vmid ? String(job.vmid).split(',').map(Number) : undefined;
  const exclude = new Set(
    String(job.exclude ?? '')
      .split(',')
      .filter(Boolean)
      .map(Number),
  );
  const selected = state.allGuests().filter((g) => {
    if (vmids) return vmids.includes(g.vmid);
    if (job.pool) return g.pool === job.pool;
    return job.all ? !exclude.has(g.vmid) : false;
  });
  return {
    children: selected.map((g) => ({
      id: g.vmid,
      name: String(g.config.name ?? g.config.hostname ?? ''),
      type: g.type,
      children: diskEntries(g.type, g.config).map((d) => {
        const excluded = /(^|,)backup=0/.test(String(g.config[d.key] ?? ''));
        return { id: d.key, name: d.volid ?? d.key, included: excluded ? 0 : 1, reason: excluded ? 'disabled' : 'enabled' };
      }),
    })),
  };
}

/** The next times a calendar event fires (hh:mm, day lists and ranges, `daily`, `hourly`). */
function nextRuns(schedule: string, fromSec: number, count: number): number[] {
  const s = schedule.trim().toLowerCase();
  const days = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
  let dayOk: (d: number) => boolean = () => true;
  let times: Array<[number, number]> = [[0, 0]];
  const m = /^(?:([a-z.,]+)\s+)?(\d{1,2}):(\d{2})$/.exec(s);
  if (s === 'hourly') times = Array.from({ length: 24 }, (_, h) => [h, 0]);
  else if (s === 'daily') times = [[0, 0]];
  else if (m) {
    times = [[Number(m[2]), Number(m[3])]];
    if (m[1]) {
      const allowed = new Set<number>();
      for (const part of m[1].split(',')) {
        const [a, b] = part.split('..').map((x) => days.indexOf(x));
        if (a === undefined || a < 0) throw fail(`unable to parse calendar event '${schedule}'`);
        for (let d = a; d <= (b !== undefined && b >= 0 ? b : a); d++) allowed.add(d);
      }
      dayOk = (d) => allowed.has(d);
    }
  } else if (!/^\*|^\d/.test(s)) throw fail(`unable to parse calendar event '${schedule}'`);
  const out: number[] = [];
  for (let day = Math.floor(fromSec / 86400); out.length < count && day < Math.floor(fromSec / 86400) + 400; day++) {
    if (!dayOk(new Date(day * 86400000).getUTCDay())) continue;
    for (const [h, min] of times) {
      const t = day * 86400 + h * 3600 + min * 60;
      if (t > fromSec && out.length < count) out.push(t);
    }
  }
  return out;
}

export function clusterReadEndpoints(state: ClusterState): SimEndpoint[] {
  const nodes = () => [...state.nodes.values()];
  const totem = () => ({
    version: 2,
    cluster_name: state.clusterName,
    config_version: nodes().length + 2,
    ip_version: 'ipv4-6',
    secauth: 'on',
    link_mode: 'passive',
    interface: { 0: { linknumber: 0 } },
  });
  return [
    {
      method: 'GET',
      path: '/cluster',
      description: 'Cluster-wide sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () =>
        [
          'acme',
          'backup',
          'backup-info',
          'bulk-action',
          'ceph',
          'config',
          'firewall',
          'ha',
          'jobs',
          'log',
          'mapping',
          'metrics',
          'nextid',
          'notifications',
          'options',
          'replication',
          'resources',
          'sdn',
          'status',
          'tasks',
        ].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/config',
      description: 'Cluster configuration sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => ['apiversion', 'join', 'nodes', 'qdevice', 'totem'].map((name) => ({ name })),
    },
    {
      method: 'GET',
      path: '/cluster/config/apiversion',
      description: 'Version of the cluster join API this node speaks.',
      parameters: {},
      returns: INTEGER,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => 1,
    },
    {
      method: 'GET',
      path: '/cluster/config/nodes',
      description: 'Nodes in the corosync configuration with their votes and ring addresses.',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => (state.clusterName ? nodes().map((n) => ({ node: n.name, name: n.name, nodeid: String(n.nodeid), quorum_votes: '1', ring0_addr: n.ip })) : []),
    },
    {
      method: 'GET',
      path: '/cluster/config/join',
      description: 'What a new node needs to join: node list with fingerprints, totem settings, config digest.',
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        if (!state.clusterName) throw fail('node is not in a cluster, no join info available!');
        const nodelist = nodes().map((n) => ({ name: n.name, nodeid: String(n.nodeid), pve_addr: n.ip, pve_fp: n.sslFingerprint, quorum_votes: '1', ring0_addr: n.ip }));
        return { nodelist, preferred_node: nodes()[0]?.name, totem: totem(), config_digest: digestOf(nodelist) };
      },
    },
    {
      method: 'GET',
      path: '/cluster/config/totem',
      description: 'The corosync totem settings.',
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => (state.clusterName ? totem() : {}),
    },
    {
      method: 'GET',
      path: '/cluster/config/qdevice',
      description: 'Status of the external quorum device (none configured).',
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: () => ({}),
    },
    {
      method: 'GET',
      path: '/cluster/log',
      description: 'Recent entries of the cluster log: task starts and ends on every node, newest first.',
      parameters: { max: opt(int('Entries to return at most.')) },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const max = Number(ctx.params.max ?? 50);
        return state.tasks
          .listAll()
          .slice(0, max)
          .map((t, i) => ({
            uid: i + 1,
            time: t.endtime ?? t.starttime,
            node: t.node,
            pid: t.pid,
            user: t.user,
            tag: 'pvedaemon',
            pri: t.exitstatus && t.exitstatus !== 'OK' ? 3 : 6,
            msg: `${t.endtime !== undefined ? 'end' : 'starting'} task ${t.upid}${t.exitstatus ? ` ${t.exitstatus}` : ''}`,
            id: `${t.node}:${t.pid}`,
          }));
      },
    },
    {
      method: 'GET',
      path: '/cluster/ha',
      description: 'HA sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => ['groups', 'resources', 'rules', 'status'].map((id) => ({ id })),
    },
    {
      method: 'GET',
      path: '/cluster/ha/groups',
      description: 'HA groups (PVE 9 keeps node preferences as node-affinity rules, so there are none).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => [],
    },
    {
      method: 'GET',
      path: '/cluster/ha/status/manager_status',
      description: "The HA manager's internal state: master, node states and the service table.",
      parameters: {},
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => {
        const master = nodes().find((n) => n.online)?.name;
        const service_status: Json = {};
        for (const r of state.haResources.values()) {
          const g = state.guests.get(Number(r.sid.split(':')[1]));
          if (g) service_status[r.sid] = { node: g.node, state: g.status === 'running' ? 'started' : 'stopped', running: g.status === 'running' ? 1 : 0, uid: digestOf(r.sid).slice(0, 22) };
        }
        return {
          manager_status: { master_node: master, node_status: Object.fromEntries(nodes().map((n) => [n.name, n.online ? 'online' : 'unknown'])), service_status, timestamp: state.nowSec() },
          quorum: { node: master, quorate: '1' },
          lrm_status: Object.fromEntries(nodes().map((n) => [n.name, { mode: 'active', state: 'active', timestamp: state.nowSec() }])),
        };
      },
    },
    {
      method: 'GET',
      path: '/cluster/backup/{id}/included_volumes',
      description: 'The guests a backup job selects, each with its disks and whether they are backed up.',
      parameters: { id: str('Identifier of the object.', { maxLength: 50 }) },
      returns: OBJ,
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: (ctx) => {
        const job = state.backupJobs.get(reqStr(ctx, 'id'));
        if (!job) throw fail(`job '${reqStr(ctx, 'id')}' not found`);
        return includedVolumes(state, job);
      },
    },
    {
      method: 'GET',
      path: '/cluster/jobs',
      description: 'Job sections (directory index).',
      parameters: {},
      returns: LIST,
      permissions: { user: 'all' },
      handler: () => ['realm-sync', 'schedule-analyze'].map((subdir) => ({ subdir })),
    },
    {
      method: 'GET',
      path: '/cluster/jobs/realm-sync',
      description: 'Scheduled realm syncs (none: the realms are pam and pve).',
      parameters: {},
      returns: LIST,
      permissions: { check: perm('/', ['Sys.Audit']) },
      handler: () => [],
    },
    {
      method: 'GET',
      path: '/cluster/jobs/schedule-analyze',
      description: 'The next times a calendar schedule (as backup jobs use) fires, to check what a schedule means.',
      parameters: {
        schedule: str('Calendar event to evaluate, e.g. daily or mon..fri 02:00.', { format: 'pve-calendar-event', maxLength: 128 }),
        iterations: opt(int('How many times to list.')),
        starttime: opt(int('Start from this epoch second.')),
      },
      returns: LIST,
      permissions: { user: 'all' },
      handler: (ctx) => {
        const iterations = Number(ctx.params.iterations ?? 10);
        const start = Number(ctx.params.starttime ?? state.nowSec());
        return nextRuns(reqStr(ctx, 'schedule'), start, iterations).map((t) => ({ timestamp: t, utc: new Date(t * 1000).toUTCString() }));
      },
    },
    {
      method: 'GET',
      path: '/storage/{storage}',
      description: 'One storage definition of the datacenter configuration.',
      parameters: { storage: P.storage },
      returns: OBJ,
      permissions: { check: perm('/storage/{storage}', ['Datastore.Allocate']) },
      handler: (ctx) => {
        const s = state.storages.get(reqStr(ctx, 'storage'));
        if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
        return {
          storage: s.storage,
          type: s.type,
          content: s.content.join(','),
          ...(s.shared ? { shared: 1 } : {}),
          ...(s.nodes ? { nodes: s.nodes.join(',') } : {}),
          ...(s.disabled ? { disable: 1 } : {}),
          ...s.props,
          digest: digestOf(s),
        };
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/rrd',
      description: 'A chart of storage usage as a PNG file name (the file itself is not served).',
      parameters: {
        node: P.node,
        storage: P.storage,
        ds: str('Data sources to draw, comma-separated.', { format: 'pve-configid-list' }),
        timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year'] }),
      },
      returns: OBJ,
      permissions: { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => ({ filename: `/var/lib/rrdcached/db/pve-storage-9.0/${reqStr(ctx, 'node')}/${reqStr(ctx, 'storage')}.png` }),
    },
    {
      method: 'GET',
      path: '/nodes/{node}/storage/{storage}/rrddata',
      description: 'Usage of a storage on a node over time, ending at its current usage.',
      parameters: { node: P.node, storage: P.storage, timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year'] }) },
      returns: LIST,
      permissions: { check: perm('/storage/{storage}', ['Datastore.Audit', 'Datastore.AllocateSpace'], 'any', 1) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const node = reqStr(ctx, 'node');
        const s = state.storageOn(reqStr(ctx, 'storage'), node);
        if (!s) throw fail(`storage '${reqStr(ctx, 'storage')}' does not exist`);
        const used = state.storageUsage().get(state.storageKey(s, node)) ?? 0;
        const step = reqStr(ctx, 'timeframe') === 'hour' ? 60 : 1800;
        const end = Math.floor(state.nowSec() / step) * step;
        return Array.from({ length: 70 }, (_, k) => ({ time: end - (69 - k) * step, total: s.total, used: Math.max(0, Math.floor(used * (1 - (69 - k) * 0.0005))) }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/network/{iface}',
      description: 'One network interface of a node.',
      parameters: { node: P.node, iface: str('The iface asked for.', { format: 'pve-iface', maxLength: 20 }) },
      returns: OBJ,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      handler: (ctx) => {
        const n = state.node(reqStr(ctx, 'node'));
        const i = shownInterfaces(state, n).find((x) => x.iface === reqStr(ctx, 'iface'));
        if (!i) throw fail(`network interface '${reqStr(ctx, 'iface')}' does not exist`);
        return { ...i, ...(i.type === 'eth' ? { exists: 1 } : {}) };
      },
    },
  ];
}
