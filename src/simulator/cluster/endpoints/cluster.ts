/**
 * Cluster-wide views: `/cluster/resources` (the one-call inventory most tools start from),
 * `/cluster/status`, `/cluster/nextid` and `/cluster/options`.
 */
import type { SimEndpoint, SimRequestContext } from '../../contract.js';
import { paramError } from '../errors.js';
import { guestName } from '../guest-config.js';
import type { ClusterState } from '../state.js';
import { haSid } from '../views.js';
import { optInt, optStr } from './params.js';
import { arr, bool, int, num, obj, opt, perm, str, VMID_RANGE } from './schema.js';

type Json = Record<string, unknown>;

const RESOURCE_ITEM = obj({
  id: str('Resource ID, e.g. qemu/100, lxc/101, node/pve1, storage/pve1/local, /pool/prod.'),
  type: str('Kind of resource.', { enum: ['node', 'storage', 'pool', 'qemu', 'lxc', 'openvz', 'sdn', 'network'] }),
  status: opt(str('State in the terms of the resource kind (running, online, available…).')),
  node: opt(str('Node the resource is on.', { format: 'pve-node' })),
  vmid: opt(int('Guest ID (guests only).', { ...VMID_RANGE })),
  name: opt(str('Guest name (guests only).')),
  pool: opt(str('Pool the resource belongs to, or the pool name for pool entries.')),
  storage: opt(str('Storage ID (storage entries).', { format: 'pve-storage-id' })),
  plugintype: opt(str('Storage backend type (storage entries).')),
  content: opt(str('Content types the storage holds.', { format: 'pve-storage-content-list' })),
  shared: opt(bool('Storage is shared between nodes.')),
  sdn: opt(str('SDN zone name (sdn entries).')),
  cpu: opt(num('CPU load as a fraction of maxcpu.', { minimum: 0 })),
  maxcpu: opt(num('CPUs available to the resource.', { minimum: 0 })),
  mem: opt(int('Memory in use, bytes.', { minimum: 0 })),
  maxmem: opt(int('Memory available, bytes.')),
  memhost: opt(int('Host memory used by a VM process, bytes.', { minimum: 0 })),
  disk: opt(int('Storage or root filesystem used, bytes.', { minimum: 0 })),
  maxdisk: opt(int('Storage or disk size, bytes.', { minimum: 0 })),
  uptime: opt(int('Seconds since start or boot.')),
  netin: opt(int('Bytes received.')),
  netout: opt(int('Bytes sent.')),
  diskread: opt(int('Bytes read.')),
  diskwrite: opt(int('Bytes written.')),
  template: opt(bool('Guest is a template.')),
  tags: opt(str('Guest tags, semicolon-separated.')),
  lock: opt(str('Guest config lock, if any.')),
  hastate: opt(str('HA state of the guest or node, when HA manages it.')),
  level: opt(str('Node subscription level.')),
  'cgroup-mode': opt(int('cgroup version of the node.')),
});

/** Pool usage as PVE sums it: memory and CPUs added up, CPU load weighted, the longest uptime. */
function addToPool(pe: Json, mem: number, maxmem: number, cpu: number, cpus: number, uptime: number): void {
  const maxcpu = Number(pe.maxcpu ?? 0);
  pe.uptime = Math.max(Number(pe.uptime ?? 0), uptime);
  pe.mem = Number(pe.mem ?? 0) + mem;
  pe.maxmem = Number(pe.maxmem ?? 0) + maxmem;
  pe.cpu = (Number(pe.cpu ?? 0) * maxcpu + cpu * cpus) / (maxcpu + cpus);
  pe.maxcpu = maxcpu + cpus;
}

export function clusterViewEndpoints(state: ClusterState): SimEndpoint[] {
  type Snapshot = ReturnType<ClusterState['runtimeSnapshot']>;

  /** Guest entries; pool entries passed in collect usage of running members even the caller cannot audit. */
  const guestEntries = (ctx: SimRequestContext, snap: Snapshot, pools: Map<string, Json>): Json[] => {
    const out: Json[] = [];
    for (const g of state.allGuests()) {
      const node = state.node(g.node);
      const rt = snap.guests.get(g.vmid) ?? state.guestRuntime(g);
      const online = node.online;
      const uptime = online ? rt.uptime : 0;
      const pe = g.pool !== undefined ? pools.get(g.pool) : undefined;
      if (pe && uptime > 0) addToPool(pe, rt.mem, rt.maxmem, rt.cpu, rt.cpus, uptime);
      if (!ctx.hasPriv(`/vms/${g.vmid}`, 'VM.Audit')) continue;
      const entry: Json = {
        id: `${g.type}/${g.vmid}`,
        type: g.type,
        vmid: g.vmid,
        node: g.node,
        name: guestName(g),
        status: online ? rt.status : 'unknown',
        template: g.config.template ? 1 : 0,
        maxcpu: rt.cpus,
        cpu: online ? rt.cpu : 0,
        maxmem: rt.maxmem,
        mem: online ? rt.mem : 0,
        maxdisk: rt.maxdisk,
        disk: rt.disk,
        uptime,
        netin: online ? rt.netin : 0,
        netout: online ? rt.netout : 0,
        diskread: online ? rt.diskread : 0,
        diskwrite: online ? rt.diskwrite : 0,
      };
      if (g.type === 'qemu') entry.memhost = entry.mem;
      if (g.pool !== undefined && ctx.hasPriv(`/pool/${g.pool}`, 'Pool.Audit')) entry.pool = g.pool;
      if (g.config.lock !== undefined) entry.lock = g.config.lock;
      if (g.config.tags !== undefined) entry.tags = g.config.tags;
      const ha = state.haResources.get(haSid(g));
      if (ha) entry.hastate = ha.state;
      out.push(entry);
    }
    return out;
  };

  const nodeEntries = (ctx: SimRequestContext, snap: Snapshot): Json[] => {
    const runtime = snap.nodes;
    const haActive = state.haResources.size > 0;
    const out: Json[] = [];
    for (const n of state.nodes.values()) {
      if (!ctx.hasPriv(`/nodes/${n.name}`, 'Sys.Audit')) continue;
      const entry: Json = { id: `node/${n.name}`, type: 'node', node: n.name, status: n.online ? 'online' : 'offline', level: n.level };
      const rt = runtime.get(n.name);
      if (n.online && rt) {
        Object.assign(entry, {
          'cgroup-mode': 2,
          uptime: rt.uptime,
          cpu: rt.cpu,
          maxcpu: n.maxcpu,
          mem: rt.mem,
          maxmem: n.maxmem,
          disk: rt.rootfsUsed,
          maxdisk: n.rootfsTotal,
        });
      }
      if (haActive) entry.hastate = n.online ? 'online' : 'unknown';
      out.push(entry);
    }
    return out;
  };

  /** One entry per storage and node it is enabled on (PVE checks only Datastore.Audit here). */
  const storageEntries = (ctx: SimRequestContext): Json[] => {
    const used = state.storageUsage();
    const out: Json[] = [];
    for (const s of state.storages.values()) {
      if (s.disabled || !ctx.hasPriv(`/storage/${s.storage}`, 'Datastore.Audit')) continue;
      const pool = [...state.pools.values()].find((p) => p.storages.has(s.storage));
      for (const n of state.nodes.values()) {
        if (s.nodes && !s.nodes.includes(n.name)) continue;
        const entry: Json = {
          id: `storage/${n.name}/${s.storage}`,
          type: 'storage',
          storage: s.storage,
          node: n.name,
          status: n.online ? 'available' : 'unknown',
          plugintype: s.type,
          shared: s.shared ? 1 : 0,
          content: s.content.join(','),
        };
        if (n.online) Object.assign(entry, { disk: used.get(state.storageKey(s, n.name)) ?? 0, maxdisk: s.total });
        if (pool) entry.pool = pool.poolid;
        out.push(entry);
      }
    }
    return out;
  };

  const poolEntries = (ctx: SimRequestContext): Map<string, Json> => {
    const out = new Map<string, Json>();
    for (const p of [...state.pools.values()].sort((a, b) => a.poolid.localeCompare(b.poolid))) {
      if (ctx.hasPriv(`/pool/${p.poolid}`, 'Pool.Audit')) out.set(p.poolid, { id: `/pool/${p.poolid}`, type: 'pool', pool: p.poolid });
    }
    return out;
  };

  const sdnEntries = (ctx: SimRequestContext): Json[] =>
    [...state.nodes.values()]
      .filter(() => ctx.hasPriv('/sdn/zones/localnetwork', 'SDN.Audit'))
      .map((n) => ({ id: `sdn/${n.name}/localnetwork`, type: 'sdn', sdn: 'localnetwork', node: n.name, status: n.online ? 'ok' : 'unknown' }));

  return [
    {
      method: 'GET',
      path: '/cluster/resources',
      description:
        'Every guest (VM or container), node, storage, pool and SDN zone of the cluster in one list. Each entry carries the node it is on, its status (running or stopped for a guest), name, tags, lock, uptime and CPU, memory and disk use; the list holds only what the caller may audit.',
      parameters: { type: opt(str('Only resources of this group.', { enum: ['vm', 'storage', 'node', 'sdn'] })) },
      returns: arr(RESOURCE_ITEM),
      permissions: { user: 'all', description: 'Each entry needs the matching audit privilege (VM.Audit, Sys.Audit, Datastore.Audit, Pool.Audit, SDN.Audit).' },
      handler: (ctx) => {
        // PVE's order: pools, guests, nodes, storages, SDN.
        const type = optStr(ctx, 'type');
        const snap = state.runtimeSnapshot();
        const pools = type ? new Map<string, Json>() : poolEntries(ctx);
        const out: Json[] = [...pools.values()];
        if (!type || type === 'vm') out.push(...guestEntries(ctx, snap, pools));
        if (!type || type === 'node') out.push(...nodeEntries(ctx, snap));
        if (!type || type === 'storage') out.push(...storageEntries(ctx));
        if (!type || type === 'sdn') out.push(...sdnEntries(ctx));
        return out;
      },
    },
    {
      method: 'GET',
      path: '/cluster/status',
      description: 'Cluster name, membership and quorum: one cluster entry and one entry per node saying whether it is online (a stand-alone node reports only itself).',
      parameters: {},
      returns: arr(
        obj({
          type: str('Entry kind.', { enum: ['cluster', 'node'] }),
          id: str('Entry ID (cluster or node/<name>).'),
          name: str('Cluster or node name.'),
          nodes: opt(int('Number of configured nodes (cluster entry).')),
          quorate: opt(bool('The cluster has quorum (cluster entry).')),
          version: opt(int('Cluster configuration version (cluster entry).')),
          nodeid: opt(int('Corosync node ID (node entries).')),
          ip: opt(str('Node address (node entries).')),
          local: opt(bool('The node answering this request (node entries).')),
          online: opt(bool('Node is reachable (node entries).')),
          level: opt(str('Subscription level (node entries).')),
        }),
      ),
      permissions: { check: perm('/', ['Sys.Audit']) },
      protected: true,
      handler: () => {
        const nodes = [...state.nodes.values()];
        const local = nodes[0]?.name;
        const nodeEntries = nodes.map((n) => ({
          type: 'node',
          id: `node/${n.name}`,
          name: n.name,
          nodeid: n.nodeid,
          ip: n.ip,
          local: n.name === local ? 1 : 0,
          online: n.online ? 1 : 0,
          level: n.level,
        }));
        if (!state.clusterName) return nodeEntries;
        const online = nodes.filter((n) => n.online).length;
        return [{ type: 'cluster', id: 'cluster', name: state.clusterName, nodes: nodes.length, version: nodes.length + 2, quorate: online * 2 > nodes.length ? 1 : 0 }, ...nodeEntries];
      },
    },
    {
      method: 'GET',
      path: '/cluster/nextid',
      description: 'Suggest a free guest ID, or confirm that a given one is free.',
      parameters: { vmid: opt(int('ID to check instead of searching for one.', { ...VMID_RANGE })) },
      returns: int('A free VMID (sent as a string, as PVE does).'),
      permissions: { user: 'all' },
      handler: (ctx) => {
        state.tasks.settle();
        const wanted = optInt(ctx, 'vmid');
        if (wanted !== undefined) {
          if (state.guests.has(wanted)) throw paramError('vmid', `VM ${wanted} already exists`);
          return String(wanted);
        }
        let id = 100;
        while (state.guests.has(id)) id++;
        return String(id);
      },
    },
    {
      method: 'GET',
      path: '/cluster/options',
      description: 'Datacenter-wide settings, those of datacenter.cfg (keyboard, console, MAC prefix, migration, HA policy…).',
      parameters: {},
      returns: obj({}),
      permissions: { user: 'all', check: perm('/', ['Sys.Audit']) },
      handler: (ctx) => {
        const all: Json = {
          keyboard: 'en-us',
          console: 'html5',
          mac_prefix: 'BC:24:11',
          migration: 'type=secure',
          ha: 'shutdown_policy=conditional',
          'next-id': 'lower=100',
          description: 'Simulated Proxmox VE datacenter.',
        };
        // Without Sys.Audit on / only the display settings are shown; everyone gets the tag list.
        const out: Json = ctx.hasPriv('/', 'Sys.Audit') ? all : { console: all.console };
        const tags = new Set<string>();
        for (const g of state.allGuests()) for (const t of String(g.config.tags ?? '').split(/[;,\s]+/)) if (t) tags.add(t);
        out['allowed-tags'] = [...tags].sort();
        return out;
      },
    },
  ];
}
