/**
 * Builds a cluster from a preset and a seed. Everything random comes from one seeded generator
 * and every time is relative to the clock at build time, so the same seed and clock give the
 * same cluster, down to MAC addresses and task history.
 */
import { hasRoleRules, vnetFirewall } from './firewall.js';
import { guestIpv4 } from './guest-net.js';
import { BalancedPlacer, sizeStorages } from './placement.js';
import type { PresetSpec } from './presets.js';
import { createRng, type Rng } from './prng.js';
import { DAY, GiB, TiB } from './roles.js';
import { sdnOf } from './sdn.js';
import { makeGuests } from './generate-guests.js';
import { ClusterState } from './state.js';
import type { Guest, SimNode, SimStorage, StoredVolume } from './types.js';

const CPU_MODELS = ['AMD EPYC 7313P 16-Core Processor', 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', 'AMD EPYC 9354P 32-Core Processor'];

export const VERSION = { version: '9.1.1', release: '9.1', repoid: 'c5e2ad7f' };

export function generateCluster(spec: PresetSpec, seed: number, clock: () => number, taskDurationMs: number): ClusterState {
  const rng = createRng(seed);
  // A second stream for identifiers made at run time (clone MACs…), independent of the layout.
  const state = new ClusterState(clock, taskDurationMs, spec.clusterName, VERSION, createRng(seed ^ 0x5eed));
  const nowSec = Math.floor(clock() / 1000);
  const nodes = makeNodes(state, spec, rng, nowSec);
  const shared = spec.nodes >= 3;
  makeStorages(state, shared);
  makePools(state, shared);
  makeFirewall(state);
  // Balanced layouts draw from their own stream, so the fixed presets keep their exact layout.
  const placer = spec.layout === 'balanced' ? new BalancedPlacer(spec, nodes, createRng(seed ^ 0x9e3779b9)) : undefined;
  makeGuests(state, spec, rng, nodes, shared, nowSec, placer);
  makeVolumes(state, nodes, shared, rng, nowSec);
  sizeStorages(state, createRng(seed ^ 0x51ab1e));
  makeBackupJobs(state, shared, rng);
  if (spec.clusterName) makeHa(state);
  makeGuestIpsets(state);
  if (spec.clusterName) makeVnetRules(state);
  makeHistory(state, rng, nowSec);
  return state;
}

function makeNodes(state: ClusterState, spec: PresetSpec, rng: Rng, nowSec: number): SimNode[] {
  const out: SimNode[] = [];
  for (let i = 0; i < spec.nodes; i++) {
    const name = spec.nodes === 1 ? 'pve' : `pve${i + 1}`;
    const maxcpu = rng.pick([16, 32, 48, 64]);
    const ip = `10.0.${Math.floor(i / 200)}.${11 + (i % 200)}`;
    const node: SimNode = {
      name,
      online: true,
      nodeid: spec.clusterName ? i + 1 : 0,
      ip,
      maxcpu,
      cpuModel: rng.pick(CPU_MODELS),
      sockets: maxcpu >= 64 ? 2 : 1,
      maxmem: rng.pick([128, 256, 384, 512]) * GiB,
      rootfsTotal: 96 * GiB,
      bootedAt: (nowSec - rng.int(3, 60) * DAY - rng.int(0, DAY)) * 1000,
      sslFingerprint: Array.from({ length: 32 }, () => rng.hex(2).toUpperCase()).join(':'),
      level: '',
      kernel: '6.17.2-1-pve',
      nextPid: rng.int(20_000, 900_000),
      interfaces: [
        { iface: 'eno1', type: 'eth', active: 1, autostart: 1, method: 'manual', method6: 'manual', families: ['inet'], priority: 1 },
        { iface: 'eno2', type: 'eth', active: 1, autostart: 1, method: 'manual', method6: 'manual', families: ['inet'], priority: 2 },
        {
          iface: 'vmbr0',
          type: 'bridge',
          active: 1,
          autostart: 1,
          method: 'static',
          method6: 'manual',
          families: ['inet'],
          address: ip,
          netmask: '16',
          cidr: `${ip}/16`,
          gateway: '10.0.0.1',
          bridge_ports: 'eno1',
          bridge_stp: 'off',
          bridge_fd: '0',
          priority: 3,
        },
        {
          iface: 'vmbr1',
          type: 'bridge',
          active: 1,
          autostart: 1,
          method: 'manual',
          method6: 'manual',
          families: ['inet'],
          bridge_ports: 'eno2',
          bridge_stp: 'off',
          bridge_fd: '0',
          bridge_vlan_aware: 1,
          comments: 'guest VLANs',
          priority: 4,
        },
      ],
    };
    state.nodes.set(name, node);
    out.push(node);
  }
  return out;
}

function makeStorages(state: ClusterState, shared: boolean): void {
  const add = (s: SimStorage): void => void state.storages.set(s.storage, s);
  add({ storage: 'local', type: 'dir', content: ['iso', 'vztmpl', 'backup', 'snippets'], shared: false, total: 94 * GiB, disabled: false, props: { path: '/var/lib/vz' } });
  add({ storage: 'local-lvm', type: 'lvmthin', content: ['images', 'rootdir'], shared: false, total: Math.round(1.7 * TiB), disabled: false, props: { vgname: 'pve', thinpool: 'data' } });
  if (!shared) return;
  add({
    storage: 'nas',
    type: 'nfs',
    content: ['backup', 'iso', 'vztmpl'],
    shared: true,
    total: 16 * TiB,
    disabled: false,
    props: { server: '10.0.0.50', export: '/export/pve', path: '/mnt/pve/nas' },
  });
  add({ storage: 'ceph', type: 'rbd', content: ['images', 'rootdir'], shared: true, total: 48 * TiB, disabled: false, props: { pool: 'vm-pool', krbd: 0 } });
}

function makePools(state: ClusterState, shared: boolean): void {
  const pools: Array<[string, string]> = [
    ['production', 'Customer-facing services'],
    ['development', 'Build and test machines'],
    ['infra', 'DNS, proxies and monitoring'],
  ];
  for (const [poolid, comment] of pools) state.pools.set(poolid, { poolid, comment, vms: new Set(), storages: new Set() });
  if (shared) state.pools.get('production')?.storages.add('ceph');
}

/** IP sets an operator keeps: the admin networks, and a block list with one excluded address. */
function makeFirewall(state: ClusterState): void {
  state.ipsets.set('management', {
    name: 'management',
    comment: 'Admin workstations and jump hosts',
    entries: [
      { cidr: '192.168.100.10', comment: 'Jump host' },
      { cidr: '10.0.0.0/24', comment: 'Office LAN' },
    ],
  });
  state.ipsets.set('blocklist', {
    name: 'blocklist',
    comment: 'Addresses refused at the edge',
    entries: [{ cidr: '203.0.113.7', comment: 'Partner monitoring', nomatch: true }, { cidr: '203.0.113.0/24', comment: 'Scanner range' }, { cidr: '2001:db8:bad::/48' }],
  });
}

function makeVolumes(state: ClusterState, nodes: SimNode[], shared: boolean, rng: Rng, nowSec: number): void {
  const media = shared ? 'nas' : 'local';
  const add = (v: StoredVolume): void => void state.volumes.push(v);
  const isoNodes = shared ? [undefined] : nodes.map((n) => n.name);
  for (const node of isoNodes) {
    for (const [file, size] of [
      ['debian-12.9.0-amd64-netinst.iso', 632 * 1024 ** 2],
      ['ubuntu-24.04.2-live-server-amd64.iso', 3.1 * GiB],
      ['virtio-win-0.1.271.iso', 708 * 1024 ** 2],
    ] as const) {
      add({ storage: media, node, volid: `${media}:iso/${file}`, content: 'iso', format: 'iso', size: Math.round(size), ctime: nowSec - rng.int(30, 200) * DAY });
    }
    for (const [file, size] of [
      ['debian-12-standard_12.7-1_amd64.tar.zst', 126 * 1024 ** 2],
      ['alpine-3.21-default_20241217_amd64.tar.xz', 3 * 1024 ** 2],
      ['ubuntu-24.04-standard_24.04-2_amd64.tar.zst', 141 * 1024 ** 2],
    ] as const) {
      add({ storage: media, node, volid: `${media}:vztmpl/${file}`, content: 'vztmpl', format: file.endsWith('.xz') ? 'txz' : 'tzst', size: Math.round(size), ctime: nowSec - rng.int(30, 200) * DAY });
    }
  }
  // Nightly backups of the production and infra pools, the last three nights.
  for (const g of state.guests.values()) {
    if (g.pool !== 'production' && g.pool !== 'infra') continue;
    const kind = g.type === 'qemu' ? 'qemu' : 'lxc';
    const ext = g.type === 'qemu' ? 'vma.zst' : 'tar.zst';
    for (let night = 1; night <= 3; night++) {
      const t = Math.floor(nowSec / DAY - night) * DAY + 2 * 3600 + (g.vmid % 3000);
      const d = new Date(t * 1000);
      const stamp = `${d.getUTCFullYear()}_${p2(d.getUTCMonth() + 1)}_${p2(d.getUTCDate())}-${p2(d.getUTCHours())}_${p2(d.getUTCMinutes())}_${p2(d.getUTCSeconds())}`;
      add({
        storage: media,
        node: shared ? undefined : g.node,
        volid: `${media}:backup/vzdump-${kind}-${g.vmid}-${stamp}.${ext}`,
        content: 'backup',
        format: ext,
        size: Math.round((0.5 + rng.next()) * 2 * GiB),
        ctime: t,
        vmid: g.vmid,
        notes: String(g.config.name ?? g.config.hostname),
        ...(night === 3 ? { protected: 1 } : {}),
      });
    }
  }
}

function p2(n: number): string {
  return String(n).padStart(2, '0');
}

function makeBackupJobs(state: ClusterState, shared: boolean, rng: Rng): void {
  const storage = shared ? 'nas' : 'local';
  const id = (): string => `backup-${rng.hex(8)}-${rng.hex(4)}`;
  const common = { type: 'vzdump', storage, mode: 'snapshot', compress: 'zstd', enabled: 1, 'notes-template': '{{guestname}}' };
  const nightly = id();
  state.backupJobs.set(nightly, { id: nightly, ...common, schedule: '02:00', pool: 'production', 'prune-backups': 'keep-daily=7,keep-weekly=4', comment: 'Nightly production backup' });
  // The weekly job lists its guests by ID (as small setups do); large presets select the pool instead.
  const infra = [...state.guests.values()].filter((g) => g.pool === 'infra').map((g) => g.vmid);
  const selection: Record<string, string> = infra.length <= 20 ? { vmid: infra.join(',') } : { pool: 'infra' };
  const weekly = id();
  state.backupJobs.set(weekly, { id: weekly, ...common, schedule: 'sat 03:00', ...selection, 'prune-backups': 'keep-last=4', comment: 'Weekly infrastructure backup' });
}

function makeHa(state: ClusterState): void {
  for (const g of state.guests.values()) {
    if (
      g.type !== 'qemu' ||
      !String(g.config.tags ?? '')
        .split(';')
        .includes('db')
    )
      continue;
    const sid = `vm:${g.vmid}`;
    state.haResources.set(sid, { sid, type: 'vm', state: g.status === 'running' ? 'started' : 'stopped', max_restart: 1, max_relocate: 1, failback: 1 });
  }
  // The databases may run on any node they run on now: a rule that documents, never moves a guest.
  const sids = [...state.haResources.keys()];
  const nodes = [...new Set(sids.map((sid) => state.guests.get(Number(sid.slice(3)))?.node).filter((n): n is string => n !== undefined))].sort();
  if (sids.length > 0) state.haRules.set('databases', { rule: 'databases', type: 'node-affinity', resources: sids, nodes, strict: 0, comment: 'database VMs stay on these nodes', order: 1 });
}

/** Guests with firewall rules of their own also keep the addresses net0 may send from (PVE's `ipfilter-net0`). */
function makeGuestIpsets(state: ClusterState): void {
  for (const g of state.guests.values()) {
    if (!hasRoleRules(g)) continue;
    state.guestIpsets(g.vmid).set('ipfilter-net0', { name: 'ipfilter-net0', comment: 'addresses net0 may send from', entries: [{ cidr: guestIpv4(g.vmid) }] });
  }
}

/** The office VLAN may reach HTTPS across the cluster's vnets and nothing else is opened. */
function makeVnetRules(state: ClusterState): void {
  const office = [...sdnOf(state).vnets.keys()][0];
  if (office === undefined) return;
  vnetFirewall(state, office).rules.push({ type: 'forward', action: 'ACCEPT', proto: 'tcp', dport: '443', enable: 1, comment: 'office clients reach HTTPS' });
}

/** A past to look at: guest starts and the nightly backup runs, one of which had trouble. */
function makeHistory(state: ClusterState, rng: Rng, nowSec: number): void {
  const nodeGuests = new Map<string, Guest[]>();
  for (const g of state.guests.values()) {
    const list = nodeGuests.get(g.node) ?? [];
    list.push(g);
    nodeGuests.set(g.node, list);
  }
  let failed = false;
  for (const node of state.nodes.values()) {
    const guests = nodeGuests.get(node.name) ?? [];
    for (let night = 3; night >= 1; night--) {
      const start = Math.floor(nowSec / DAY - night) * DAY + 2 * 3600;
      const backed = guests.filter((g) => g.pool === 'production');
      const broken = !failed && night === 2 && backed.length > 0;
      const log = backed.slice(0, 50).flatMap((g) => [`INFO: Starting Backup of VM ${g.vmid} (${g.type})`, `INFO: Finished Backup of VM ${g.vmid} (00:0${rng.int(1, 9)}:${p2(rng.int(0, 59))})`]);
      if (broken) {
        failed = true;
        log.push(`ERROR: Backup of VM ${backed[0]?.vmid} failed - unable to open file - No space left on device`);
        log.push('INFO: Backup job finished with errors');
      } else {
        log.push('INFO: Backup job finished successfully');
      }
      state.tasks.addHistory({
        node: node.name,
        type: 'vzdump',
        id: '',
        user: 'root@pam',
        starttime: start,
        endtime: start + 60 + backed.length * 30,
        exitstatus: broken ? 'job errors' : 'OK',
        log: [...log, broken ? 'TASK ERROR: job errors' : 'TASK OK'],
        ...state.allocProcess(node.name),
        pstart: Math.max(0, Math.floor((start * 1000 - node.bootedAt) / 10)),
      });
    }
    // The most recent guest starts are enough history; huge presets would only bloat memory.
    for (const g of guests.filter((x) => x.status === 'running').slice(0, 25)) {
      const start = Math.floor(g.startedAt / 1000);
      const type = g.type === 'qemu' ? 'qmstart' : 'vzstart';
      state.tasks.addHistory({
        node: node.name,
        type,
        id: String(g.vmid),
        user: 'root@pam',
        starttime: start,
        endtime: start + rng.int(1, 4),
        exitstatus: 'OK',
        log: ['TASK OK'],
        pid: g.pid,
        pstart: Math.max(0, Math.floor((g.startedAt - node.bootedAt) / 10)),
      });
    }
  }
}
