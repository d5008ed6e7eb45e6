import { describe, expect, it } from 'vitest';
import { FakeClient } from '../safety/helpers/fake-client.js';
import { testModel } from '../safety/helpers/model.js';
import { Budgets } from '../../src/safety/budget.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import { PlanBinding, PlanRecorder } from '../../src/safety/plan.js';
import { Policy } from '../../src/policy/policy.js';
import { REDACTED, SecretScrubber } from '../../src/safety/redact.js';
import { createBridgeHandler } from '../../src/bridge/handler.js';
import type { BridgeDeps, RunMode } from '../../src/bridge/runtime.js';
import type { BridgeCall, BridgeReply } from '../../src/bridge/protocol.js';

const model = testModel();
const ctx = () => ({ signal: new AbortController().signal });

function setup(policyConfig: unknown, mode: RunMode = 'live', { policyFor, ...extra }: Partial<BridgeDeps> & { policyFor?: (cluster: string) => Policy } = {}) {
  const client = new FakeClient([
    { vmid: 101, node: 'pve1', name: 'web', pool: 'lab', tags: 'prod;web', config: { memory: 2048 } },
    { vmid: 102, node: 'pve1', name: 'db', config: { memory: 4096 } },
    { vmid: 300, node: 'pve2', name: 'far', config: {} },
  ]);
  const policy = Policy.fromConfig(policyConfig);
  const audit: Array<Record<string, unknown>> = [];
  const intents: Array<Record<string, unknown>> = [];
  const plan = mode === 'dry-run' ? new PlanRecorder() : undefined;
  // Other clusters are reachable only when the test gives them policies.
  const handle = (name: string) => ({ name, model, policy: policyFor?.(name) ?? policy, client: client, byClass: classClients(client) });
  const clusters = new RunClusters(handle('default'), policyFor ? handle : undefined);
  const deps: BridgeDeps = {
    runId: 'run-1',
    clusters,
    budgets: new Budgets('default', (c) => clusters.get(c).policy.budgetLimits),
    mode,
    ...(plan ? { plan } : {}),
    audit: { append: (_t, data) => audit.push(data), intend: (data) => ({ seq: intents.push(data) - 1 }) },
    ...extra,
  };
  const handler = createBridgeHandler(deps);
  const call = (c: BridgeCall) => handler(c, ctx());
  const req = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, params: Record<string, unknown> = {}) => call({ kind: 'request', method, path, params });
  return { client, audit, intents, plan, deps, handler, call, req };
}

function errorOf(reply: BridgeReply) {
  if (reply.ok) throw new Error(`expected an error, got ${JSON.stringify(reply.data)}`);
  return reply.error;
}

describe('bridge handler: policy', () => {
  it('read-only runs reads and refuses writes without sending them', async () => {
    const t = setup(undefined);
    const list = await t.req('GET', '/nodes/{node}/qemu', { node: 'pve1' });
    expect(list).toMatchObject({ ok: true });
    const e = errorOf(await t.req('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 101 }));
    expect(e).toMatchObject({ kind: 'denied', method: 'POST', path: '/nodes/pve1/qemu/101/status/start', risk: 'write' });
    expect(e.message).toMatch(/preset 'read-only'/);
    expect(t.client.writes).toHaveLength(0);
    expect(t.audit.map((a) => a.status)).toEqual(['ok', 'denied']);
    expect(t.audit[1]).toMatchObject({ runId: 'run-1', cluster: 'default', method: 'POST', rule: "preset 'read-only'" });
  });

  it('operator sends guest power writes but destructive ones need approval', async () => {
    const t = setup({ preset: 'operator' });
    const started = await t.req('POST', '/nodes/pve1/qemu/101/status/start');
    expect(started.ok && typeof started.data === 'string' && started.data.startsWith('UPID:')).toBe(true);
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/stop'));
    expect(e.kind).toBe('approval');
    expect(e.message).toMatch(/dryRun: true.*pve-code-mcp approve <planId>/);
    expect(t.client.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/start']);
    expect(t.audit[0]).toMatchObject({ status: 'ok', upid: expect.stringMatching(/^UPID:/) });
  });

  it('a password parameter makes a config write privileged', async () => {
    const t = setup({ preset: 'operator' });
    const e = errorOf(await t.req('PUT', '/nodes/pve1/qemu/101/config', { cipassword: 'S3cret-pass' }));
    expect(e).toMatchObject({ kind: 'denied', risk: 'privileged' });
    expect(e.message).toMatch(/privileged with parameter 'cipassword'/);
    expect(t.audit[0]?.params).toEqual({ cipassword: REDACTED });
  });

  it('enforces scopes: VMID ranges, pools, tags and nodes', async () => {
    const vmids = setup({ preset: 'operator', scopes: { vmids: ['100-199'] } });
    expect((await vmids.req('POST', '/nodes/pve1/qemu/101/status/start')).ok).toBe(true);
    expect(errorOf(await vmids.req('POST', '/nodes/pve2/qemu/300/status/start')).message).toMatch(/VMID 300, outside policy 'operator' scopes\.vmids \[100-199\]/);
    expect(errorOf(await vmids.req('GET', '/nodes/pve2/qemu/300/config')).kind).toBe('denied');
    expect((await vmids.req('GET', '/cluster/resources')).ok).toBe(true);

    const pools = setup({ preset: 'operator', scopes: { pools: ['lab'] } });
    expect((await pools.req('POST', '/nodes/pve1/qemu/101/status/start')).ok).toBe(true);
    expect(errorOf(await pools.req('POST', '/nodes/pve1/qemu/102/status/start')).message).toMatch(/VMID 102 is in no pool/);

    const tags = setup({ preset: 'operator', scopes: { tags: ['PROD'] } });
    expect((await tags.req('POST', '/nodes/pve1/qemu/101/status/start')).ok).toBe(true);
    expect(errorOf(await tags.req('POST', '/nodes/pve1/qemu/102/status/start')).kind).toBe('denied');

    const nodes = setup({ preset: 'admin', scopes: { nodes: ['pve1'] } });
    expect(errorOf(await nodes.req('POST', '/nodes/pve1/qemu/101/migrate', { target: 'pve2' })).message).toMatch(/targets node pve2/);
    for (const t of [vmids, pools, tags, nodes]) expect(t.client.writes.every((w) => w.path.includes('/101/'))).toBe(true);
  });

  it('under a guest scope, untargeted or all-guest writes are refused', async () => {
    const t = setup({ preset: 'operator', scopes: { vmids: ['100-199'] } });
    expect(errorOf(await t.req('POST', '/nodes/pve1/vzdump', { all: 1 })).message).toMatch(/addresses every guest/);
    expect(errorOf(await t.req('POST', '/nodes/pve1/vzdump', {})).message).toMatch(/names no guest/);
    expect(errorOf(await t.req('POST', '/nodes/pve1/vzdump', { vmid: '101,300' })).message).toMatch(/VMID 300/);
    expect((await t.req('POST', '/nodes/pve1/vzdump', { vmid: '101', exclude: '300' })).ok).toBe(true);
  });

  it('charges every attempt, also denied and malformed ones', async () => {
    const t = setup({ budget: { calls: 3, write: 1 } });
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start')).kind).toBe('denied');
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start')).kind).toBe('budget');
    expect(errorOf(await t.call({ kind: 'rejected', error: { kind: 'invalid', message: 'invalid call: kind' } })).kind).toBe('invalid');
    const e = errorOf(await t.req('GET', '/version'));
    expect(e.kind).toBe('budget');
    expect(e.message).toMatch(/call budget used up \(3 calls per run\)/);
    expect(t.deps.budgets.usage().calls).toEqual({ used: 4, limit: 3 });
  });

  it('looks nothing up on the cluster for a call over the budget', async () => {
    // A write's guests are looked up (`GET /cluster/resources`) before it is decided: not once the budget refused it.
    const t = setup({ preset: 'operator', budget: { calls: 1 } });
    expect((await t.req('GET', '/version')).ok).toBe(true);
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start')).kind).toBe('budget');
    expect(t.client.requests.map((r) => r.path)).toEqual(['/version']);
  });
});

describe('bridge handler: validation and errors', () => {
  it('answers prototype keys, unknown clusters and client failures as data', async () => {
    const t = setup(undefined);
    expect(errorOf(await t.call({ kind: 'request', method: 'GET', path: '/version', params: JSON.parse('{"__proto__":{"x":1}}') as Record<string, unknown> })).message).toMatch(/forbidden key/);
    expect(errorOf(await t.call({ kind: 'request', method: 'GET', path: '/version', params: {}, cluster: 'lab' })).message).toMatch(/unknown cluster 'lab'/);
    expect(errorOf(await t.req('GET', '/nodes/pve1/qemu/999/config'))).toMatchObject({ kind: 'api', status: 500 });
    t.client.request = () => Promise.reject('not even an Error');
    expect(errorOf(await t.req('GET', '/version'))).toMatchObject({ kind: 'internal' });
  });

  it('redacts secret fields in results and scrubs known secrets from errors', async () => {
    const secret = '0c9f5a4e-1111-2222-3333-444455556666';
    const t = setup({ privileged: ['POST /access/users/{userid}/token/{tokenid}'], approval: { require: [] } }, 'live', { secrets: new SecretScrubber([secret]) });
    t.client.request = async (method, path) => {
      t.client.requests.push({ method, path, params: {} });
      if (method === 'POST') return { 'full-tokenid': 'a@pve!x', value: 'new-token-value-123' };
      throw Object.assign(new Error(`failed with token ${secret}`), { status: 500 });
    };
    const created = await t.req('POST', '/access/users/{userid}/token/{tokenid}', { userid: 'a@pve', tokenid: 'x' });
    expect(created).toEqual({ ok: true, data: { 'full-tokenid': 'a@pve!x', value: REDACTED } });
    const e = errorOf(await t.req('GET', '/version'));
    expect(e.message).not.toContain(secret);
    expect(JSON.stringify(t.audit)).not.toContain(secret);
  });

  it('never rejects, even when the signal is already aborted', async () => {
    const t = setup(undefined);
    const ac = new AbortController();
    ac.abort();
    const reply = await t.handler({ kind: 'request', method: 'GET', path: '/version', params: {} }, { signal: ac.signal });
    expect(errorOf(reply)).toMatchObject({ kind: 'cancelled', outcome: 'not-sent' });
  });
});

describe('bridge handler: dry-run, approval binding, identity', () => {
  it('dry-run reads for real, records writes, resolves waitTask as planned', async () => {
    const t = setup({ preset: 'operator' }, 'dry-run');
    const vms = await t.req('GET', '/nodes/pve1/qemu');
    expect(vms.ok).toBe(true);
    const stop = await t.req('POST', '/nodes/{node}/qemu/{vmid}/status/stop', { node: 'pve1', vmid: 101 });
    if (!stop.ok || typeof stop.data !== 'string') throw new Error('expected a planned UPID');
    expect(stop.data).toMatch(/^UPID:pve1:00000000:00000000:00000001:dryrun:101:planned@dry-run:$/);
    const waited = await t.call({ kind: 'waitTask', upid: stop.data });
    expect(waited).toMatchObject({ ok: true, data: { ok: true, planned: true, exitstatus: 'OK' } });
    const status = await t.req('GET', '/nodes/{node}/tasks/{upid}/status', { node: 'pve1', upid: stop.data });
    expect(status).toMatchObject({ ok: true, data: { status: 'stopped', planned: true } });
    const cfg = await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 8192 });
    expect(cfg).toEqual({ ok: true, data: null });
    expect(t.client.writes).toHaveLength(0);
    const plan = t.plan!.finish('script', 'operator');
    expect(plan.writes.map((w) => [w.method, w.path, w.risk, w.needsApproval])).toEqual([
      ['POST', '/nodes/pve1/qemu/101/status/stop', 'destructive', true],
      ['PUT', '/nodes/pve1/qemu/102/config', 'write', false],
    ]);
    expect(plan.writes[0]?.targets[0]).toMatchObject({ vmid: 101, exists: true, name: 'web', digest: t.client.digestOf(t.client.guests.get(101)!) });
  });

  it('an approved run may make exactly the planned writes, in the planned order', async () => {
    const dry = setup({ preset: 'operator' }, 'dry-run');
    await dry.req('POST', '/nodes/pve1/qemu/101/status/stop');
    await dry.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 8192 });
    const plan = dry.plan!.finish('script', 'operator');
    const t = setup({ preset: 'operator' }, 'approved', { binding: new PlanBinding(plan, 20) });
    expect(errorOf(await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 9999 })).kind).toBe('approval');
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/102/status/stop')).message).toMatch(/not in the approved plan/);
    expect(errorOf(await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 8192 })).message).toMatch(/step 2 of the approved plan, but step 1 .* has not been made/);
    expect((await t.req('POST', '/nodes/pve1/qemu/101/status/stop')).ok).toBe(true);
    expect((await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 8192 })).ok).toBe(true);
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/stop')).message).toMatch(/already been made/);
    expect(t.client.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/stop', '/nodes/pve1/qemu/102/config']);
  });

  it('an approved run is refused when the guest changed since the plan', async () => {
    const dry = setup({ preset: 'operator' }, 'dry-run');
    await dry.req('POST', '/nodes/pve1/qemu/101/status/stop');
    const plan = dry.plan!.finish('script', 'operator');
    const t = setup({ preset: 'operator' }, 'approved', { binding: new PlanBinding(plan) });
    t.client.guests.get(101)!.config = { memory: 1 };
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/stop'));
    expect(e.kind).toBe('identity');
    expect(e.message).toMatch(/configuration changed since it was read/);
    expect(t.client.writes).toHaveLength(0);
  });

  it('a VMID that now names another guest is refused in a live run', async () => {
    const t = setup({ preset: 'operator' });
    await t.req('GET', '/nodes/pve1/qemu');
    t.client.guests.set(101, { vmid: 101, node: 'pve1', name: 'impostor', type: 'qemu', config: {} });
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e).toMatchObject({ kind: 'identity' });
    expect(e.message).toMatch(/name was 'web' and is now 'impostor'/);
    expect(t.client.writes).toHaveLength(0);
  });

  it('passes the config digest seen before the write, and later writes to the same guest still work', async () => {
    const t = setup({ preset: 'operator' });
    await t.req('GET', '/nodes/pve1/qemu/102/config');
    const digest = t.client.digestOf(t.client.guests.get(102)!);
    expect((await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 1024 })).ok).toBe(true);
    expect(t.client.writes[0]?.params).toEqual({ memory: 1024, digest });
    expect((await t.req('PUT', '/nodes/pve1/qemu/102/config', { memory: 2048 })).ok).toBe(true);
    expect(t.client.writes).toHaveLength(2);
  });
});

describe('bridge handler: waitTask', () => {
  it('waits within the task-wait budget and the node scope', async () => {
    const t = setup({ preset: 'operator', scopes: { nodes: ['pve1'] }, budget: { taskWaitMs: 1 } });
    const ok = await t.call({ kind: 'waitTask', upid: 'UPID:pve1:00001234:00005678:00000001:qmstart:101:root@pam:' });
    expect(ok).toMatchObject({ ok: true, data: { ok: true, exitstatus: 'OK' } });
    const other = errorOf(await t.call({ kind: 'waitTask', upid: 'UPID:pve2:00001234:00005678:00000001:qmstart:300:root@pam:' }));
    expect(other.message).toMatch(/node pve2, outside/);
    expect(errorOf(await t.call({ kind: 'waitTask', upid: 'UPID:planned:00000000:00000000:00000001:dryrun:101:planned@dry-run:' })).kind).toBe('invalid');
  });

  it('reports a failed task as kind task', async () => {
    const t = setup({ preset: 'operator' });
    const { PveTaskFailedError } = await import('../../src/client/task-errors.js');
    t.client.waitTask = async (upid) => {
      throw new PveTaskFailedError({ upid, node: 'pve1', status: 'stopped', exitstatus: 'VM 101 already running', ok: false, log: ['TASK ERROR: VM 101 already running'] });
    };
    const upid = 'UPID:pve1:00001234:00005678:00000001:qmstart:101:root@pam:';
    const e = errorOf(await t.call({ kind: 'waitTask', upid }));
    expect(e).toMatchObject({ kind: 'task', outcome: 'failed', upid, node: 'pve1', exitstatus: 'VM 101 already running', log: ['TASK ERROR: VM 101 already running'] });
    expect(e.message).toMatch(/already running/);
    expect(t.audit[0]).toMatchObject({ status: 'task', outcome: 'failed', upid, exitstatus: 'VM 101 already running' });
  });
});

describe('bridge handler: per-cluster policies', () => {
  it('decides each call with the policy of the cluster it targets', async () => {
    const lab = Policy.fromConfig({ name: 'lab', preset: 'operator' });
    const t = setup(undefined, 'live', {
      policyFor: (cluster) => (cluster === 'lab' ? lab : Policy.fromConfig(undefined)),
    });
    const onLab = await t.call({ kind: 'request', method: 'POST', path: '/nodes/pve1/qemu/101/status/start', params: {}, cluster: 'lab' });
    expect(onLab.ok).toBe(true);
    const onDefault = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(onDefault.message).toMatch(/policy 'read-only'/);
  });
});

describe('bridge handler: unverifiable identity', () => {
  it('does not write when the identity check itself is refused', async () => {
    const t = setup({ preset: 'operator' });
    const original = t.client.request.bind(t.client);
    t.client.request = async (method, path, params) => {
      if (method === 'GET' && path.endsWith('/config')) throw Object.assign(new Error('Permission check failed (/vms/101, VM.Audit)'), { status: 403 });
      return original(method, path, params);
    };
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e.kind).toBe('identity');
    expect(e.message).toMatch(/could not verify the identity of VMID 101.*VM.Audit/);
    expect(t.client.writes).toHaveLength(0);
  });
});

describe('bridge handler: calls the sandbox channel refused', () => {
  it('are audited, counted as invalid and charged against the call budget, without their bytes', async () => {
    const t = setup({ budget: { calls: 2 } });
    const refused = { kind: 'rejected' as const, error: { kind: 'invalid' as const, message: "invalid call: path: '..' segments are not allowed" } };
    expect(errorOf(await t.call(refused))).toEqual({ ...refused.error, outcome: 'not-sent' });
    expect(t.audit).toEqual([expect.objectContaining({ status: 'invalid', channel: 'refused before parsing', message: refused.error.message })]);
    await t.call(refused);
    // The third attempt is over the call budget, refused ones included.
    expect(errorOf(await t.req('GET', '/version')).kind).toBe('budget');
    expect(t.audit.map((a) => a.status)).toEqual(['invalid', 'invalid', 'budget']);
  });
});

describe('bridge handler: audit failure', () => {
  it('fails closed once the audit cannot be written', async () => {
    const fail = () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const t = setup({ preset: 'operator' }, 'live', { audit: { append: fail, intend: fail } });
    expect((await t.req('GET', '/version')).ok).toBe(true);
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e).toMatchObject({ kind: 'audit', outcome: 'not-sent' });
    expect(e.message).toMatch(/audit log cannot be written \(ENOSPC/);
    expect(t.client.writes).toHaveLength(0);
  });

  it('hands the record to afterReply when the caller offers it, and still fails closed once it fails', async () => {
    let failing = false;
    const t = setup({ preset: 'operator' }, 'live', {
      audit: {
        append: () => {
          if (failing) throw new Error('EIO: i/o error');
        },
        intend: () => ({ seq: 0 }),
      },
    });
    const deferred: Array<() => void> = [];
    const withHook = (path: string) => t.handler({ kind: 'request', method: 'GET', path, params: {} }, { ...ctx(), afterReply: (task) => deferred.push(task) });
    expect((await withHook('/version')).ok).toBe(true);
    expect(deferred).toHaveLength(1);
    failing = true;
    deferred.splice(0).forEach((task) => task());
    const e = errorOf(await withHook('/version'));
    expect(e.message).toMatch(/audit log cannot be written \(EIO/);
  });
});

describe('bridge handler: write-ahead and truthful outcomes', () => {
  it("writes a change's intent before it is sent, and links the outcome to it", async () => {
    const t = setup({ preset: 'operator' });
    const original = t.client.request.bind(t.client);
    const intentsAtSend: number[] = [];
    t.client.request = async (method, path, params) => {
      if (method !== 'GET') intentsAtSend.push(t.intents.length);
      return original(method, path, params);
    };
    await t.req('POST', '/nodes/pve1/qemu/101/status/start');
    expect(intentsAtSend).toEqual([1]);
    expect(t.intents[0]).toMatchObject({ runId: 'run-1', method: 'POST', path: '/nodes/pve1/qemu/101/status/start', node: 'pve1', vmids: [101], risk: 'write' });
    expect(t.audit.at(-1)).toMatchObject({ intent: 0, outcome: 'done', status: 'ok' });
    // Reads keep their single entry, written after the answer.
    await t.req('GET', '/version');
    expect(t.intents).toHaveLength(1);
    expect(t.audit.at(-1)).toMatchObject({ outcome: 'done' });
  });

  it('sends nothing when the intent cannot be written, and says so with its own kind', async () => {
    const t = setup({ preset: 'operator' }, 'live', {
      audit: {
        append: () => undefined,
        intend: () => {
          throw new Error('no space left on the device holding /var/lib/pve-code-mcp');
        },
      },
    });
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e).toMatchObject({ kind: 'audit', outcome: 'not-sent' });
    expect(e.message).toMatch(/was not sent: its intent could not be written/);
    expect(t.client.writes).toHaveLength(0);
  });

  it('lets a change already sent answer after its run ended, and reports what it did', async () => {
    const t = setup({ preset: 'operator' });
    const run = new AbortController();
    const original = t.client.request.bind(t.client);
    t.client.request = async (method, path, params, options) => {
      if (method === 'GET') return original(method, path, params, options);
      run.abort(); // the run ends while PVE works on the change
      await new Promise((r) => setTimeout(r, 50));
      if (options?.signal?.aborted) throw new Error('aborted although the change was on the wire');
      return original(method, path, params, options);
    };
    const reply = await t.handler({ kind: 'request', method: 'POST', path: '/nodes/pve1/qemu/101/status/start', params: {} }, { signal: run.signal });
    expect(reply.ok).toBe(true);
    expect(t.audit.at(-1)).toMatchObject({ outcome: 'done', upid: expect.stringMatching(/^UPID:/) });
  });

  it('reports a sent change without an answer as outcome unknown, never as cancelled', async () => {
    const { PveOutcomeUnknownError } = await import('../../src/client/errors.js');
    const t = setup({ preset: 'operator' });
    const original = t.client.request.bind(t.client);
    t.client.request = async (method, path, params, options) => {
      if (method === 'GET') return original(method, path, params, options);
      throw new PveOutcomeUnknownError(method, path, 'ECONNRESET');
    };
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/snapshot', { snapname: 'before' }));
    expect(e).toMatchObject({ kind: 'unknown', outcome: 'unknown' });
    expect(t.audit.at(-1)).toMatchObject({ status: 'unknown', outcome: 'unknown', intent: 0 });
  });

  it('refusals are not sent, and every record carries its outcome', async () => {
    const t = setup(undefined);
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e).toMatchObject({ kind: 'denied', outcome: 'not-sent' });
    expect(t.audit.at(-1)).toMatchObject({ status: 'denied', outcome: 'not-sent' });
    expect(t.intents).toHaveLength(0);
  });
});

describe('bridge handler: the kill switch', () => {
  it('refuses every change while halted, before its intent, approved steps included; reads go on', async () => {
    let halted: string | undefined = 'all changes are halted on this host (file /etc/pve-code-mcp/halt)';
    const t = setup({ preset: 'operator' }, 'live', { halted: () => halted });
    expect((await t.req('GET', '/version')).ok).toBe(true);
    const e = errorOf(await t.req('POST', '/nodes/pve1/qemu/101/status/start'));
    expect(e).toMatchObject({ kind: 'halted', outcome: 'not-sent', method: 'POST' });
    expect(e.message).toMatch(/POST \/nodes\/pve1\/qemu\/101\/status\/start: all changes are halted/);
    expect(t.client.writes).toHaveLength(0);
    expect(t.intents).toHaveLength(0);
    halted = undefined;
    expect((await t.req('POST', '/nodes/pve1/qemu/101/status/start')).ok).toBe(true);
  });

  it('stops an approved run before its next step', async () => {
    const dry = setup({ preset: 'operator' }, 'dry-run');
    await dry.req('POST', '/nodes/pve1/qemu/101/status/start');
    await dry.req('POST', '/nodes/pve1/qemu/102/status/start');
    const plan = dry.plan!.finish('script', 'operator');
    let halted: string | undefined;
    const t = setup({ preset: 'operator' }, 'approved', { binding: new PlanBinding(plan), halted: () => halted });
    expect((await t.req('POST', '/nodes/pve1/qemu/101/status/start')).ok).toBe(true);
    halted = 'all changes are halted on this host';
    expect(errorOf(await t.req('POST', '/nodes/pve1/qemu/102/status/start'))).toMatchObject({ kind: 'halted', outcome: 'not-sent' });
    expect(t.client.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/start']);
  });
});
