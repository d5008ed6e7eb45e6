/**
 * The cluster's state and the lookups every endpoint shares (node by name, guest by VMID with
 * PVE's error texts, per-node aggregates). Mutations happen in the endpoint modules and in
 * task hooks; this class keeps the indexes (guests by node, pools) consistent.
 */
import { configMissing, unknownNode } from './errors.js';
import { diskEntries } from './guest-config.js';
import { guestRuntime, nodeRuntime, type GuestRuntime, type NodeRuntime } from './metrics.js';
import type { Rng } from './prng.js';
import { TaskEngine, type TaskFault } from './tasks.js';
import type { BackupJob, Guest, GuestType, HaResource, HaRule, IpSet, OutboundRequest, Pool, SimNode, SimStorage, StoredVolume } from './types.js';

export interface VersionInfo {
  version: string;
  release: string;
  repoid: string;
}

export class ClusterState {
  readonly nodes = new Map<string, SimNode>();
  readonly guests = new Map<number, Guest>();
  readonly storages = new Map<string, SimStorage>();
  readonly volumes: StoredVolume[] = [];
  readonly pools = new Map<string, Pool>();
  readonly backupJobs = new Map<string, BackupJob>();
  readonly haResources = new Map<string, HaResource>();
  /** HA rules by ID (rules.cfg). */
  readonly haRules = new Map<string, HaRule>();
  /** Cluster firewall IP sets by name. */
  readonly ipsets = new Map<string, IpSet>();
  /** Each guest's own firewall IP sets (its `<vmid>.fw`), by VMID. */
  private readonly ipsetsByGuest = new Map<number, Map<string, IpSet>>();
  readonly taskFaults: TaskFault[] = [];
  /** Every attempt of a node to contact the outside (nothing is ever fetched); see outbound.ts. */
  readonly outbound: OutboundRequest[] = [];
  /** Storages out of space (the `full-storage` scenario); see space.ts for what that changes. */
  readonly fullStorages = new Set<string>();
  readonly tasks: TaskEngine;
  /** Per-area state built on first use from the rest (firewall, SDN, Ceph, notifications…), see `area`. */
  private readonly areas = new Map<string, unknown>();

  constructor(
    readonly clock: () => number,
    taskDurationMs: number,
    /** Undefined for a stand-alone node (no corosync cluster). */
    readonly clusterName: string | undefined,
    readonly version: VersionInfo,
    /** Seeded source for identifiers generated at run time (MACs, UUIDs of clones). */
    readonly rng: Rng,
  ) {
    this.tasks = new TaskEngine({
      clock,
      durationMs: taskDurationMs,
      faults: this.taskFaults,
      process: (node) => this.allocProcess(node),
    });
  }

  /** The clock, or while tasks are being settled the time of the event being applied. */
  now(): number {
    return this.tasks.now();
  }

  /** Epoch seconds. */
  nowSec(): number {
    return Math.floor(this.now() / 1000);
  }

  /** The node, or PVE's hostname-lookup error for a name that is not a cluster member. */
  node(name: string): SimNode {
    const n = this.nodes.get(name);
    if (!n) throw unknownNode(name);
    return n;
  }

  /**
   * The guest addressed as `/nodes/{node}/{type}/{vmid}`: a VMID that does not exist, is of the
   * other type or lives on another node gives the same missing-config-file error PVE gives.
   */
  guestAt(type: GuestType, node: string, vmid: number): Guest {
    this.node(node);
    this.tasks.settle();
    const g = this.guests.get(vmid);
    if (!g || g.type !== type || g.node !== node) throw configMissing(type, node, vmid);
    return g;
  }

  guestsOn(node: string): Guest[] {
    this.tasks.settle();
    const out: Guest[] = [];
    for (const g of this.guests.values()) if (g.node === node) out.push(g);
    return out.sort((a, b) => a.vmid - b.vmid);
  }

  allGuests(): Guest[] {
    this.tasks.settle();
    return [...this.guests.values()].sort((a, b) => a.vmid - b.vmid);
  }

  guestRuntime(g: Guest): GuestRuntime {
    return guestRuntime(g, this.node(g.node), this.now());
  }

  /** Runtime of every node in one pass over the guests (cheap enough for 10,000 guests). */
  nodeRuntimes(): Map<string, NodeRuntime> {
    return this.runtimeSnapshot().nodes;
  }

  /**
   * Runtime of every guest and node at one instant, each guest computed once: what inventory
   * endpoints use so node load and guest figures agree and large clusters stay fast.
   */
  runtimeSnapshot(): { guests: Map<number, GuestRuntime>; nodes: Map<string, NodeRuntime> } {
    this.tasks.settle();
    const now = this.now();
    const guests = new Map<number, GuestRuntime>();
    const mem = new Map<string, number>();
    const cores = new Map<string, number>();
    for (const g of this.guests.values()) {
      const rt = guestRuntime(g, this.node(g.node), now);
      guests.set(g.vmid, rt);
      if (rt.status !== 'running') continue;
      mem.set(g.node, (mem.get(g.node) ?? 0) + rt.mem);
      cores.set(g.node, (cores.get(g.node) ?? 0) + rt.cpu * rt.cpus);
    }
    const nodes = new Map<string, NodeRuntime>();
    for (const n of this.nodes.values()) nodes.set(n.name, nodeRuntime(n, mem.get(n.name) ?? 0, cores.get(n.name) ?? 0, now));
    return { guests, nodes };
  }

  /** Whether a storage exists and is usable on a node (definition-wise). */
  storageOn(storage: string, node: string): SimStorage | undefined {
    const s = this.storages.get(storage);
    if (!s || s.disabled) return undefined;
    if (s.nodes && !s.nodes.includes(node)) return undefined;
    return s;
  }

  /**
   * Bytes used per storage instance: key `<storage>` for shared storages, `<storage>/<node>`
   * for local ones. Guest disks count where they live; stored volumes where they were put.
   */
  storageUsage(): Map<string, number> {
    this.tasks.settle();
    const used = new Map<string, number>();
    const add = (storage: string, node: string | undefined, bytes: number): void => {
      const s = this.storages.get(storage);
      if (!s) return;
      const key = s.shared || node === undefined ? storage : `${storage}/${node}`;
      used.set(key, (used.get(key) ?? 0) + bytes);
    };
    for (const g of this.guests.values()) {
      for (const d of diskEntries(g.type, g.config)) add(d.storage, g.node, d.size);
    }
    for (const v of this.volumes) add(v.storage, v.node, v.size);
    for (const id of this.fullStorages) {
      const s = this.storages.get(id);
      if (!s) continue;
      for (const n of this.nodes.keys()) {
        if (s.nodes && !s.nodes.includes(n)) continue;
        const key = this.storageKey(s, n);
        used.set(key, Math.max(used.get(key) ?? 0, s.total));
      }
    }
    return used;
  }

  storageKey(s: SimStorage, node: string): string {
    return s.shared ? s.storage : `${s.storage}/${node}`;
  }

  setPool(g: Guest, poolid: string | undefined): void {
    if (g.pool) this.pools.get(g.pool)?.vms.delete(g.vmid);
    if (poolid) {
      this.pools.get(poolid)?.vms.add(g.vmid);
      g.pool = poolid;
    } else {
      delete g.pool;
    }
  }

  /** The firewall IP sets of the guest with this VMID (none until one is created). */
  guestIpsets(vmid: number): Map<string, IpSet> {
    let sets = this.ipsetsByGuest.get(vmid);
    if (!sets) {
      sets = new Map();
      this.ipsetsByGuest.set(vmid, sets);
    }
    return sets;
  }

  /** A clone gets a copy of its source's firewall config, as PVE's clone does. */
  copyGuestIpsets(fromVmid: number, toVmid: number): void {
    const source = this.ipsetsByGuest.get(fromVmid);
    if (!source) return;
    const copy = new Map<string, IpSet>();
    for (const [name, set] of source) copy.set(name, { ...set, entries: set.entries.map((e) => ({ ...e })) });
    this.ipsetsByGuest.set(toVmid, copy);
  }

  /**
   * The state of one area (firewall rules, SDN, Ceph…), made by `init` from the rest of the
   * state the first time it is asked for and kept from then on, so reads and writes agree.
   */
  area<T>(key: string, init: () => T): T {
    let v = this.areas.get(key) as T | undefined;
    if (v === undefined) {
      v = init();
      this.areas.set(key, v);
    }
    return v;
  }

  /** Hooks run when a guest is destroyed (areas drop what belongs to it). */
  readonly onGuestRemoved: Array<(vmid: number) => void> = [];

  /** Destroying a guest removes its firewall config too, as PVE does. */
  removeGuest(g: Guest): void {
    for (const hook of this.onGuestRemoved) hook(g.vmid);
    this.ipsetsByGuest.delete(g.vmid);
    this.setPool(g, undefined);
    this.guests.delete(g.vmid);
    const sid = `${g.type === 'qemu' ? 'vm' : 'ct'}:${g.vmid}`;
    this.haResources.delete(sid);
    // A purged guest leaves the HA rules too; rules left without resources go.
    for (const [id, rule] of this.haRules) {
      rule.resources = rule.resources.filter((r) => r !== sid);
      if (rule.resources.length === 0) this.haRules.delete(id);
    }
  }

  /** Worker PID and node process start time (jiffies since boot at 100 Hz), as in a UPID. */
  allocProcess(node: string): { pid: number; pstart: number } {
    const n = this.node(node);
    const pid = n.nextPid;
    n.nextPid = n.nextPid >= 4_000_000 ? 1000 : n.nextPid + 1 + (pid % 7);
    return { pid, pstart: Math.max(0, Math.floor((this.now() - n.bootedAt) / 10)) };
  }
}
