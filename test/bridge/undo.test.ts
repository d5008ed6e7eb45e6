/**
 * Undo in the bridge: a change's intent carries what reverses it (from the identity check's read,
 * with no extra request), the policy's safety snapshot comes first and a failed one stops the
 * change, and `pve.undo` answers with the reversal (noting in a dry-run's plan what it cannot do).
 */
import { describe, expect, it } from 'vitest';
import { FakeClient } from '../safety/helpers/fake-client.js';
import { testModel } from '../safety/helpers/model.js';
import { Budgets } from '../../src/safety/budget.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import { PlanRecorder } from '../../src/safety/plan.js';
import { Policy } from '../../src/policy/policy.js';
import { createBridgeHandler } from '../../src/bridge/handler.js';
import type { BridgeDeps, RunMode } from '../../src/bridge/runtime.js';
import type { BridgeReply } from '../../src/bridge/protocol.js';
import type { HttpMethod } from '../../src/schema/model.js';
import type { RecordedChange } from '../../src/safety/undo.js';

const RUN = '0f8e6a2c-1234-4abc-8def-0123456789ab';

/** Storage that can take snapshots (the feature read says so). */
class SnapshotClient extends FakeClient {
  override async request(method: HttpMethod, path: string, params: Record<string, unknown> = {}): Promise<unknown> {
    if (method === 'GET' && path.endsWith('/feature')) {
      this.requests.push({ method, path, params });
      return { hasFeature: 1 };
    }
    return super.request(method, path, params);
  }
}

function setup(policyConfig: unknown, mode: RunMode = 'live', extra: Partial<BridgeDeps> = {}) {
  const client = new SnapshotClient([{ vmid: 101, node: 'pve1', name: 'web', config: { memory: 2048, onboot: 1 } }]);
  const policy = Policy.fromConfig(policyConfig);
  const intents: Array<Record<string, unknown>> = [];
  const calls: Array<Record<string, unknown>> = [];
  const plan = mode === 'dry-run' ? new PlanRecorder() : undefined;
  const handler = createBridgeHandler({
    runId: 'run-2',
    clusters: new RunClusters({ name: 'default', model: testModel(), policy, client: client, byClass: classClients(client) }),
    budgets: new Budgets('default', () => policy.budgetLimits),
    mode,
    ...(plan ? { plan } : {}),
    audit: { append: (_t, data) => calls.push(data), intend: (data) => ({ seq: intents.push(data) - 1 }) },
    ...extra,
  });
  const signal = new AbortController().signal;
  return { client, intents, calls, plan, call: (c: Parameters<typeof handler>[0]) => handler(c, { signal }) };
}

function errorOf(reply: BridgeReply) {
  if (reply.ok) throw new Error(`expected an error, got ${JSON.stringify(reply.data)}`);
  return reply.error;
}

describe('bridge: undo records', () => {
  it("a config write's intent carries the previous values, read by the identity check alone", async () => {
    const t = setup({ preset: 'operator' });
    const reply = await t.call({ kind: 'request', method: 'PUT', path: '/nodes/pve1/qemu/101/config', params: { memory: 8192, delete: 'onboot' } });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    expect(t.intents[0]?.undo).toEqual({ kind: 'config', guest: { node: 'pve1', type: 'qemu', vmid: 101 }, before: { memory: '2048', onboot: '1' }, after: { memory: '8192', onboot: null } });
    expect(t.client.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/config'))).toHaveLength(1);
  });

  it('takes the safety snapshot the policy asks for first, and a failed one stops the change', async () => {
    const ok = setup({ preset: 'operator', undo: { snapshotBefore: ['write'] } });
    expect((await ok.call({ kind: 'request', method: 'PUT', path: '/nodes/pve1/qemu/101/config', params: { memory: 8192 } })).ok).toBe(true);
    expect(ok.client.writes.map((w) => `${w.method} ${w.path}`)).toEqual(['POST /nodes/pve1/qemu/101/snapshot', 'PUT /nodes/pve1/qemu/101/config']);
    expect(ok.intents[0]).toMatchObject({ safetySnapshot: true, undo: { kind: 'rollback', snapname: 'undo-run2' } });

    const failing = setup({ preset: 'operator', undo: { snapshotBefore: ['write'] } });
    failing.client.taskOutcome = 'fail';
    const e = errorOf(await failing.call({ kind: 'request', method: 'PUT', path: '/nodes/pve1/qemu/101/config', params: { memory: 8192 } }));
    expect(e).toMatchObject({ kind: 'api', outcome: 'not-sent' });
    expect(e.message).toMatch(/safety snapshot the policy asks for before it could not be taken/);
    expect(failing.client.writes.map((w) => w.method + ' ' + w.path)).toEqual(['POST /nodes/pve1/qemu/101/snapshot']);
    // The next change to the guest does not slip through without its snapshot.
    expect(errorOf(await failing.call({ kind: 'request', method: 'PUT', path: '/nodes/pve1/qemu/101/config', params: { cores: 2 } })).kind).toBe('api');
    expect(failing.client.writes.filter((w) => w.method === 'PUT')).toEqual([]);
  });
});

describe('bridge: pve.undo', () => {
  const recorded: RecordedChange[] = [
    {
      seq: 3,
      cluster: 'default',
      method: 'PUT',
      path: '/nodes/pve1/qemu/101/config',
      outcome: 'done',
      undo: { kind: 'config', guest: { node: 'pve1', type: 'qemu', vmid: 101 }, before: { memory: '1024' }, after: { memory: '2048' } },
    },
    { seq: 4, cluster: 'default', method: 'DELETE', path: '/nodes/pve1/storage/local/content/local:iso/x.iso', outcome: 'done', undo: { kind: 'none', why: 'a deleted volume cannot be restored' } },
  ];

  it('answers with the reversing steps, and a dry-run plan says what cannot be undone', async () => {
    const t = setup({ preset: 'operator' }, 'dry-run', { runChanges: (id) => (id === RUN ? recorded : []) });
    const reply = await t.call({ kind: 'undo', runId: RUN });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    const plan = (reply as { data: { steps: Array<{ params: Record<string, unknown> }>; cannot: string[] } }).data;
    expect(plan.steps.map((s) => s.params)).toEqual([{ memory: '1024', digest: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
    expect(t.plan?.finish('code', 'operator').notes).toEqual(['not undone: DELETE /nodes/pve1/storage/local/content/local:iso/x.iso: a deleted volume cannot be restored']);
    expect(t.client.writes).toEqual([]);
  });

  it('is refused without an audit to read, for the run itself, and for a run with no recorded change', async () => {
    expect(errorOf(await setup({ preset: 'operator' }).call({ kind: 'undo', runId: RUN })).message).toMatch(/keeps no audit log/);
    expect(errorOf(await setup({ preset: 'operator' }, 'live', { runId: RUN, runChanges: () => recorded }).call({ kind: 'undo', runId: RUN })).message).toMatch(/cannot undo itself/);
    expect(errorOf(await setup({ preset: 'operator' }, 'live', { runChanges: () => [] }).call({ kind: 'undo', runId: RUN })).message).toMatch(/made no recorded changes/);
  });
});
