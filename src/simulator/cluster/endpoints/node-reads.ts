/**
 * What a node tells about itself beyond status: services, syslog and journal, time, DNS, hosts,
 * packages and repositories, subscription, the system report, QEMU capabilities, PCI/USB
 * hardware, disks (from the storages it holds), storage scans, certificates, node options,
 * RRD series (from the same metrics its status reports), replication, appliance templates,
 * backup defaults. Everything is derived from the node record, the storages and the guests.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { guestRuntime, nodeRuntime } from '../metrics.js';
import { noise } from '../prng.js';
import { fail } from '../errors.js';
import type { ClusterState } from '../state.js';
import type { Guest, SimNode } from '../types.js';
import { optInt, optStr, reqStr } from './params.js';
import { int, ITEMS, LIST, OBJ, opt, P, perm, str, TEXT } from './schema.js';

type Json = Record<string, unknown>;
const GiB = 1024 ** 3;

/** Seconds between points and number of points for each RRD time frame, as PVE's RRAs. */
const FRAMES: Record<string, [step: number, points: number]> = {
  hour: [60, 70],
  day: [1800, 70],
  week: [10800, 70],
  month: [43200, 70],
  year: [604800, 70],
  decade: [6048000, 70],
};

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

/** Node and guest series: each point from the same formulas as the current status, at that time. */
export function nodeSeries(state: ClusterState, node: SimNode, frame: string): Json[] {
  const [step, points] = FRAMES[frame] ?? [60, 70];
  const now = state.nowSec();
  const end = Math.floor(now / step) * step;
  const guests = state.guestsOn(node.name);
  const out: Json[] = [];
  for (let k = points - 1; k >= 0; k--) {
    const t = end - k * step;
    if (t * 1000 < node.bootedAt || !node.online) {
      out.push({ time: t });
      continue;
    }
    let mem = 0;
    let cores = 0;
    let netin = 0;
    let netout = 0;
    for (const g of guests) {
      if (g.status !== 'running' || g.startedAt > t * 1000) continue;
      const rt = guestRuntime(g, node, t * 1000);
      mem += rt.mem;
      cores += rt.cpu * rt.cpus;
      netin += rt.netin / Math.max(1, rt.uptime);
      netout += rt.netout / Math.max(1, rt.uptime);
    }
    const rt = nodeRuntime(node, mem, cores, t * 1000);
    out.push({
      time: t,
      cpu: rt.cpu,
      maxcpu: node.maxcpu,
      iowait: Math.round(rt.cpu * 0.05 * 1e4) / 1e4,
      loadavg: Math.round(rt.cpu * node.maxcpu * 100) / 100,
      memtotal: node.maxmem,
      memused: rt.mem,
      swaptotal: 8 * GiB,
      swapused: Math.floor(GiB * 0.1 * noise(node.nodeid, 3)),
      roottotal: node.rootfsTotal,
      rootused: rt.rootfsUsed,
      netin: Math.round(netin),
      netout: Math.round(netout),
    });
  }
  return out;
}

export function guestSeries(state: ClusterState, g: Guest, frame: string): Json[] {
  const [step, points] = FRAMES[frame] ?? [60, 70];
  const node = state.node(g.node);
  const end = Math.floor(state.nowSec() / step) * step;
  const out: Json[] = [];
  for (let k = points - 1; k >= 0; k--) {
    const t = end - k * step;
    const running = g.status === 'running' && g.startedAt <= t * 1000;
    const rt = guestRuntime(running ? g : { ...g, status: 'stopped' }, node, t * 1000);
    const rate = (v: number) => (running ? Math.round(v / Math.max(1, rt.uptime)) : 0);
    out.push({ time: t, cpu: rt.cpu, maxcpu: rt.cpus, mem: rt.mem, maxmem: rt.maxmem, disk: rt.disk, maxdisk: rt.maxdisk, netin: rate(rt.netin), netout: rate(rt.netout), diskread: rate(rt.diskread), diskwrite: rate(rt.diskwrite) });
  }
  return out;
}


export function nodeReadEndpoints(state: ClusterState): SimEndpoint[] {
  const node = (ctx: SimRequestContext): SimNode => state.node(reqStr(ctx, 'node'));
  const lines = (ctx: SimRequestContext, all: string[]): Json[] => {
    const start = optInt(ctx, 'start') ?? 0;
    const limit = optInt(ctx, 'limit') ?? 50;
    ctx.setTotal(all.length);
    return all.slice(start, start + limit).map((t, i) => ({ n: start + i + 1, t }));
  };
  const index = (names: string[]) => names.map((name) => ({ name }));

  return [
    {
      method: 'GET', path: '/nodes/{node}/services',
      description: 'System services of the node and whether each runs.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        return SERVICES.map(([name, desc, c]) => serviceView(state, n, name, desc, c));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/services/{service}',
      description: 'Actions on one service (directory index).',
      parameters: { node: P.node, service: str('Service name.', { enum: ['chrony', 'corosync', 'cron', 'ksmtuned', 'lxcfs', 'postfix', 'proxmox-firewall', 'pve-cluster', 'pve-firewall', 'pve-ha-crm', 'pve-ha-lrm', 'pve-lxc-syscalld', 'pvedaemon', 'pvefw-logger', 'pveproxy', 'pvescheduler', 'pvestatd', 'qmeventd', 'spiceproxy', 'sshd', 'syslog', 'systemd-journald', 'systemd-timesyncd'] }) }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) },
      handler: (ctx) => {
        node(ctx);
        const svc = reqStr(ctx, 'service');
        if (!SERVICES.some(([n]) => n === svc)) throw fail(`service '${svc}' unknown`);
        return ['reload', 'restart', 'start', 'state', 'stop'].map((subdir) => ({ subdir }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/services/{service}/state',
      description: 'State of one service.',
      parameters: { node: P.node, service: str('Service name.', { enum: ['chrony', 'corosync', 'cron', 'ksmtuned', 'lxcfs', 'postfix', 'proxmox-firewall', 'pve-cluster', 'pve-firewall', 'pve-ha-crm', 'pve-ha-lrm', 'pve-lxc-syscalld', 'pvedaemon', 'pvefw-logger', 'pveproxy', 'pvescheduler', 'pvestatd', 'qmeventd', 'spiceproxy', 'sshd', 'syslog', 'systemd-journald', 'systemd-timesyncd'] }) }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const svc = SERVICES.find(([name]) => name === reqStr(ctx, 'service'));
        if (!svc) throw fail(`service '${reqStr(ctx, 'service')}' unknown`);
        return serviceView(state, n, ...svc);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/syslog',
      description: 'The node\'s system log as numbered lines, optionally of one service or a time window.',
      parameters: { node: P.node, start: opt(int('First line to return.')), limit: opt(int('Lines to return at most.')), since: opt(str('Only lines since this time (YYYY-MM-DD HH:MM:SS).')), until: opt(str('Only lines until this time (YYYY-MM-DD HH:MM:SS).')), service: opt(str('Only lines of this service.')) }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const since = optStr(ctx, 'since');
        const until = optStr(ctx, 'until');
        const svc = optStr(ctx, 'service');
        const from = since ? Date.parse(since.replace(' ', 'T') + 'Z') / 1000 : 0;
        const to = until ? Date.parse(until.replace(' ', 'T') + 'Z') / 1000 : Infinity;
        const all = nodeLog(state, n).filter(([t, l]) => t >= from && t <= to && (!svc || l.includes(` ${svc}[`) || l.includes(`${svc}.service`))).map(([t, l]) => `${stamp(t)} ${l}`);
        return lines(ctx, all);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/journal',
      description: 'The node\'s journal, newest last; lastentries limits the count.',
      parameters: { node: P.node, lastentries: opt(int('Only the last this many entries.')) }, returns: ITEMS, permissions: { check: perm('/nodes/{node}', ['Sys.Syslog']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const last = optInt(ctx, 'lastentries');
        const all = nodeLog(state, n).map(([t, l]) => `${stamp(t, true)} ${l}`);
        return last !== undefined ? all.slice(-last) : all.slice(-500);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/time',
      description: 'The node\'s clock and time zone.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const time = state.nowSec();
        return { time, localtime: time + 3600, timezone: 'Europe/Vienna' };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/dns',
      description: 'Name servers and search domain the node resolves with.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        return { search: 'example.org', dns1: '10.0.0.1', dns2: '9.9.9.9' };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/hosts',
      description: 'The node\'s /etc/hosts, with the digest to change it safely.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const data = ['127.0.0.1 localhost.localdomain localhost', ...[...state.nodes.values()].map((m) => `${m.ip} ${m.name}.example.org ${m.name}`), '', '::1 ip6-localhost ip6-loopback', ''].join('\n');
        void n;
        return { data, digest: createHash('sha1').update(data).digest('hex') };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/subscription',
      description: 'Subscription status of the node (the simulated nodes run without one).',
      parameters: { node: P.node }, returns: OBJ, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        return n.level ? { status: 'active', level: n.level, productname: 'Proxmox VE Community Subscription', sockets: n.sockets, serverid: n.sslFingerprint.replace(/:/g, '').slice(0, 32), checktime: state.nowSec() - 86400 } : { status: 'notfound', message: 'There is no subscription key', serverid: n.sslFingerprint.replace(/:/g, '').slice(0, 32), sockets: n.sockets };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/report',
      description: 'A system report of the node as text: versions, storage, network, guests.',
      parameters: { node: P.node }, returns: TEXT, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const guests = state.guestsOn(n.name);
        return [
          `==== general system info ====`,
          `# hostname\n${n.name}`,
          `# pveversion --verbose\nproxmox-ve: ${state.version.version} (running kernel: ${n.kernel})\npve-manager: ${state.version.version} (running version: ${state.version.version}/${state.version.repoid})`,
          `==== storage ====`,
          `# pvesm status\n${[...state.storages.values()].map((s) => `${s.storage} ${s.type} ${s.disabled ? 'disabled' : 'active'}`).join('\n')}`,
          `==== network ====`,
          `# ip -details -statistics address\n${n.interfaces.map((i) => `${i.iface}: ${i.cidr ?? 'no address'}`).join('\n')}`,
          `==== virtual guests ====`,
          `# qm list / pct list\n${guests.map((g) => `${g.vmid} ${g.type} ${String(g.config.name ?? g.config.hostname ?? '')} ${g.status}`).join('\n')}`,
          '',
        ].join('\n\n');
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/certificates',
      description: 'Certificate sections (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), index(['acme', 'custom', 'info'])),
    },
    {
      method: 'GET', path: '/nodes/{node}/certificates/acme',
      description: 'ACME certificate actions (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), index(['certificate'])),
    },
    {
      method: 'GET', path: '/nodes/{node}/certificates/info',
      description: 'The node\'s certificates: the cluster CA and the node certificate pveproxy serves.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const boot = Math.floor(n.bootedAt / 1000) - 200 * 86400;
        return [
          { filename: 'pve-root-ca.pem', subject: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA', issuer: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA', notbefore: boot, notafter: boot + 3650 * 86400, 'public-key-type': 'rsaEncryption', 'public-key-bits': 4096, fingerprint: n.sslFingerprint.split(':').reverse().join(':') },
          { filename: 'pve-ssl.pem', subject: `/OU=PVE Cluster Node/O=Proxmox Virtual Environment/CN=${n.name}.example.org`, issuer: '/CN=Proxmox Virtual Environment/OU=cluster/O=PVE Cluster Manager CA', notbefore: boot, notafter: boot + 730 * 86400, 'public-key-type': 'rsaEncryption', 'public-key-bits': 2048, fingerprint: n.sslFingerprint, san: ['127.0.0.1', '0:0:0:0:0:0:0:1', 'localhost', n.ip, n.name, `${n.name}.example.org`] },
        ];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/config',
      description: 'Node options (description, wake-on-LAN, start-up delay) with their digest.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const cfg = { description: `Rack A, unit ${n.nodeid * 2}`, 'startall-onboot-delay': 0 };
        return { ...cfg, digest: createHash('sha1').update(JSON.stringify(cfg)).digest('hex') };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/netstat',
      description: 'Network traffic counters of the running guests\' interfaces on the node.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        const n = node(ctx);
        const out: Json[] = [];
        for (const g of state.guestsOn(n.name)) {
          if (g.status !== 'running') continue;
          const rt = guestRuntime(g, n, state.now());
          for (const key of Object.keys(g.config).filter((k) => /^net\d+$/.test(k))) {
            out.push({ vmid: String(g.vmid), dev: `${g.type === 'qemu' ? 'tap' : 'veth'}${g.vmid}i${key.slice(3)}`, in: String(rt.netout), out: String(rt.netin) });
          }
        }
        return out;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/rrd',
      description: 'A chart of node series as a PNG file name (the file itself is not served).',
      parameters: { node: P.node, ds: str('Data sources to draw, comma-separated.', { format: 'pve-configid-list' }), timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year', 'decade'] }) }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, protected: true,
      handler: (ctx) => (node(ctx), { filename: `/var/lib/rrdcached/db/pve-node-9.0/${reqStr(ctx, 'node')}-${optStr(ctx, 'timeframe') ?? 'hour'}.png` }),
    },
    {
      method: 'GET', path: '/nodes/{node}/rrddata',
      description: 'Time series of the node (CPU, memory, load, network, root disk), from the same figures as its status.',
      parameters: { node: P.node, timeframe: str('Time span the series covers.', { enum: ['hour', 'day', 'week', 'month', 'year', 'decade'] }) }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, protected: true,
      handler: (ctx) => nodeSeries(state, node(ctx), reqStr(ctx, 'timeframe')),
    },
    {
      method: 'GET', path: '/nodes/{node}/aplinfo',
      description: 'Appliance templates the node can download for containers.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        return [['debian-13-standard_13.1-2_amd64.tar.zst', 'debian-13-standard', 'Debian 13 (standard)', 'system'], ['ubuntu-24.04-standard_24.04-2_amd64.tar.zst', 'ubuntu-24.04-standard', 'Ubuntu 24.04 (standard)', 'system'], ['alpine-3.22-default_20250617_amd64.tar.xz', 'alpine-3.22-default', 'Alpine Linux 3.22', 'system']].map(([template, pkg, headline, section]) => ({ template, package: pkg, headline, section, type: 'lxc', os: String(pkg).split('-')[0], version: String(template).split('_')[1], location: `http://download.proxmox.com/images/system/${template}`, source: 'http://download.proxmox.com/images/system', infopage: 'https://www.proxmox.com', sha512sum: createHash('sha512').update(String(template)).digest('hex'), maintainer: 'Proxmox Support Team <support@proxmox.com>', description: `${headline} template` }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/query-oci-repo-tags',
      description: 'Tags of an OCI image repository (from a fixed list; nothing is fetched).',
      parameters: { node: P.node, reference: str('The reference asked for.') }, returns: ITEMS, permissions: { check: perm('/nodes/{node}', ['Sys.AccessNetwork']) }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const ref = reqStr(ctx, 'reference');
        const host = ref.split('/')[0] ?? '';
        if (/\.(invalid|test|example|local)$/.test(host)) throw fail(`failed to query tags of '${ref}': Name or service not known`);
        return ['latest', 'stable', 'trixie', 'bookworm', '13', '12'];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/vzdump/defaults',
      description: 'The backup options a vzdump on this node starts from (node defaults and a storage\'s retention).',
      parameters: { node: P.node, storage: opt(str('Storage whose retention to include.', { format: 'pve-storage-id' })) }, returns: OBJ, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const storage = optStr(ctx, 'storage');
        const s = storage ? state.storages.get(storage) : undefined;
        if (storage && !s) throw fail(`storage '${storage}' does not exist`);
        return { mode: 'snapshot', compress: 'zstd', ionice: 7, lockwait: 180, stopwait: 10, ...(storage ? { 'notes-template': '{{guestname}}' } : {}), ...(s?.props['prune-backups'] ? { 'prune-backups': String(s.props['prune-backups']) } : {}), ...(storage ? { storage } : {}) };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/vzdump/extractconfig',
      description: 'The guest configuration saved in a backup archive, as text.',
      parameters: { node: P.node, volume: str('The volume asked for.') }, returns: TEXT, permissions: { user: 'all' }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const volid = reqStr(ctx, 'volume');
        const v = state.volumes.find((x) => x.volid === volid && x.content === 'backup');
        if (!v) throw fail(`volume '${volid}' does not exist`);
        const cfg = v.config ?? (v.vmid !== undefined ? state.guests.get(v.vmid)?.config : undefined) ?? {};
        return `${Object.entries(cfg).map(([k, val]) => `${k}: ${String(val)}`).join('\n')}\n`;
      },
    },
  ];
}


