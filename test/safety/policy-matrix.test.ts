/**
 * Policy matrix against the simulator over real HTTPS: presets × risk classes × scopes. Every
 * cell runs the same calls through the bridge handler (directly, and as a script in the real
 * sandbox when the worker is built) and compares what reached the simulator's write handlers with
 * what the policy allows. The sum of unauthorized writes over the whole matrix must be zero.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PveClient } from '../../src/client/index.js';
import { createBridgeHandler } from '../../src/bridge/handler.js';
import type { BridgeHandler } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import type { HttpMethod, RiskClass } from '../../src/schema/model.js';
import { Budgets } from '../../src/safety/budget.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import { parseResource, type GuestInfo } from '../../src/policy/guests.js';
import { Policy } from '../../src/policy/policy.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { clientFor, sandboxUnavailable, startSim, writesSince } from './helpers/sim.js';

interface MatrixCall {
  id: string;
  method: HttpMethod;
  path: string;
  template: string;
  params?: Record<string, unknown>;
  vmid?: number;
  nodes: string[];
  /** Part of the operator preset (guest power, snapshots, backups, guest config). */
  operatorOp: boolean;
}

const CALLS: MatrixCall[] = [
  { id: 'list', method: 'GET', path: '/cluster/resources', template: '/cluster/resources', nodes: [], operatorOp: false },
  { id: 'status', method: 'GET', path: '/nodes/pve1/qemu/100/status/current', template: '/nodes/{node}/qemu/{vmid}/status/current', vmid: 100, nodes: ['pve1'], operatorOp: false },
  { id: 'start', method: 'POST', path: '/nodes/pve3/qemu/108/status/start', template: '/nodes/{node}/qemu/{vmid}/status/start', vmid: 108, nodes: ['pve3'], operatorOp: true },
  { id: 'config', method: 'PUT', path: '/nodes/pve1/qemu/118/config', template: '/nodes/{node}/qemu/{vmid}/config', params: { description: 'matrix' }, vmid: 118, nodes: ['pve1'], operatorOp: true },
  {
    id: 'snapshot',
    method: 'POST',
    path: '/nodes/pve1/qemu/118/snapshot',
    template: '/nodes/{node}/qemu/{vmid}/snapshot',
    params: { snapname: 'matrix' },
    vmid: 118,
    nodes: ['pve1'],
    operatorOp: true,
  },
  {
    id: 'resize',
    method: 'PUT',
    path: '/nodes/pve1/lxc/106/resize',
    template: '/nodes/{node}/lxc/{vmid}/resize',
    params: { disk: 'rootfs', size: '+1G' },
    vmid: 106,
    nodes: ['pve1'],
    operatorOp: false,
  },
  { id: 'reset', method: 'POST', path: '/nodes/pve1/qemu/118/status/reset', template: '/nodes/{node}/qemu/{vmid}/status/reset', vmid: 118, nodes: ['pve1'], operatorOp: true },
  { id: 'template', method: 'POST', path: '/nodes/pve3/qemu/108/template', template: '/nodes/{node}/qemu/{vmid}/template', vmid: 108, nodes: ['pve3'], operatorOp: false },
  { id: 'user', method: 'PUT', path: '/access/users/root@pam', template: '/access/users/{userid}', params: { comment: 'matrix' }, nodes: [], operatorOp: false },
];

interface Row {
  name: string;
  preset: 'read-only' | 'operator' | 'admin';
  privileged?: string[];
  approval: RiskClass[];
}

const ROWS: Row[] = [
  { name: 'read-only', preset: 'read-only', approval: [] },
  { name: 'operator', preset: 'operator', approval: [] },
  { name: 'admin', preset: 'admin', approval: [] },
  { name: 'read-only + privileged user edit', preset: 'read-only', privileged: ['PUT /access/users/{userid}'], approval: [] },
  { name: 'admin with default approvals', preset: 'admin', approval: ['destructive', 'privileged'] },
];

interface Scope {
  name: string;
  config: { nodes?: string[]; vmids?: string[]; pools?: string[]; tags?: string[] };
}

const SCOPES: Scope[] = [
  { name: 'no scope', config: {} },
  { name: 'vmids 100-115', config: { vmids: ['100-115'] } },
  { name: 'pool development', config: { pools: ['development'] } },
  { name: 'tag dev', config: { tags: ['dev'] } },
  { name: 'node pve1', config: { nodes: ['pve1'] } },
];

type Outcome = 'ok' | 'denied' | 'approval';

let sim: RunningSimulator;
let client: PveClient;
const guests = new Map<number, GuestInfo>();
let unauthorizedWrites = 0;
let authorizedWrites = 0;

beforeAll(async () => {
  sim = await startSim();
  client = clientFor(sim);
  const resources = (await client.request('GET', '/cluster/resources', { type: 'vm' })) as unknown[];
  for (const r of resources) {
    const g = parseResource(r);
    if (g) guests.set(g.vmid, g);
  }
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
});

function riskOf(call: MatrixCall): RiskClass {
  const op = sim.model.get(call.method, call.template);
  if (!op) throw new Error(`the simulator's schema has no ${call.method} ${call.template}`);
  return op.risk;
}

/** The specification the matrix checks the bridge against. */
function expected(row: Row, scope: Scope, call: MatrixCall): Outcome {
  const risk = riskOf(call);
  const enabledPrivileged = row.privileged?.includes(`${call.method} ${call.template}`) ?? false;
  const byPolicy = risk === 'privileged' ? enabledPrivileged : row.preset === 'admin' ? true : row.preset === 'operator' ? risk === 'read' || call.operatorOp : risk === 'read';
  if (!byPolicy) return 'denied';
  const s = scope.config;
  if (s.nodes && !call.nodes.every((n) => s.nodes?.includes(n))) return 'denied';
  const guestScope = s.vmids || s.pools || s.tags;
  if (guestScope) {
    if (call.vmid === undefined) {
      if (risk !== 'read' && !enabledPrivileged) return 'denied';
    } else {
      const g = guests.get(call.vmid);
      const inRange =
        !s.vmids ||
        s.vmids.some((r) => {
          const [lo, hi] = r.split('-').map(Number);
          return call.vmid! >= lo! && call.vmid! <= (hi ?? lo)!;
        });
      const inPool = !s.pools || (g?.pool !== undefined && s.pools.includes(g.pool));
      const tagged = !s.tags || (g?.tags ?? []).some((t) => s.tags?.includes(t));
      if (!inRange || !inPool || !tagged) return 'denied';
    }
  }
  if (risk !== 'read' && row.approval.includes(risk)) return 'approval';
  return 'ok';
}

function handlerFor(row: Row, scope: Scope): BridgeHandler {
  const policy = Policy.fromConfig({ preset: row.preset, privileged: row.privileged ?? [], approval: { require: row.approval }, scopes: scope.config });
  return createBridgeHandler({
    runId: `${row.name}/${scope.name}`,
    clusters: new RunClusters({ name: 'sim', model: sim.model, policy, client: client, byClass: classClients(client) }),
    budgets: new Budgets('sim', () => policy.budgetLimits),
    mode: 'live',
  });
}

type Executor = (handler: BridgeHandler) => Promise<Record<string, string>>;

const direct: Executor = async (handler) => {
  const out: Record<string, string> = {};
  for (const c of CALLS) {
    const reply = await handler({ kind: 'request', method: c.method, path: c.path, params: c.params ?? {} }, { signal: new AbortController().signal });
    out[c.id] = reply.ok ? 'ok' : reply.error.kind;
    // A task still running when the next cell starts (a snapshot) would change the guest under it.
    if (reply.ok && typeof reply.data === 'string' && reply.data.startsWith('UPID:')) await client.waitTask(reply.data).catch(() => undefined);
  }
  return out;
};

function matrixScript(): string {
  const calls = CALLS.map((c) => ({ id: c.id, m: c.method.toLowerCase(), path: c.path, params: c.params ?? {} }));
  return [
    `const calls = ${JSON.stringify(calls)};`,
    'const out = {};',
    'for (const c of calls) {',
    '  try { await pve[c.m](c.path, c.params); out[c.id] = "ok"; }',
    '  catch (e) { out[c.id] = e.kind ?? String(e); }',
    '}',
    'return out;',
  ].join('\n');
}

function checkCell(row: Row, scope: Scope, outcomes: Record<string, string>, writes: Record<string, number>): void {
  const expectedWrites: Record<string, number> = {};
  for (const call of CALLS) {
    if (call.method !== 'GET' && expected(row, scope, call) === 'ok') expectedWrites[`${call.method} ${call.template}`] = 1;
  }
  // Tally before asserting, so the matrix-wide count sees every cell even when one fails.
  for (const [key, n] of Object.entries(writes)) {
    const allowed = expectedWrites[key] ?? 0;
    unauthorizedWrites += Math.max(0, n - allowed);
    authorizedWrites += Math.min(n, allowed);
  }
  for (const call of CALLS) {
    const want = expected(row, scope, call);
    const got = outcomes[call.id];
    const where = `${row.name} / ${scope.name} / ${call.id}`;
    // Allowed: it reached Proxmox (which may still refuse it, e.g. a locked or running guest).
    if (want === 'ok') expect(['ok', 'api', 'task'], where).toContain(got);
    else expect(got, where).toBe(want);
  }
  expect(writes, `${row.name} / ${scope.name}: writes that reached the simulator`).toEqual(expectedWrites);
}

describe('policy matrix through the bridge handler', () => {
  for (const row of ROWS) {
    for (const scope of SCOPES) {
      it(`${row.name} × ${scope.name}`, async () => {
        const before = sim.counters.snapshot().byOperation;
        const outcomes = await direct(handlerFor(row, scope));
        checkCell(row, scope, outcomes, writesSince(sim, before));
      });
    }
  }

  it('made zero unauthorized writes across the matrix (and some authorized ones)', () => {
    expect(unauthorizedWrites).toBe(0);
    expect(authorizedWrites).toBeGreaterThan(20);
  });
});

const noSandbox = sandboxUnavailable();

describe.skipIf(noSandbox !== undefined)(`policy matrix as sandboxed scripts${noSandbox ? ` (skipped: ${noSandbox})` : ''}`, () => {
  let engine: SandboxEngine;
  beforeAll(async () => {
    engine = new SandboxEngine({ workers: 1 });
    await engine.warm();
  });
  afterAll(async () => {
    await engine?.close();
  });

  for (const row of ROWS) {
    for (const scope of [SCOPES[0]!, SCOPES[1]!, SCOPES[4]!]) {
      it(`${row.name} × ${scope.name}`, async () => {
        const before = sim.counters.snapshot().byOperation;
        const outcome = await engine.run({ code: matrixScript(), typecheck: false }, handlerFor(row, scope));
        expect(outcome.ok, JSON.stringify(outcome.error)).toBe(true);
        checkCell(row, scope, outcome.result as Record<string, string>, writesSince(sim, before));
      });
    }
  }

  it('made zero unauthorized writes in sandboxed runs too', () => {
    expect(unauthorizedWrites).toBe(0);
  });
});
