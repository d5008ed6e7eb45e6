/**
 * What a node tells about itself beyond status: services, syslog and journal, time, DNS, hosts,
 * packages and repositories, subscription, the system report, QEMU capabilities, PCI/USB
 * hardware, disks (from the storages it holds), storage scans, certificates, node options,
 * RRD series (from the same metrics its status reports), replication, appliance templates,
 * backup defaults. Everything is derived from the node record, the storages and the guests.
 */
import { createHash } from 'node:crypto';
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { diskEntries } from '../guest-config.js';
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

/** The physical disks of a node: the boot SSDs and, on clusters, the Ceph OSD disks. */
export function nodeDisks(state: ClusterState, node: SimNode): Json[] {
  const serial = (k: number) => createHash('sha1').update(`${node.name}/${k}`).digest('hex').slice(0, 12).toUpperCase();
  const disks: Json[] = [
    { devpath: '/dev/nvme0n1', size: 1920 * 10 ** 9, model: 'SAMSUNG MZQL21T9HCJR-00A07', serial: serial(0), vendor: 'unknown', type: 'nvme', gpt: 1, mounted: 1, used: 'LVM', health: 'PASSED', wwn: `eui.${serial(0).toLowerCase()}`, osdid: -1, 'osdid-list': [], rpm: 0, wearout: 97 },
  ];
  if (state.storages.get('ceph')?.type === 'rbd') {
    for (let k = 0; k < 4; k++) {
      const osd = (node.nodeid - 1) * 4 + k;
      disks.push({ devpath: `/dev/sd${String.fromCharCode(97 + k)}`, size: 3840 * 10 ** 9, model: 'MZ7L33T8HBLT-00A07', serial: serial(k + 1), vendor: 'ATA', type: 'ssd', gpt: 1, mounted: 0, used: 'LVM', health: 'PASSED', wwn: `0x5002538${serial(k + 1).toLowerCase().slice(0, 9)}`, osdid: osd, 'osdid-list': [osd], rpm: 0, wearout: 99 - k });
    }
  }
  return disks;
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
  const pkgs = (n: SimNode): Json[] => {
    const v = state.version.version;
    const list: Array<[string, string, string]> = [
      ['proxmox-ve', v.replace(/\.\d+$/, '.0'), 'The Proxmox Virtual Environment meta package'],
      ['pve-manager', v, 'The Proxmox management tools and web interface'],
      ['proxmox-kernel-helper', '9.0.4', 'Kernel version helpers'],
      [`proxmox-kernel-${n.kernel.replace(/-pve$/, '')}-pve-signed`, n.kernel.replace(/-pve$/, ''), 'The running Proxmox kernel'],
      ['qemu-server', '9.0.23', 'QEMU guest management'],
      ['pve-container', '6.0.13', 'Container management'],
      ['pve-qemu-kvm', '10.1.2-1', 'QEMU with the Proxmox patches'],
      ['lxc-pve', '6.0.5-1', 'Linux containers userspace'],
      ['libpve-storage-perl', '9.0.13', 'Storage library'],
      ['pve-ha-manager', '5.0.5', 'High availability manager'],
      ['pve-firewall', '6.0.3', 'Firewall'],
      ['ceph-common', '19.2.3-pve2', 'Ceph client tools'],
      ['zfsutils-linux', '2.3.4-pve1', 'ZFS command-line tools'],
    ];
    return list.map(([Package, Version, Description]) => ({ Package, Version, Description, Title: Description, Arch: 'amd64', Origin: 'Proxmox', Priority: 'optional', Section: 'admin', CurrentState: 'Installed', ...(Package.startsWith('proxmox-kernel-') && Package.endsWith('signed') ? { RunningKernel: n.kernel } : {}), ...(Package === 'pve-manager' ? { ManagerVersion: v } : {}) }));
  };

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
      method: 'GET', path: '/nodes/{node}/apt',
      description: 'Package management sections (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        node(ctx);
        return ['changelog', 'repositories', 'update', 'versions'].map((id) => ({ id }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/apt/update',
      description: 'Package updates available to the node (none pending in the simulation).',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Modify']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        return [];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/apt/versions',
      description: 'Versions of the Proxmox packages installed on the node.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => pkgs(node(ctx)),
    },
    {
      method: 'GET', path: '/nodes/{node}/apt/changelog',
      description: 'Changelog of an installed package.',
      parameters: { node: P.node, name: str('Name of the object.') }, returns: TEXT, permissions: { check: perm('/nodes/{node}', ['Sys.Modify']) }, proxyto: 'node',
      handler: (ctx) => {
        const p = pkgs(node(ctx)).find((x) => x.Package === reqStr(ctx, 'name'));
        if (!p) throw fail(`changelog of '${reqStr(ctx, 'name')}' not found: no such package installed`);
        return `${String(p.Package)} (${String(p.Version)}) trixie; urgency=medium\n\n  * update to version ${String(p.Version)}\n\n -- Proxmox Support Team <support@proxmox.com>  ${new Date(state.nowSec() * 1000 - 20 * 86400000).toUTCString()}\n`;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/apt/repositories',
      description: 'APT repositories configured on the node and the standard ones it could add.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const repo = (uri: string, comps: string[], enabled: boolean) => ({ Types: ['deb'], URIs: [uri], Suites: ['trixie'], Components: comps, Enabled: enabled ? 1 : 0, FileType: 'sources' });
        const files = [
          { path: '/etc/apt/sources.list.d/debian.sources', 'file-type': 'sources', repositories: [repo('http://deb.debian.org/debian', ['main', 'contrib'], true)], digest: [1, 2, 3] },
          { path: '/etc/apt/sources.list.d/proxmox.sources', 'file-type': 'sources', repositories: [repo('http://download.proxmox.com/debian/pve', ['pve-no-subscription'], true)], digest: [4, 5, 6] },
        ];
        return {
          files,
          errors: [],
          digest: createHash('sha1').update(JSON.stringify(files)).digest('hex'),
          infos: [],
          'standard-repos': [
            { handle: 'enterprise', name: 'Enterprise', status: 0 },
            { handle: 'no-subscription', name: 'No-Subscription', status: 1 },
            { handle: 'test', name: 'Test' },
          ],
        };
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
      method: 'GET', path: '/nodes/{node}/capabilities',
      description: 'What the node can do (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['qemu'])),
    },
    {
      method: 'GET', path: '/nodes/{node}/capabilities/qemu',
      description: 'QEMU capabilities of the node (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['cpu', 'cpu-flags', 'machines', 'migration'])),
    },
    {
      method: 'GET', path: '/nodes/{node}/capabilities/qemu/cpu',
      description: 'CPU models guests on this node can use.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        const n = node(ctx);
        const vendor = /AMD/.test(n.cpuModel) ? 'AuthenticAMD' : 'GenuineIntel';
        return [
          { name: 'host', vendor, custom: 0 },
          { name: 'kvm64', vendor: 'default', custom: 0 },
          { name: 'qemu64', vendor: 'default', custom: 0 },
          { name: 'x86-64-v2-AES', vendor: 'default', custom: 0 },
          { name: 'x86-64-v3', vendor: 'default', custom: 0 },
          { name: 'x86-64-v4', vendor: 'default', custom: 0 },
          ...(vendor === 'AuthenticAMD' ? [{ name: 'EPYC-Genoa', vendor, custom: 0 }] : [{ name: 'SapphireRapids', vendor, custom: 0 }]),
        ];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/capabilities/qemu/cpu-flags',
      description: 'CPU flags guests may switch on or off on this node.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        node(ctx);
        return [['aes', 'Hardware AES'], ['md-clear', 'Speculation mitigation buffer clearing'], ['pcid', 'Process-context identifiers'], ['pdpe1gb', '1 GiB pages'], ['spec-ctrl', 'Speculation control'], ['ssbd', 'Speculative store bypass disable']].map(([name, description]) => ({ name, description }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/capabilities/qemu/machines',
      description: 'Machine types guests on this node can use.',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => {
        node(ctx);
        const out: Json[] = [];
        for (const v of ['10.1', '10.0', '9.2']) {
          out.push({ id: `pc-q35-${v}`, type: 'q35', version: v }, { id: `pc-i440fx-${v}`, type: 'i440fx', version: v });
          out.push({ id: `pc-q35-${v}+pve1`, type: 'q35', version: `${v}+pve1`, changes: 'a fixed device order' });
        }
        return out;
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/capabilities/qemu/migration',
      description: 'Migration features of the node\'s QEMU.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/nodes/{node}', ['Sys.Audit']) }, proxyto: 'node',
      handler: (ctx) => (node(ctx), { 'has-dbus-vmstate': 1 }),
    },
    {
      method: 'GET', path: '/nodes/{node}/hardware',
      description: 'Hardware of the node (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), [{ type: 'pci' }, { type: 'usb' }]),
    },
    {
      method: 'GET', path: '/nodes/{node}/hardware/pci',
      description: 'PCI devices of the node, as guests could be given them.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Sys.Modify'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => pciDevices(node(ctx)),
    },
    {
      method: 'GET', path: '/nodes/{node}/hardware/pci/{pci-id-or-mapping}',
      description: 'One PCI device (directory index).',
      parameters: { node: P.node, 'pci-id-or-mapping': str('The pci id or mapping asked for.') }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => {
        const n = node(ctx);
        const id = reqStr(ctx, 'pci-id-or-mapping');
        if (!pciDevices(n).some((d) => d.id === id || String(d.id).startsWith(`${id}.`))) throw fail(`PCI device '${id}' not found`);
        return [{ method: 'mdev' }];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/hardware/pci/{pci-id-or-mapping}/mdev',
      description: 'Mediated device types a PCI device offers (the GPU offers vGPU profiles).',
      parameters: { node: P.node, 'pci-id-or-mapping': str('The pci id or mapping asked for.') }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit', 'Sys.Modify'], 'any', 1) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        const id = reqStr(ctx, 'pci-id-or-mapping');
        const dev = pciDevices(n).find((d) => d.id === id || String(d.id).startsWith(`${id}.`));
        if (!dev) throw fail(`PCI device '${id}' not found`);
        if (!dev.mdev) return [];
        return [1, 2, 4].map((q) => ({ type: `nvidia-${560 + q}`, name: `A16-${16 / q}Q`, available: q * 2, description: `num_heads=4, frl_config=60, framebuffer=${16 / q}G` }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/hardware/usb',
      description: 'USB devices plugged into the node.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Modify']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        return [
          { busnum: 1, devnum: 2, port: 1, level: 1, class: 0, vendid: '0557', prodid: '2419', manufacturer: 'ATEN', product: 'Virtual Keyboard and Mouse', speed: '12', usbpath: '1-1' },
          { busnum: 2, devnum: 3, port: 4, level: 1, class: 0, vendid: '0781', prodid: '5583', manufacturer: 'SanDisk', product: 'Ultra Fit', serial: '4C530001171011116264', speed: '5000', usbpath: '2-4' },
        ];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/disks',
      description: 'Disk management sections (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' }, proxyto: 'node',
      handler: (ctx) => (node(ctx), index(['directory', 'list', 'lvm', 'lvmthin', 'smart', 'zfs'])),
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/list',
      description: 'Physical disks of the node and what uses them (LVM, Ceph OSD…).',
      parameters: { node: P.node, type: opt(str('Only disks of this kind, or unused ones.')) }, returns: LIST, permissions: { check: ['or', perm('/', ['Sys.Audit']), perm('/nodes/{node}', ['Sys.Audit'])] }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const type = optStr(ctx, 'type');
        return nodeDisks(state, node(ctx)).filter((d) => !type || (type === 'unused' ? !d.used : d.type === type));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/smart',
      description: 'SMART health of one disk.',
      parameters: { node: P.node, disk: str('The disk asked for.') }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const d = nodeDisks(state, node(ctx)).find((x) => x.devpath === reqStr(ctx, 'disk'));
        if (!d) throw fail(`no such disk '${reqStr(ctx, 'disk')}'`);
        return d.type === 'nvme' ? { health: 'PASSED', type: 'text', text: `Critical Warning: 0x00\nTemperature: 38 Celsius\nPercentage Used: ${100 - Number(d.wearout)}%\n` } : { health: 'PASSED', type: 'ata', attributes: [{ id: '  9', name: 'Power_On_Hours', value: 99, worst: 99, threshold: 0, fail: '-', flags: '-O--CK', raw: '12034', normalized: 99 }] };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/lvm',
      description: 'LVM volume groups of the node with their physical volumes.',
      parameters: { node: P.node }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const size = 1920 * 10 ** 9;
        return { leaf: 0, children: [{ name: 'pve', size, free: Math.floor(size * 0.02), leaf: 0, children: [{ name: '/dev/nvme0n1p3', size, free: Math.floor(size * 0.02), leaf: 1 }] }] };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/lvmthin',
      description: 'LVM thin pools of the node and how full they are (from the guest disks on them).',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const n = node(ctx);
        return [...state.storages.values()].filter((s) => s.type === 'lvmthin' && (!s.nodes || s.nodes.includes(n.name))).map((s) => {
          const used = state.storageUsage().get(state.storageKey(s, n.name)) ?? 0;
          return { lv: String(s.props.thinpool ?? 'data'), vg: String(s.props.vgname ?? 'pve'), lv_size: s.total, used, metadata_size: 16 * GiB / 1024, metadata_used: Math.floor((16 * GiB / 1024) * (used / s.total) * 0.5) };
        });
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/directory',
      description: 'Directory storages mounted from whole disks (none on these nodes).',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), []),
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/zfs',
      description: 'ZFS pools of the node: the mirrored boot pool.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), [zpool(node(ctx))]),
    },
    {
      method: 'GET', path: '/nodes/{node}/disks/zfs/{name}',
      description: 'Status of one ZFS pool with its vdevs.',
      parameters: { node: P.node, name: str('Name of the object.', { format: 'pve-storage-id' }) }, returns: OBJ, permissions: { check: perm('/', ['Sys.Audit']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        const p = zpool(node(ctx));
        if (reqStr(ctx, 'name') !== p.name) throw fail(`zpool '${reqStr(ctx, 'name')}' not found`);
        return { name: p.name, state: 'ONLINE', errors: 'No known data errors', scan: 'scrub repaired 0B in 00:01:12 with 0 errors', children: [{ name: p.name, state: 'ONLINE', read: 0, write: 0, cksum: 0, msg: '', children: [{ name: 'mirror-0', state: 'ONLINE', read: 0, write: 0, cksum: 0, msg: '', children: [{ name: 'nvme0n1p4', state: 'ONLINE', read: 0, write: 0, cksum: 0, msg: '' }] }] }] };
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan',
      description: 'Storage back ends the node can scan for (directory index).',
      parameters: { node: P.node }, returns: LIST, permissions: { user: 'all' },
      handler: (ctx) => (node(ctx), ['cifs', 'iscsi', 'lvm', 'lvmthin', 'nfs', 'pbs', 'zfs'].map((method) => ({ method }))),
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/nfs',
      description: 'Exports an NFS server offers (the storage server of the cluster answers).',
      parameters: { node: P.node, server: str('The server asked for.', { format: 'pve-storage-server' }) }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const server = reqStr(ctx, 'server');
        const nfs = [...state.storages.values()].filter((s) => s.type === 'nfs' && s.props.server === server);
        if (nfs.length === 0) throw fail(`command '/sbin/showmount --no-headers --exports ${server}' failed: exit code 1`);
        return nfs.map((s) => ({ path: String(s.props.export), options: '10.0.0.0/16' }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/cifs',
      description: 'Shares an SMB server offers (the storage server of the cluster answers).',
      parameters: { node: P.node, server: str('The server asked for.', { format: 'pve-storage-server' }) }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const server = reqStr(ctx, 'server');
        if (![...state.storages.values()].some((s) => s.props.server === server)) throw fail(`unable to connect to ${server}: NT_STATUS_HOST_UNREACHABLE`);
        return [{ share: 'backup', description: 'Backup share' }, { share: 'iso', description: 'Install media' }];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/pbs',
      description: 'Datastores of a Proxmox Backup Server (none is reachable from the simulated cluster).',
      parameters: { node: P.node, password: str('The password asked for.'), server: str('The server asked for.', { format: 'pve-storage-server' }), username: str('The username asked for.') }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        throw fail(`error fetching datastores - 500 Can't connect to ${reqStr(ctx, 'server')}:8007 (Connection refused)`);
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/iscsi',
      description: 'Targets an iSCSI portal offers (the storage server of the cluster answers).',
      parameters: { node: P.node, portal: str('The portal asked for.', { format: 'pve-storage-portal-dns' }) }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const portal = reqStr(ctx, 'portal');
        const host = portal.replace(/:\d+$/, '');
        if (![...state.storages.values()].some((s) => s.props.server === host)) throw fail(`iSCSI discovery of ${portal} failed: no route to host`);
        return [{ target: 'iqn.2005-10.org.freenas.ctl:pve', portal: `${host}:3260` }];
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/lvm',
      description: 'LVM volume groups on the node.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => (node(ctx), [{ vg: 'pve', size: 1920 * 10 ** 9, free: 38 * 10 ** 9 }]),
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/lvmthin',
      description: 'Thin pools in one volume group.',
      parameters: { node: P.node, vg: str('The vg asked for.', { maxLength: 100 }) }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => {
        node(ctx);
        const vg = reqStr(ctx, 'vg');
        return [...state.storages.values()].filter((s) => s.type === 'lvmthin' && s.props.vgname === vg).map((s) => ({ lv: String(s.props.thinpool), size: s.total }));
      },
    },
    {
      method: 'GET', path: '/nodes/{node}/scan/zfs',
      description: 'ZFS pools on the node.',
      parameters: { node: P.node }, returns: LIST, permissions: { check: perm('/storage', ['Datastore.Allocate']) }, proxyto: 'node', protected: true,
      handler: (ctx) => [{ pool: zpool(node(ctx)).name }],
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

function pciDevices(n: SimNode): Json[] {
  const gpu = n.nodeid % 3 === 1;
  return [
    { id: '0000:00:00.0', class: '0x060000', vendor: '0x8086', device: '0x09a2', vendor_name: 'Intel Corporation', device_name: 'Ice Lake Memory Map/VT-d', iommugroup: 0, subsystem_vendor: '0x8086', subsystem_device: '0x0000' },
    { id: '0000:17:00.0', class: '0x020000', vendor: '0x8086', device: '0x1593', vendor_name: 'Intel Corporation', device_name: 'Ethernet Controller E810-C for SFP', iommugroup: 14, subsystem_vendor: '0x8086', subsystem_device: '0x0002' },
    { id: '0000:17:00.1', class: '0x020000', vendor: '0x8086', device: '0x1593', vendor_name: 'Intel Corporation', device_name: 'Ethernet Controller E810-C for SFP', iommugroup: 15, subsystem_vendor: '0x8086', subsystem_device: '0x0002' },
    { id: '0000:65:00.0', class: '0x010802', vendor: '0x144d', device: '0xa80a', vendor_name: 'Samsung Electronics Co Ltd', device_name: 'NVMe SSD Controller PM9A1/PM9A3/980PRO', iommugroup: 30 },
    ...(gpu ? [{ id: '0000:ca:00.0', class: '0x030200', vendor: '0x10de', device: '0x25b6', vendor_name: 'NVIDIA Corporation', device_name: 'GA107GL [A2 / A16]', iommugroup: 42, mdev: 1 }] : []),
  ];
}

function zpool(n: SimNode): { name: string; size: number; alloc: number; free: number; frag: number; dedup: number; health: string } {
  const size = 64 * GiB;
  const alloc = Math.floor(size * (0.1 + 0.2 * noise(n.nodeid, 11)));
  return { name: 'rpool', size, alloc, free: size - alloc, frag: 3, dedup: 1, health: 'ONLINE' };
}

export { diskEntries };
