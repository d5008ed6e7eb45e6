/**
 * `createCluster`: the entry point the simulator's HTTP layer, tests and benchmarks use. It builds
 * a seeded cluster and exposes its endpoints, node availability, task faults and read access
 * to the state.
 */
import type { SimEndpoint } from '../contract.js';
import { clusterEndpoints } from '../families.js';
import { generateCluster } from './generate.js';
import { resolvePreset } from './presets.js';
import type { ClusterState } from './state.js';
import type { TaskFault, TaskRecord } from './tasks.js';
import type { Guest, SimStorage } from './types.js';

export interface CreateClusterOptions {
  /** `demo`, `small`, `scale-2000`, `scale-10000` or any `scale-<N>`. */
  preset: string;
  /** Same preset + seed + clock start → the same cluster. Default: the preset's seed (1). */
  seed?: number;
  /** How long a worker task runs, in ms (default 300; 0 = done by the next request). */
  taskDurationMs?: number;
  /** Epoch milliseconds; tests pass a fake clock to step time. Default `Date.now`. */
  clock?: () => number;
}

export interface SimCluster {
  readonly preset: string;
  readonly seed: number;
  /** Undefined for a stand-alone node (`small`). */
  readonly clusterName: string | undefined;
  readonly nodeNames: readonly string[];
  /** Live list: push, splice or clear at any time to make tasks slow or fail. */
  readonly taskFaults: TaskFault[];
  /** Direct state access for tests and benchmarks (call `settle()` before reading raw maps). */
  readonly state: ClusterState;
  endpoints(): SimEndpoint[];
  hasNode(node: string): boolean;
  /** Throws PVE's 500 hostname-lookup error for a name that is not a cluster node. */
  isNodeOnline(node: string): boolean;
  setNodeOnline(node: string, online: boolean): void;
  /**
   * Pools whose ACLs also apply to an ACL path (`/vms/101` → the guest's pool, `/storage/x` →
   * pools holding the storage), for permission propagation through `/pool/<id>`.
   */
  poolsFor(aclPath: string): string[];
  /** Applies task begins/ends that are due at the current clock time. */
  settle(): void;
  guest(vmid: number): Guest | undefined;
  guests(): Guest[];
  storages(): SimStorage[];
  task(upid: string): TaskRecord | undefined;
  /** All tasks, newest first. */
  tasks(): TaskRecord[];
}

export const DEFAULT_TASK_DURATION_MS = 300;

export function createCluster(opts: CreateClusterOptions): SimCluster {
  const spec = resolvePreset(opts.preset);
  const seed = opts.seed ?? spec.defaultSeed;
  const clock = opts.clock ?? Date.now;
  const taskDurationMs = opts.taskDurationMs ?? DEFAULT_TASK_DURATION_MS;
  if (!Number.isFinite(taskDurationMs) || taskDurationMs < 0) {
    throw new RangeError(`taskDurationMs must be a non-negative number of milliseconds, got ${taskDurationMs}`);
  }
  const state = generateCluster(spec, seed, clock, taskDurationMs);
  const endpoints = clusterEndpoints(state);

  return {
    preset: spec.name,
    seed,
    clusterName: state.clusterName,
    nodeNames: [...state.nodes.keys()],
    taskFaults: state.taskFaults,
    state,
    endpoints: () => endpoints,
    hasNode: (node) => state.nodes.has(node),
    isNodeOnline: (node) => state.node(node).online,
    setNodeOnline: (node, online) => {
      state.node(node).online = online;
    },
    poolsFor: (aclPath) => {
      const vm = /^\/vms\/(\d+)$/.exec(aclPath);
      if (vm) {
        const pool = state.guests.get(Number(vm[1]))?.pool;
        return pool ? [pool] : [];
      }
      const st = /^\/storage\/([^/]+)$/.exec(aclPath);
      if (st) return [...state.pools.values()].filter((p) => p.storages.has(st[1] as string)).map((p) => p.poolid);
      return [];
    },
    settle: () => state.tasks.settle(),
    guest: (vmid) => {
      state.tasks.settle();
      return state.guests.get(vmid);
    },
    guests: () => state.allGuests(),
    storages: () => [...state.storages.values()],
    task: (upid) => state.tasks.get(upid),
    tasks: () => state.tasks.listAll(),
  };
}
