/**
 * Fault scenarios: named situations a real cluster gets into (a node down, a guest stuck in a
 * backup lock, lost quorum, a slow or flaky API, tasks that fail, a full storage), given on the
 * command line (`--scenario offline-node:pve2`), in a scenario file (`{"scenarios": [...]}`) or
 * as the `scenarios` start option. Each scenario is checked against the cluster it is applied to,
 * and every error says how to write it correctly.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { SimCluster } from './cluster/index.js';
import { setStorageFull } from './cluster/space.js';
import type { FaultController } from './faults.js';

/** Lock values PVE writes into guest configs (qemu-server and pve-container). */
export const GUEST_LOCKS = {
  qemu: ['backup', 'clone', 'create', 'migrate', 'rollback', 'snapshot', 'snapshot-delete', 'suspending', 'suspended'],
  lxc: ['backup', 'create', 'destroyed', 'disk', 'fstrim', 'migrate', 'mounted', 'rollback', 'snapshot', 'snapshot-delete'],
} as const;

const ALL_LOCKS = [...new Set([...GUEST_LOCKS.qemu, ...GUEST_LOCKS.lxc])];

const nodeName = z.string().regex(/^[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$/, 'a node name such as pve2');

export const scenarioSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('offline-node'),
    node: nodeName,
    /** `refused` (default): 595 at once; `timeout`: 595 after `timeoutMs`. */
    mode: z.enum(['refused', 'timeout']).optional(),
    timeoutMs: z.number().int().min(0).optional(),
  }),
  z.strictObject({
    kind: z.literal('locked'),
    vmid: z.number().int().min(100).max(999_999_999),
    lock: z.enum(ALL_LOCKS as [string, ...string[]]),
  }),
  z.strictObject({ kind: z.literal('no-quorum') }),
  z.strictObject({
    kind: z.literal('slow'),
    /** Added latency: fixed ms or a [min, max] range. */
    ms: z.union([z.number().min(0), z.tuple([z.number().min(0), z.number().min(0)])]),
    /** Glob on the request path below /api2/json (default: every call). */
    path: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('flaky'),
    /** Share of calls that fail (0..1). */
    rate: z.number().min(0).max(1),
    path: z.string().min(1).optional(),
    /** Default 595 with an empty body (pveproxy lost its backend); others get PVE's JSON error. */
    status: z.number().int().min(400).max(599).optional(),
    message: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal('failing-task'),
    /** Task type as in the UPID: vzdump, qmstart, qmigrate, vzstart… */
    type: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]*$/, 'a task type such as vzdump or qmstart'),
    vmid: z.number().int().min(100).optional(),
    node: nodeName.optional(),
    /** The task's error (default: what PVE reports for that task type). */
    message: z.string().min(1).optional(),
    /** Fail only this many tasks. */
    times: z.number().int().min(1).optional(),
  }),
  z.strictObject({ kind: z.literal('full-storage'), storage: z.string().regex(/^[a-zA-Z][a-zA-Z0-9\-_.]*[a-zA-Z0-9]$/, 'a storage ID such as local-lvm') }),
]);
export type Scenario = z.infer<typeof scenarioSchema>;

/** A scenario as written: the command-line text or the object form. */
export const scenarioInputSchema = z.union([z.string().min(1), scenarioSchema]);
export type ScenarioInput = z.input<typeof scenarioInputSchema>;

export const scenarioFileSchema = z.strictObject({
  /** Optional note on what the file is for. */
  description: z.string().optional(),
  scenarios: z.array(scenarioInputSchema),
});

export const SCENARIO_SYNTAX = [
  'offline-node:NODE[:timeout]   proxied calls to NODE answer 595 (the node is listed offline)',
  'locked:VMID:LOCK              the guest config carries lock LOCK (backup, migrate, snapshot…)',
  'no-quorum                     the answering node lost quorum: other nodes offline, writes fail',
  'slow:MS | slow:MIN-MAX        every call waits MS milliseconds (or MIN..MAX) first',
  'flaky:RATE                    that share of calls (0..1) fails with 595',
  'failing-task:TYPE[:VMID]      tasks of that type (vzdump, qmstart…) end with an error',
  'full-storage:STORAGE          the storage is full: allocations and backups on it fail',
];

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

const help = `Scenarios are written as:\n  ${SCENARIO_SYNTAX.join('\n  ')}`;

function bad(text: string, why: string): never {
  throw new ScenarioError(`Invalid scenario '${text}': ${why}\n${help}`);
}

function number(text: string, raw: string | undefined, what: string): number {
  if (raw === undefined || raw.trim() === '' || !Number.isFinite(Number(raw))) bad(text, `${what} must be a number, got '${raw ?? ''}'.`);
  return Number(raw);
}

/** Parses the command-line form (`offline-node:pve2`, `slow:200`…). */
export function parseScenarioText(text: string): Scenario {
  const [kind = '', ...args] = text.trim().split(':');
  const arity = (min: number, max: number): void => {
    if (args.length < min || args.length > max) bad(text, `'${kind}' takes ${min === max ? min : `${min} to ${max}`} argument(s) after the name, separated by ':'.`);
  };
  let candidate: unknown;
  switch (kind) {
    case 'offline-node':
      arity(1, 2);
      if (args[1] !== undefined && args[1] !== 'timeout' && args[1] !== 'refused') bad(text, `the mode after the node is 'timeout' or 'refused', got '${args[1]}'.`);
      candidate = { kind, node: args[0], ...(args[1] ? { mode: args[1] } : {}) };
      break;
    case 'locked':
      arity(2, 2);
      candidate = { kind, vmid: number(text, args[0], 'the VMID'), lock: args[1] };
      break;
    case 'no-quorum':
      arity(0, 0);
      candidate = { kind };
      break;
    case 'slow': {
      arity(1, 1);
      const range = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(args[0] ?? '');
      candidate = { kind, ms: range ? [Number(range[1]), Number(range[2])] : number(text, args[0], 'the latency in ms') };
      break;
    }
    case 'flaky':
      arity(1, 1);
      candidate = { kind, rate: number(text, args[0], 'the error rate (0..1)') };
      break;
    case 'failing-task':
      arity(1, 2);
      candidate = { kind, type: args[0], ...(args[1] !== undefined ? { vmid: number(text, args[1], 'the VMID') } : {}) };
      break;
    case 'full-storage':
      arity(1, 1);
      candidate = { kind, storage: args[0] };
      break;
    default:
      bad(text, `unknown scenario '${kind}'.`);
  }
  const parsed = scenarioSchema.safeParse(candidate);
  if (!parsed.success) bad(text, z.prettifyError(parsed.error).replace(/\n/g, ' '));
  return parsed.data;
}

/** Splits repeated / comma-separated command-line values into scenarios. */
export function parseScenarioList(values: readonly string[]): Scenario[] {
  return values
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map(parseScenarioText);
}

export function normalizeScenario(input: ScenarioInput): Scenario {
  if (typeof input === 'string') return parseScenarioText(input);
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) bad(JSON.stringify(input), z.prettifyError(parsed.error).replace(/\n/g, ' '));
  return parsed.data;
}

/** Reads a scenario file: `{"scenarios": ["offline-node:pve2", {"kind": "slow", "ms": 200}]}`. */
export async function loadScenarioFile(path: string): Promise<Scenario[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(`Cannot read the scenario file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ScenarioError(`The scenario file ${path} is not JSON (${(error as Error).message}); write {"scenarios": ["offline-node:pve2", ...]}.`);
  }
  const parsed = scenarioFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new ScenarioError(`The scenario file ${path} does not match {"description"?: string, "scenarios": [text or object, ...]}:\n${z.prettifyError(parsed.error)}\n${help}`);
  }
  return parsed.data.scenarios.map((s, i) => {
    try {
      return normalizeScenario(s);
    } catch (error) {
      throw new ScenarioError(`The scenario file ${path}, scenarios[${i}]: ${(error as Error).message}`);
    }
  });
}

/** The error each task type ends with when it fails, in PVE's words. */
export function defaultTaskError(type: string, vmid?: number): string {
  switch (type) {
    case 'vzdump':
      return 'job errors';
    case 'qmstart':
      return `start failed: QEMU exited with code 1`;
    case 'vzstart':
      return `startup for container '${vmid ?? ''}' failed`;
    case 'qmigrate':
    case 'vzmigrate':
      return 'migration aborted';
    case 'qmclone':
    case 'vzclone':
      return 'clone failed: command failed: exit code 1';
    case 'qmsnapshot':
    case 'vzsnapshot':
      return 'snapshot create failed: command failed: exit code 1';
    default:
      return 'command failed: exit code 1';
  }
}

export interface ScenarioTargets {
  cluster: SimCluster;
  faults: FaultController;
  /** The node this simulator answers as (it cannot be taken offline: nobody would answer). */
  localNode: string;
}

/** One line per scenario, for the CLI banner. */
export function describeScenario(s: Scenario): string {
  switch (s.kind) {
    case 'offline-node':
      return `node ${s.node} offline (${s.mode ?? 'refused'})`;
    case 'locked':
      return `guest ${s.vmid} locked (${s.lock})`;
    case 'no-quorum':
      return 'no quorum: writes fail';
    case 'slow':
      return `slow API: +${Array.isArray(s.ms) ? `${s.ms[0]}-${s.ms[1]}` : s.ms} ms${s.path ? ` on ${s.path}` : ''}`;
    case 'flaky':
      return `flaky API: ${Math.round(s.rate * 1000) / 10}% of calls fail${s.path ? ` on ${s.path}` : ''}`;
    case 'failing-task':
      return `${s.type} tasks fail${s.vmid !== undefined ? ` for ${s.vmid}` : ''}`;
    case 'full-storage':
      return `storage ${s.storage} full`;
  }
}

/** Applies scenarios to a running simulator's cluster and faults; throws ScenarioError naming the fix. */
export function applyScenarios(scenarios: readonly Scenario[], t: ScenarioTargets): void {
  const { cluster, faults } = t;
  const nodes = cluster.nodeNames;
  const where = (s: Scenario): string => describeScenario(s);
  for (const s of scenarios) {
    switch (s.kind) {
      case 'offline-node': {
        if (!cluster.hasNode(s.node)) throw new ScenarioError(`Scenario '${where(s)}': no node '${s.node}' in preset ${cluster.preset}; its nodes are ${nodes.join(', ')}.`);
        if (s.node === t.localNode) {
          const others = nodes.filter((n) => n !== t.localNode);
          throw new ScenarioError(
            `Scenario '${where(s)}': ${s.node} is the node the simulator answers as; take another node offline${others.length ? ` (${others.join(', ')})` : ' (a stand-alone preset has none: use demo or scale-<N>)'}.`,
          );
        }
        faults.setNodeOffline(s.node, s.mode ?? 'refused');
        if (s.timeoutMs !== undefined) faults.offlineTimeoutMs = s.timeoutMs;
        break;
      }
      case 'locked': {
        const g = cluster.guest(s.vmid);
        if (!g)
          throw new ScenarioError(
            `Scenario '${where(s)}': no guest ${s.vmid} in preset ${cluster.preset}; pick one of ${cluster
              .guests()
              .slice(0, 5)
              .map((x) => x.vmid)
              .join(', ')}…`,
          );
        if (!(GUEST_LOCKS[g.type] as readonly string[]).includes(s.lock)) {
          throw new ScenarioError(`Scenario '${where(s)}': ${g.type === 'qemu' ? 'a VM' : 'a container'} cannot carry lock '${s.lock}'; use one of ${GUEST_LOCKS[g.type].join(', ')}.`);
        }
        g.config.lock = s.lock;
        break;
      }
      case 'no-quorum': {
        if (!cluster.clusterName) throw new ScenarioError(`Scenario 'no-quorum': preset ${cluster.preset} is a stand-alone node, which always has quorum; use demo or scale-<N>.`);
        // The answering node is cut off from the others: it sees them offline and its /etc/pve is read-only.
        for (const n of nodes) if (n !== t.localNode) faults.setNodeOffline(n, 'refused');
        faults.quorate = false;
        break;
      }
      case 'slow':
        faults.add({ path: s.path ?? '/**', latencyMs: s.ms });
        break;
      case 'flaky': {
        const status = s.status ?? 595;
        faults.add({
          path: s.path ?? '/**',
          errorRate: s.rate,
          errorStatus: status,
          errorMessage: s.message ?? (status === 595 ? 'Connection timed out' : 'Internal Server Error'),
          errorBody: status === 595 ? 'none' : 'json',
        });
        break;
      }
      case 'failing-task': {
        if (s.node !== undefined && !cluster.hasNode(s.node)) throw new ScenarioError(`Scenario '${where(s)}': no node '${s.node}'; its nodes are ${nodes.join(', ')}.`);
        if (s.vmid !== undefined && !cluster.guest(s.vmid)) throw new ScenarioError(`Scenario '${where(s)}': no guest ${s.vmid} in preset ${cluster.preset}.`);
        cluster.taskFaults.push({
          type: s.type,
          fail: s.message ?? defaultTaskError(s.type, s.vmid),
          ...(s.vmid !== undefined ? { vmid: s.vmid } : {}),
          ...(s.node !== undefined ? { node: s.node } : {}),
          ...(s.times !== undefined ? { times: s.times } : {}),
        });
        break;
      }
      case 'full-storage': {
        const ids = cluster.storages().map((x) => x.storage);
        if (!ids.includes(s.storage)) throw new ScenarioError(`Scenario '${where(s)}': no storage '${s.storage}' in preset ${cluster.preset}; its storages are ${ids.join(', ')}.`);
        setStorageFull(cluster.state, s.storage);
        break;
      }
    }
  }
}
