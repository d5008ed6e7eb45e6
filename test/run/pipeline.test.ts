import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClient } from '../safety/helpers/fake-client.js';
import { testModel } from '../safety/helpers/model.js';
import type { BridgeHandler } from '../../src/bridge/protocol.js';
import { ApprovalStore, type ApprovalRequest, type ElicitationAnswer } from '../../src/safety/approval.js';
import { Policy } from '../../src/policy/policy.js';
import { sdkCallsOf, type SdkCall } from '../../src/script/calls.js';
import { lineCount, parseProgram } from '../../src/script/program.js';
import type { Executor } from '../../src/run/executor.js';
import { RunPipeline, type ExecutePhase, type PipelineDeps } from '../../src/run/pipeline.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import { withSecretGet as secretGetModel } from '../support/secret-get.js';

/** The SDK calls of a source, read as the compile reads them. */
const extractSdkCalls = (source: string): SdkCall[] => sdkCallsOf(parseProgram(source), lineCount(source));

const model = testModel();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'session-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  ok: boolean;
  result?: unknown;
  error?: { kind: string; message: string };
  stats?: { queueMs?: number };
}

/**
 * Stand-in for the sandbox: "stop every running guest on pve1", written against the handler.
 * The same source text is what the session hashes and the preflight reads.
 */
const CODE = `const vms = await pve.get('/nodes/pve1/qemu');
for (const vm of vms) await pve.post(\`/nodes/pve1/qemu/\${vm.vmid}/status/stop\`);
await pve.post('/nodes/pve1/qemu/101/status/stop');`;

const stopAll = async (handler: BridgeHandler): Promise<Outcome> => {
  const signal = new AbortController().signal;
  const list = await handler({ kind: 'request', method: 'GET', path: '/nodes/pve1/qemu', params: {} }, { signal });
  if (!list.ok) return { ok: false, error: list.error };
  for (const vm of list.data as Array<{ vmid: number }>) {
    const r = await handler({ kind: 'request', method: 'POST', path: `/nodes/pve1/qemu/${vm.vmid}/status/stop`, params: {} }, { signal });
    if (!r.ok) return { ok: false, error: r.error };
  }
  return { ok: true, result: list.data };
};

function setup(answer?: ElicitationAnswer) {
  const client = new FakeClient([
    { vmid: 101, node: 'pve1', name: 'web', config: {} },
    { vmid: 102, node: 'pve1', name: 'db', config: {} },
  ]);
  client.permissions = { '/': { 'VM.Audit': 1, 'VM.PowerMgmt': 1 } };
  const asked: ApprovalRequest[] = [];
  const audit: Array<{ type: string; data: Record<string, unknown> }> = [];
  let executions = 0;
  let compiles = 0;
  const phases: ExecutePhase[] = [];
  // Stands in for the sandbox: the "compiled script" is its source; a source with `@@` does not compile.
  const executor: Executor<string, Outcome> = {
    compile: async ({ code }) => {
      compiles++;
      return code.includes('@@')
        ? { ok: false, outcome: { ok: false, error: { kind: 'typecheck', message: 'not executed: type-check found mistakes' } } }
        : { ok: true, script: code, calls: extractSdkCalls(code) };
    },
    execute: async (_script, handler) => {
      executions++;
      return stopAll(handler);
    },
  };
  const deps: PipelineDeps<string, Outcome> = {
    executor,
    clusters: new RunClusters({ name: 'default', model, policy: Policy.fromConfig({ preset: 'operator' }), client: client, byClass: classClients(client) }),
    approvals: new ApprovalStore(dir),
    audit: {
      append: (type, data) => {
        audit.push({ type, data });
        if (type === 'call' && typeof data.phase === 'string' && phases.at(-1) !== data.phase) phases.push(data.phase as ExecutePhase);
      },
      intend: (data) => ({ seq: audit.push({ type: 'intent', data }) - 1 }),
    },
    ...(answer ? { approver: { elicit: async (req) => (asked.push(req), answer) } } : {}),
  };
  return { client, deps, asked, audit, executions: () => executions, compiles: () => compiles, phases };
}

describe('run pipeline: modes and approvals', () => {
  it('dry-run returns and stores the plan without sending writes', async () => {
    const t = setup();
    const r = await new RunPipeline(t.deps).run({ code: CODE, dryRun: true });
    expect(r.mode).toBe('dry-run');
    expect(t.client.writes).toHaveLength(0);
    expect(r.plan?.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/stop', '/nodes/pve1/qemu/102/status/stop']);
    expect(r.planSummary).toContain("VMID 101 'web'");
    expect(new ApprovalStore(dir).loadPlan(r.plan!.planId)?.planId).toBe(r.plan!.planId);
    expect(r.stats.calls.planned).toBe(2);
  });

  it('asks the human with the plan summary and runs the approved plan on accept', async () => {
    const t = setup('accept');
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0]?.summary).toMatch(/POST \/nodes\/pve1\/qemu\/101\/status\/stop \[DESTRUCTIVE, needs approval: destructive and policy .* requires human approval for destructive operations\]/);
    expect(r).toMatchObject({ mode: 'approved', approval: { via: 'elicitation', answer: 'accept', planId: t.asked[0]?.planId } });
    expect(t.client.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/stop', '/nodes/pve1/qemu/102/status/stop']);
    expect(t.executions()).toBe(2);
    // Each approved write's intent is in the audit before it is sent; the dry-run probe plans, so writes none.
    expect(t.audit.map((a) => a.type)).toEqual(['run-start', 'call', 'call', 'call', 'approval', 'call', 'intent', 'call', 'intent', 'call', 'run-end']);
    expect(t.audit.filter((a) => a.type === 'call').map((a) => a.data.phase)).toEqual(['probe', 'probe', 'probe', 'approved', 'approved', 'approved']);
    // The plan has run: its summary says so, not that its writes still need approval.
    expect(r.planSummary?.split('\n').at(-1)).toBe(
      `Done: plan ${r.plan?.planId} ran (2 of 2 writes made). Its approval is used up: the same script again needs a new plan and approval; look at the changes before repeating any write.`,
    );
    expect(r.planSummary).not.toMatch(/Next: \d+ writes? needs? approval/);
  });

  it.each([
    ['decline' as const, /The user declined plan [0-9a-f]{64}; nothing was sent.*pve-code-mcp approve [0-9a-f]{64}/],
    ['unsupported' as const, /cannot ask the user for approval.*pve-code-mcp approve [0-9a-f]{64}/],
    [undefined, /cannot ask the user for approval/],
  ])('sends nothing when elicitation is %s, and says how to approve out of band', async (answer, message) => {
    const t = setup(answer);
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r.mode).toBe('blocked');
    expect(r.blocked?.reason).toBe('approval');
    expect(r.blocked?.message).toMatch(message);
    expect(r.plan?.writes).toHaveLength(2);
    expect(t.client.writes).toHaveLength(0);
  });

  it('runs a plan the operator approved out of band, once', async () => {
    const t = setup();
    const dry = await new RunPipeline(t.deps).run({ code: CODE, dryRun: true });
    new ApprovalStore(dir).approve(dry.plan!.planId, { approvedBy: 'operator' });
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r).toMatchObject({ mode: 'approved', approval: { via: 'operator', answer: 'approved' } });
    expect(t.client.writes).toHaveLength(2);
    expect(dry.planSummary).toMatch(/\nNext: 2 writes need approval/);
    expect(r.planSummary).toMatch(/\nDone: plan [0-9a-f]{64} ran \(2 of 2 writes made\)/);
    const again = await new RunPipeline(t.deps).run({ code: CODE });
    expect(again.mode).toBe('blocked');
    expect(t.client.writes).toHaveLength(2);
  });

  it('blocks writes that deviate from the approved plan', async () => {
    const t = setup();
    const dry = await new RunPipeline(t.deps).run({ code: CODE, dryRun: true });
    new ApprovalStore(dir).approve(dry.plan!.planId);
    t.client.guests.set(103, { vmid: 103, node: 'pve1', name: 'new', type: 'qemu', config: {} });
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r.mode).toBe('approved');
    expect(r.outcome).toMatchObject({ ok: false, error: { kind: 'approval' } });
    expect(r.outcome?.error?.message).toMatch(/\/nodes\/pve1\/qemu\/103\/status\/stop: this write is not in the approved plan/);
    expect(t.client.writes.map((w) => w.path)).toEqual(['/nodes/pve1/qemu/101/status/stop', '/nodes/pve1/qemu/102/status/stop']);
  });

  it('a planId argument is only a reference, never an approval', async () => {
    const t = setup('accept');
    const dry = await new RunPipeline(t.deps).run({ code: CODE, dryRun: true });
    const r = await new RunPipeline(t.deps).run({ code: CODE, planId: dry.plan!.planId });
    expect(r.mode).toBe('blocked');
    expect(r.blocked?.message).toMatch(/is not approved for this script/);
    expect(t.client.writes).toHaveLength(0);
  });

  it('does not execute when the preflight finds a certain problem', async () => {
    const t = setup('accept');
    t.client.permissions = { '/': { 'VM.Audit': 1 } };
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r.mode).toBe('blocked');
    expect(r.blocked?.message).toContain('2:29 POST /nodes/{node}/qemu/{vmid}/status/stop needs VM.PowerMgmt on /vms/<?>; the token has it on no /vms/<?> path');
    expect(r.blocked?.message).toMatch(/^not executed: .*\n.*\n3:7 POST \/nodes\/pve1\/qemu\/101\/status\/stop needs VM.PowerMgmt on \/vms\/101; token has VM.Audit only/);
    expect(t.executions()).toBe(0);
  });

  it('runs read-only scripts live in one pass', async () => {
    const t = setup('accept');
    const code = `return await pve.get('/nodes/pve1/qemu');`;
    const readOnly: Executor<string, Outcome> = {
      compile: async ({ code: script }) => ({ ok: true, script, calls: extractSdkCalls(script) }),
      execute: async (_script, handler) => {
        const reply = await handler({ kind: 'request', method: 'GET', path: '/nodes/pve1/qemu', params: {} }, { signal: new AbortController().signal });
        return { ok: reply.ok };
      },
    };
    const r = await new RunPipeline({ ...t.deps, executor: readOnly }).run({ code });
    expect(r.mode).toBe('live');
    expect(t.asked).toHaveLength(0);
    expect(r.stats.budget.read.used).toBe(1);
  });
});

describe('run pipeline: a GET whose path is known only at run time', () => {
  const withSecretGet = secretGetModel(model);
  const code = `const p = pick(); return await pve.get(p);`;
  const getting = (path: string): Executor<string, Outcome> => ({
    compile: async ({ code: script }) => ({ ok: true, script, calls: extractSdkCalls(script) }),
    execute: async (_script, handler) => {
      const reply = await handler({ kind: 'request', method: 'GET', path, params: {} }, { signal: new AbortController().signal });
      return reply.ok ? { ok: true, result: reply.data } : { ok: false, error: reply.error };
    },
  });

  it('runs live in one pass when no GET can need approval under the policy (no dry-run probe)', async () => {
    const t = setup('accept');
    const r = await new RunPipeline({ ...t.deps, executor: getting('/nodes/pve1/qemu/101/config') }).run({ code });
    expect(r.mode).toBe('live');
    expect(t.phases).toEqual(['live']);
    expect(t.asked).toHaveLength(0);
  });

  it('a privileged GET reached through a run-time path is asked for, never sent without approval', async () => {
    const t = setup('decline');
    const policy = Policy.fromConfig({ preset: 'operator', privileged: ['GET /nodes/{node}/keys'], approval: { require: ['privileged'] } });
    const clusters = new RunClusters({ name: 'default', model: withSecretGet, policy, client: t.client, byClass: classClients(t.client) });
    const r = await new RunPipeline({ ...t.deps, clusters, executor: getting('/nodes/pve1/keys') }).run({ code });
    expect(t.asked).toHaveLength(1);
    expect(t.asked[0]?.summary).toContain('GET /nodes/pve1/keys');
    expect(r.mode).toBe('blocked');
    expect(t.phases).toEqual(['probe']);
    expect(t.client.requests.filter((q) => q.path === '/nodes/pve1/keys')).toHaveLength(0);
  });
});

describe('run pipeline: audit', () => {
  it('does not run when the run record cannot be audited', async () => {
    const t = setup('accept');
    const deps = {
      ...t.deps,
      audit: {
        append: () => {
          throw new Error('EROFS: read-only file system');
        },
      },
    };
    const r = await new RunPipeline(deps).run({ code: CODE });
    expect(r).toMatchObject({ mode: 'blocked', blocked: { reason: 'audit' } });
    expect(r.blocked?.message).toMatch(/EROFS/);
    expect(t.executions()).toBe(0);
  });
});

describe('run pipeline: each step once', () => {
  it('compiles once for the probe and the approved run, and reads the guest list once for the preflight and both phases', async () => {
    const t = setup('accept');
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r.mode).toBe('approved');
    expect(t.compiles()).toBe(1);
    expect(t.phases).toEqual(['probe', 'approved']);
    // The human answered in between: the approved run reads pools and tags again, once.
    expect(t.client.requests.filter((q) => q.path === '/cluster/resources')).toHaveLength(2);
  });

  it('an operator-approved run shares one guest list with its preflight', async () => {
    const t = setup();
    const dry = await new RunPipeline(t.deps).run({ code: CODE, dryRun: true });
    new ApprovalStore(dir).approve(dry.plan!.planId);
    const before = t.client.requests.length;
    const r = await new RunPipeline(t.deps).run({ code: CODE });
    expect(r.mode).toBe('approved');
    expect(t.client.requests.slice(before).filter((q) => q.path === '/cluster/resources')).toHaveLength(1);
  });

  it('a script that does not compile reads nothing from the cluster and is not executed', async () => {
    const t = setup('accept');
    const r = await new RunPipeline(t.deps).run({
      code: `${CODE}
@@`,
    });
    expect(r).toMatchObject({ mode: 'live', outcome: { ok: false, error: { kind: 'typecheck' } } });
    expect(t.client.requests).toHaveLength(0);
    expect(t.executions()).toBe(0);
    expect(t.audit.map((a) => a.type)).toEqual(['run-start', 'run-end']);
  });

  it('the preflight reads the calls the compile found, not the source again', async () => {
    const t = setup('accept');
    const [first] = extractSdkCalls(CODE);
    const marked = { ...first!, line: 42, col: 7 };
    const r = await new RunPipeline({ ...t.deps, executor: { ...t.deps.executor, compile: async ({ code: script }) => ({ ok: true, script, calls: [marked] }) } }).run({ code: CODE, dryRun: true });
    expect(r.preflight?.operations.map((o) => `${o.line}:${o.col}`)).toEqual(['42:7']);
  });
});

describe('run pipeline: the whole-call deadline', () => {
  const READ = "await pve.get('/nodes/pve1/qemu');";
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** An execution that got a worker at once and makes no progress until its signal ends it, like a run the sandbox cancels. */
  const hanging: Executor<string, Outcome>['execute'] = (_script, _handler, { signal }) =>
    new Promise((resolve) => signal?.addEventListener('abort', () => resolve({ ok: false, error: { kind: 'cancelled', message: 'the run was cancelled' }, stats: { queueMs: 0 } }), { once: true }));

  it('stops a run at the deadline counted from the call, not from the run, and says where the time went', async () => {
    const t = setup();
    const deps = { ...t.deps, executor: { compile: async ({ code }: { code: string }) => (await sleep(60), { ok: true as const, script: code, calls: extractSdkCalls(code) }), execute: hanging } };
    const started = performance.now();
    const r = await new RunPipeline(deps).run({ code: READ, deadline: { startedAt: started, limitMs: 200 } });
    expect(performance.now() - started).toBeLessThan(400);
    expect(r.outcome?.error?.kind).toBe('cancelled');
    expect(r.deadline).toMatchObject({ limitMs: 200, phase: 'run' });
    expect(r.deadline!.spentMs.compile).toBeGreaterThanOrEqual(50);
    expect(r.deadline!.spentMs.queue).toBe(0);
    expect(r.deadline!.spentMs.compile + r.deadline!.spentMs.preflight + r.deadline!.spentMs.queue + r.deadline!.spentMs.run + r.deadline!.spentMs.other).toBeGreaterThanOrEqual(195);
    expect(r.deadline!.message).toMatch(/^the call's 0\.2 s deadline passed/);
    expect(t.audit.at(-1)).toMatchObject({ type: 'run-end', data: { deadline: { limitMs: 200 } } });
  });

  it('a run granted its worker after the deadline passed does not start, even before the timer fires', async () => {
    const t = setup();
    let asked: boolean | undefined;
    let beforeRun = -1;
    // The grant comes late on a machine so loaded that no timer could fire: the event loop is held
    // until the deadline is past, then the executor asks, as the sandbox engine does with a worker.
    const lateGrant: Executor<string, Outcome>['execute'] = async (_script, handler, { pastDeadline }) => {
      const until = performance.now() + 60;
      while (performance.now() < until) {
        // busy: nothing else runs, the deadline's timer included
      }
      asked = pastDeadline?.();
      beforeRun = t.client.requests.length;
      if (asked) return { ok: false, error: { kind: 'deadline', message: 'not executed' } };
      return stopAll(handler);
    };
    const r = await new RunPipeline({ ...t.deps, executor: { ...t.deps.executor, execute: lateGrant } }).run({ code: READ, deadline: { startedAt: performance.now(), limitMs: 50 } });
    expect(asked).toBe(true);
    expect(r.deadline).toMatchObject({ limitMs: 50, phase: 'queue' });
    expect(r.deadline!.message).toMatch(/while the run waited for a free sandbox worker/);
    // What the preflight read before is all that was read.
    expect(t.client.requests).toHaveLength(beforeRun);
  });

  it('gives up on a compile that outlasts the deadline: nothing runs, nothing is read', async () => {
    const t = setup();
    const deps = { ...t.deps, executor: { ...t.deps.executor, compile: async ({ code }: { code: string }) => (await sleep(300), { ok: true as const, script: code, calls: [] }) } };
    const r = await new RunPipeline(deps).run({ code: READ, deadline: { startedAt: performance.now(), limitMs: 100 } });
    expect(r).toMatchObject({ mode: 'blocked', blocked: { reason: 'deadline' }, deadline: { phase: 'compile' } });
    expect(t.executions()).toBe(0);
    expect(t.client.requests).toHaveLength(0);
  });

  it('does not count the time a human takes to approve', async () => {
    const t = setup();
    const deps: PipelineDeps<string, Outcome> = { ...t.deps, approver: { elicit: async () => (await sleep(250), 'accept') } };
    const r = await new RunPipeline(deps).run({ code: CODE, deadline: { startedAt: performance.now(), limitMs: 200 } });
    expect(r.mode).toBe('approved');
    expect(r.deadline).toBeUndefined();
    expect(t.client.writes).toHaveLength(2);
  });

  it('a run the caller cancelled is not reported as past its deadline', async () => {
    const t = setup();
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 30);
    const r = await new RunPipeline({ ...t.deps, executor: { ...t.deps.executor, execute: hanging } }).run({
      code: READ,
      signal: cancel.signal,
      deadline: { startedAt: performance.now(), limitMs: 5_000 },
    });
    expect(r.outcome?.error?.kind).toBe('cancelled');
    expect(r.deadline).toBeUndefined();
  });

  it('a run cancelled while it waits for the human sends nothing and is answered at once', async () => {
    const t = setup();
    const cancel = new AbortController();
    const deps: PipelineDeps<string, Outcome> = { ...t.deps, approver: { elicit: () => (setTimeout(() => cancel.abort(), 10), new Promise<never>(() => undefined)) } };
    const r = await new RunPipeline(deps).run({ code: CODE, signal: cancel.signal });
    expect(r).toMatchObject({ mode: 'blocked', blocked: { reason: 'approval', message: expect.stringMatching(/cancelled while it waited for the approval; nothing was sent/) } });
    expect(t.client.writes).toHaveLength(0);
  });
});
