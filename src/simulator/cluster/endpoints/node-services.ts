/**
 * A node's system services and its logs: the services PVE's host runs and whether each is up, and
 * the syslog and journal, written from the node's record (boots, daemon starts), its tasks and the
 * replication runner's hourly check.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { SimNode } from '../types.js';
import { optInt, optStr, reqStr } from './params.js';
import { arr, int, ITEMS, LIST, obj, opt, P, perm, str } from './schema.js';

type Json = Record<string, unknown>;

export const SERVICES: ReadonlyArray<[name: string, desc: string, cluster: boolean]> = [
  ['chrony', 'time synchronisation daemon', false],
  ['corosync', 'cluster membership and messaging engine', true],
  ['cron', 'periodic job scheduler', false],
  ['ksmtuned', 'kernel same-page merging tuner', false],
  ['postfix', 'mail transfer agent', false],
  ['pve-cluster', 'cluster file system (pmxcfs)', false],
  ['pve-firewall', 'firewall daemon', false],
  ['pve-ha-crm', 'HA cluster resource manager', false],
  ['pve-ha-lrm', 'HA local resource manager', false],
  ['pvedaemon', 'API daemon', false],
  ['pvefw-logger', 'firewall logger', false],
  ['pveproxy', 'API proxy and web interface', false],
  ['pvescheduler', 'job scheduler for backups and replication', false],
  ['pvestatd', 'status daemon', false],
  ['spiceproxy', 'SPICE console proxy', false],
  ['sshd', 'secure shell server', false],
  ['syslog', 'system logging', false],
  ['systemd-journald', 'journal service', false],
  ['systemd-timesyncd', 'simple time synchronisation (off while chrony runs)', false],
];

/** The services PVE's schema lets these reads name (more than the simulated node runs: SERVICES). */
const SERVICE_PARAM = str('Service name.', {
  enum: [
    'chrony',
    'corosync',
    'cron',
    'ksmtuned',
    'lxcfs',
    'postfix',
    'proxmox-firewall',
    'pve-cluster',
    'pve-firewall',
    'pve-ha-crm',
    'pve-ha-lrm',
    'pve-lxc-syscalld',
    'pvedaemon',
    'pvefw-logger',
    'pveproxy',
    'pvescheduler',
    'pvestatd',
    'qmeventd',
    'spiceproxy',
    'sshd',
    'syslog',
    'systemd-journald',
    'systemd-timesyncd',
  ],
});

/** One system service as the service list and its state read report it. */
const SERVICE = obj({
  service: str('Service name, as the path names it.'),
  name: str('Unit name.'),
  desc: str('What the service is.'),
  state: str('Whether it runs: running, or dead when stopped.'),
  'active-state': str('systemd active state (active, inactive…).'),
  'unit-state': str('Whether it starts at boot: enabled or disabled.'),
});

export function serviceView(state: ClusterState, _node: SimNode, name: string, desc: string, cluster: boolean): Json {
  const off = name === 'systemd-timesyncd' || (cluster && !state.clusterName);
  return {
    service: name,
    name,
    desc: `Proxmox host ${desc}`,
    state: off ? 'dead' : 'running',
    'active-state': off ? 'inactive' : 'active',
    'unit-state': off ? 'disabled' : 'enabled',
  };
}

/** A log as a node writes it: boots, daemon starts, the node's tasks, guest starts, ordered by time. */
function nodeLog(state: ClusterState, node: SimNode): Array<[number, string]> {
  const host = node.name;
  const boot = Math.floor(node.bootedAt / 1000);
  const lines: Array<[number, string]> = [[boot, `${host} kernel: Linux version ${node.kernel} (build@proxmox) #1 SMP PREEMPT_DYNAMIC PMX`]];
  SERVICES.forEach(([name, desc], i) => lines.push([boot + 5 + i, `${host} systemd[1]: Started ${name}.service - Proxmox host ${desc}.`]));
  for (const t of state.tasks.listNode(host).slice(0, 200)) {
    lines.push([t.starttime, `${host} pvedaemon[${t.pid}]: <${t.user}> starting task ${t.upid}`]);
    if (t.endtime !== undefined) lines.push([t.endtime, `${host} pvedaemon[${t.pid}]: <${t.user}> end task ${t.upid} ${t.exitstatus ?? 'OK'}`]);
  }
  const now = state.nowSec();
  for (let t = Math.ceil(boot / 3600) * 3600; t < now; t += 3600) lines.push([t, `${host} pvescheduler[${1000 + (t % 9000)}]: replication runner checked its jobs`]);
  return lines.sort((a, b) => a[0] - b[0]);
}

function stamp(sec: number, iso = false): string {
  const d = new Date(sec * 1000);
  if (iso) return d.toISOString().replace(/\.\d+Z$/, '+0000');
  return `${d.toUTCString().slice(8, 11)} ${String(d.getUTCDate()).padStart(2, ' ')} ${d.toISOString().slice(11, 19)}`;
}

export function nodeServiceEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const lines = (ctx: SimRequestContext, all: string[]): Json[] => {
    const start = optInt(ctx, 'start') ?? 0;
    const limit = optInt(ctx, 'limit') ?? 50;
    ctx.setTotal(all.length);
    return all.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
  };

  return [
    {
      method: 'GET',
      path: '/nodes/{node}/services',
      description: 'System services of the node and whether each runs.',
      parameters: { node: P.node },
      returns: arr(SERVICE),
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        return SERVICES.map(([name, desc, c]) => serviceView(state, n, name, desc, c));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/services/{service}',
      description: 'Actions on one service (directory index).',
      parameters: {
        node: P.node,
        service: SERVICE_PARAM,
      },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      handler: (ctx) => {
        node(ctx);
        const svc = reqStr(ctx, 'service');
        if (!SERVICES.some(([n]) => n === svc)) throw fail(`service '${svc}' unknown`);
        return ['reload', 'restart', 'start', 'state', 'stop'].map((subdir) => ({ subdir }));
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/services/{service}/state',
      description: 'Whether one system service of the node is running, and whether it is enabled.',
      parameters: {
        node: P.node,
        service: SERVICE_PARAM,
      },
      returns: SERVICE,
      permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const svc = SERVICES.find(([name]) => name === reqStr(ctx, 'service'));
        if (!svc) throw fail(`service '${reqStr(ctx, 'service')}' unknown`);
        return serviceView(state, n, ...svc);
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/syslog',
      description: "The node's system log as numbered lines, optionally of one service or a time window.",
      parameters: {
        node: P.node,
        start: opt(int('First line to return.')),
        limit: opt(int('Lines to return at most.')),
        since: opt(str('Only lines since this time (YYYY-MM-DD HH:MM:SS).')),
        until: opt(str('Only lines until this time (YYYY-MM-DD HH:MM:SS).')),
        service: opt(str('Only lines of this service.')),
      },
      returns: LIST,
      permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const since = optStr(ctx, 'since');
        const until = optStr(ctx, 'until');
        const svc = optStr(ctx, 'service');
        const from = since ? Date.parse(since.replace(' ', 'T') + 'Z') / 1000 : 0;
        const to = until ? Date.parse(until.replace(' ', 'T') + 'Z') / 1000 : Infinity;
        const all = nodeLog(state, n)
          .filter(([t, l]) => t >= from && t <= to && (!svc || l.includes(` ${svc}[`) || l.includes(`${svc}.service`)))
          .map(([t, l]) => `${stamp(t)} ${l}`);
        return lines(ctx, all);
      },
    },
    {
      method: 'GET',
      path: '/nodes/{node}/journal',
      description: "Entries of the node's system journal (what journalctl shows), newest last; lastentries limits the count.",
      parameters: { node: P.node, lastentries: opt(int('Only the last this many entries.')) },
      returns: ITEMS,
      permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) },
      proxyto: 'node',
      protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const last = optInt(ctx, 'lastentries');
        const all = nodeLog(state, n).map(([t, l]) => `${stamp(t, true)} ${l}`);
        return last !== undefined ? all.slice(-last) : all.slice(-500);
      },
    },
  ];
}
