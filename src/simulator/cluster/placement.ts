/**
 * Where guests go on the scale presets: node hardware sized to the cluster's load, guests placed on
 * the less loaded of two nodes with room, and storages sized to what is placed on them.
 */
import type { PresetSpec } from './presets.js';
import type { Rng } from './prng.js';
import { GiB, MiB, type Role, ROLES } from './roles.js';
import { ClusterState } from './state.js';
import type { SimNode } from './types.js';

/** Server shapes a dense cluster runs on: logical CPUs (2 per core), sockets, CPU model. */
const HARDWARE: ReadonlyArray<{ threads: number; sockets: number; model: string }> = [
  { threads: 32, sockets: 1, model: 'AMD EPYC 7313P 16-Core Processor' },
  { threads: 64, sockets: 1, model: 'AMD EPYC 9354P 32-Core Processor' },
  { threads: 96, sockets: 2, model: 'Intel(R) Xeon(R) Gold 6342 CPU @ 2.80GHz' },
  { threads: 128, sockets: 2, model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz' },
  { threads: 192, sockets: 2, model: 'AMD EPYC 9454 48-Core Processor' },
  { threads: 256, sockets: 2, model: 'AMD EPYC 9554 64-Core Processor' },
  { threads: 384, sockets: 2, model: 'AMD EPYC 9654 96-Core Processor' },
  { threads: 768, sockets: 2, model: 'AMD EPYC 9965 192-Core Processor' },
];
const MEMORY_GIB = [64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144];

/**
 * Capacity rules of the placement. Memory is not overcommitted: running guests' configured memory
 * stays within the node's (they use 30–80% of it, the host 6%, so a node stays below 90%). vCPUs
 * are, as in practice: up to 2.5 per logical CPU, where guests average about a fifth of a vCPU
 * (metrics.ts), which keeps a full node near half load.
 */
const MEM_CAP = 1.0;
const VCPU_CAP = 2.5;
/** Nodes are sized so the average node is filled to this share of the caps (room to place). */
const TARGET_FILL = 0.75;

/**
 * Guest placement for the scale presets: node hardware sized to the cluster's load, each guest on
 * the less loaded of two nodes picked at random (among those with room), as an operator spreading
 * guests does; roles mix on every node.
 */
export class BalancedPlacer {
  private readonly runningFlags: boolean[];
  private readonly memMiB: number[];
  private readonly vcpus: number[];
  private readonly count: number[];

  constructor(
    spec: PresetSpec,
    private readonly nodes: SimNode[],
    private readonly rng: Rng,
  ) {
    this.runningFlags = Array.from({ length: Math.max(0, spec.guests - 1) }, (_, i) => rng.chance((ROLES[i % ROLES.length] as Role).running));
    let demandMiB = 0;
    let demandVcpus = 0;
    this.runningFlags.forEach((on, i) => {
      if (!on) return;
      const role = ROLES[i % ROLES.length] as Role;
      demandMiB += role.memory;
      demandVcpus += role.cores;
    });
    const needMiB = demandMiB / nodes.length / MEM_CAP / TARGET_FILL;
    const needThreads = demandVcpus / nodes.length / VCPU_CAP / TARGET_FILL;
    for (const node of nodes) this.size(node, needMiB, needThreads);
    this.memMiB = nodes.map(() => 0);
    this.vcpus = nodes.map(() => 0);
    this.count = nodes.map(() => 0);
  }

  /** The smallest hardware that carries the average share, some nodes one size up (newer purchases). */
  private size(node: SimNode, needMiB: number, needThreads: number): void {
    const up = this.rng.chance(0.3) ? 1 : 0;
    const cpuTier = HARDWARE.findIndex((h) => h.threads >= needThreads);
    if (cpuTier < 0) {
      // Beyond the largest servers (presets far above 10,000 guests): synthetic counts.
      const top = HARDWARE.at(-1) as (typeof HARDWARE)[number];
      node.maxcpu = Math.ceil(needThreads / 64) * 64;
      node.sockets = top.sockets;
      node.cpuModel = top.model;
    } else {
      const hw = HARDWARE[Math.min(HARDWARE.length - 1, cpuTier + up)] as (typeof HARDWARE)[number];
      node.maxcpu = hw.threads;
      node.sockets = hw.sockets;
      node.cpuModel = hw.model;
    }
    const memTier = MEMORY_GIB.findIndex((g) => g * 1024 >= needMiB);
    node.maxmem = (memTier < 0 ? Math.ceil(needMiB / 1024 / 1024) * 1024 : (MEMORY_GIB[Math.min(MEMORY_GIB.length - 1, memTier + up)] as number)) * GiB;
  }

  running(i: number): boolean {
    return this.runningFlags[i] ?? false;
  }

  /** Chooses the node for the next guest and books its load there. */
  place(role: Role, running: boolean): SimNode {
    const mem = running ? role.memory : 0;
    const cpu = running ? role.cores : 0;
    const load = (n: number): number => Math.max((this.memMiB[n] as number) / ((this.nodes[n] as SimNode).maxmem / MiB), (this.vcpus[n] as number) / (this.nodes[n] as SimNode).maxcpu / VCPU_CAP);
    const room = (n: number): boolean =>
      (this.memMiB[n] as number) + mem <= ((this.nodes[n] as SimNode).maxmem / MiB) * MEM_CAP && (this.vcpus[n] as number) + cpu <= (this.nodes[n] as SimNode).maxcpu * VCPU_CAP;
    const score = (n: number): number => (running ? load(n) : (this.count[n] as number));
    const a = this.rng.int(0, this.nodes.length - 1);
    const b = this.rng.int(0, this.nodes.length - 1);
    let pick = [a, b].filter(room).sort((x, y) => score(x) - score(y))[0];
    if (pick === undefined) {
      const all = this.nodes.map((_, n) => n);
      pick = all.filter(room).sort((x, y) => score(x) - score(y))[0] ?? (all.sort((x, y) => load(x) - load(y))[0] as number);
    }
    this.memMiB[pick] = (this.memMiB[pick] as number) + mem;
    this.vcpus[pick] = (this.vcpus[pick] as number) + cpu;
    this.count[pick] = (this.count[pick] as number) + 1;
    return this.nodes[pick] as SimNode;
  }
}

/**
 * Storages sized to what they hold: one that the generated guests, images and backups would fill
 * beyond 80% on its fullest node (or pool) grows to a size where that is 45–80%.
 */
export function sizeStorages(state: ClusterState, rng: Rng): void {
  const used = state.storageUsage();
  for (const s of [...state.storages.values()].sort((x, y) => x.storage.localeCompare(y.storage))) {
    let peak = 0;
    for (const n of state.nodes.keys()) peak = Math.max(peak, used.get(state.storageKey(s, n)) ?? 0);
    if (peak <= s.total * 0.8) continue;
    s.total = niceSize(peak / (0.45 + 0.35 * rng.next()));
    if (s.storage === 'local') {
      // `local` is a directory on the root file system: the node's root grows with it.
      for (const n of state.nodes.values()) n.rootfsTotal = Math.max(n.rootfsTotal, s.total + 2 * GiB);
    }
  }
}

/** Rounds up to a size a disk or array would have: 1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × a power of two GiB. */
function niceSize(bytes: number): number {
  const steps = [1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8];
  let unit = GiB;
  while (unit * 10 < bytes) unit *= 2;
  for (;;) {
    for (const k of steps) if (unit * k >= bytes) return Math.round(unit * k);
    unit *= 2;
  }
}
