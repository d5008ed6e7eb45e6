/**
 * Whole sessions against the simulator over real HTTPS, scripts running in the real sandbox:
 * elicitation accepted / declined / unsupported, out-of-band approval through the CLI helper,
 * a run deviating from its approved plan, guest identity drift, then an audit verification and a
 * search of every output, log, error and audit line for the token secret.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/audit/log.js';
import { verifyAudit } from '../../src/audit/verify.js';
import type { PveClient } from '../../src/client/index.js';
import { SandboxEngine, type CompiledScript } from '../../src/sandbox/engine.js';
import type { RunOutcome } from '../../src/sandbox/outcome.js';
import { ApprovalStore, type Approver, type ElicitationAnswer } from '../../src/safety/approval.js';
import { Policy } from '../../src/policy/policy.js';
import { REDACTED, SecretScrubber } from '../../src/safety/redact.js';
import { RunPipeline, type PipelineDeps, type RunResult } from '../../src/run/pipeline.js';
import { RunClusters, classClients } from '../../src/policy/clusters.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { clientFor, sandboxUnavailable, startSim, writesSince } from './helpers/sim.js';

const noSandbox = sandboxUnavailable();
const HMAC_KEY = 'e2e-audit-key';

describe.skipIf(noSandbox !== undefined)(`safety sessions end to end${noSandbox ? ` (skipped: ${noSandbox})` : ''}`, () => {
  let sim: RunningSimulator;
  let client: PveClient;
  let engine: SandboxEngine;
  let dir: string;
  let audit: AuditLog;
  const everything: unknown[] = [];

  beforeAll(async () => {
    sim = await startSim();
    client = clientFor(sim);
    engine = new SandboxEngine({ workers: 1 });
    await engine.warm();
    dir = mkdtempSync(join(tmpdir(), 'safety-e2e-'));
    const secrets = new SecretScrubber([sim.token.secret]);
    audit = AuditLog.open({ file: join(dir, 'audit', 'audit.jsonl'), hmacKey: HMAC_KEY, scrubber: secrets });
  });

  afterAll(async () => {
    audit?.close();
    await engine?.close();
    await client?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function deps(answer?: ElicitationAnswer, policy: unknown = { preset: 'operator' }): PipelineDeps<CompiledScript, RunOutcome> {
    const approver: Approver | undefined = answer ? { elicit: async (req) => (everything.push(req), answer) } : undefined;
    return {
      executor: engine,
      clusters: new RunClusters({ name: 'sim', model: sim.model, policy: Policy.fromConfig(policy), client: client, byClass: classClients(client) }),
      approvals: new ApprovalStore(join(dir, 'state')),
      audit,
      secrets: new SecretScrubber([sim.token.secret]),
      onProgress: (e) => everything.push(e),
      ...(approver ? { approver } : {}),
    };
  }

  async function run(code: string, d: PipelineDeps<CompiledScript, RunOutcome>, extra: { dryRun?: boolean } = {}): Promise<{ r: RunResult<RunOutcome>; writes: Record<string, number> }> {
    const before = sim.counters.snapshot().byOperation;
    const r = await new RunPipeline(d).run({ code, ...extra });
    everything.push(r);
    return { r, writes: writesSince(sim, before) };
  }

  const stop = (node: string, vmid: number) =>
    `const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: '${node}', vmid: ${vmid} });\nconst t = await pve.waitTask(upid);\nconsole.log('stopped', ${vmid}, t.exitstatus);\nreturn t.exitstatus;`;

  it('runs the plan after the human accepts it through elicitation', async () => {
    const { r, writes } = await run(stop('pve2', 107), deps('accept'));
    expect(r.mode).toBe('approved');
    expect(r.outcome).toMatchObject({ ok: true, result: 'OK' });
    expect(writes).toEqual({ 'POST /nodes/{node}/qemu/{vmid}/status/stop': 1 });
  });

  it('sends nothing when the human declines, or the client cannot ask', async () => {
    for (const answer of ['decline', 'unsupported', undefined] as const) {
      const { r, writes } = await run(stop('pve3', 117), deps(answer));
      expect(r.mode).toBe('blocked');
      expect(r.blocked?.message).toContain(`pve-code-mcp approve ${r.plan?.planId}`);
      expect(writes).toEqual({});
    }
  });

  it('runs a plan approved out of band by the operator, exactly once', async () => {
    const code = stop('pve3', 117);
    const dry = await run(code, deps(), { dryRun: true });
    expect(dry.writes).toEqual({});
    expect(dry.r.outcome).toMatchObject({ ok: true, result: 'OK' });
    expect(dry.r.outcome?.logs.join('\n')).toMatch(/stopped 117 OK/);
    new ApprovalStore(join(dir, 'state')).approve(dry.r.plan!.planId, { approvedBy: 'e2e-operator' });
    const approved = await run(code, deps());
    expect(approved.r).toMatchObject({ mode: 'approved', approval: { via: 'operator', planId: dry.r.plan!.planId } });
    expect(approved.writes).toEqual({ 'POST /nodes/{node}/qemu/{vmid}/status/stop': 1 });
    const again = await run(code, deps());
    expect(again.r.mode).toBe('blocked');
    expect(again.writes).toEqual({});
  });

  it('blocks a write the approved plan does not contain', async () => {
    const code = [
      `const vms = await pve.get('/cluster/resources', { type: 'vm' });`,
      `const targets = vms.filter((v) => v.pool === 'development' && v.status === 'running' && v.type === 'qemu');`,
      `const done = [], refused = [];`,
      `for (const v of targets) {`,
      `  try { await pve.post(\`/nodes/\${v.node}/qemu/\${v.vmid}/status/stop\`); done.push(v.vmid); }`,
      `  catch (e) { refused.push([v.vmid, e.kind, e.message]); }`,
      `}`,
      `return { done, refused };`,
    ].join('\n');
    const dry = await run(code, deps(), { dryRun: true });
    const planned = dry.r.plan!.writes.map((w) => w.path);
    expect(planned).toEqual(['/nodes/pve2/qemu/128/status/stop']);
    new ApprovalStore(join(dir, 'state')).approve(dry.r.plan!.planId);
    // Someone starts another development guest before the approved run.
    await client.waitTask((await client.request('POST', '/nodes/pve3/qemu/108/status/start')) as string);
    const { r, writes } = await run(code, deps());
    expect(r.mode).toBe('approved');
    const result = r.outcome?.result as { done: number[]; refused: Array<[number, string, string]> };
    expect(result.done).toEqual([128]);
    expect(result.refused.map(([vmid, kind]) => [vmid, kind])).toEqual([[108, 'approval']]);
    expect(result.refused[0]?.[2]).toMatch(/\/nodes\/pve3\/qemu\/108\/status\/stop: this write is not in the approved plan/);
    expect(writes).toEqual({ 'POST /nodes/{node}/qemu/{vmid}/status/stop': 1 });
  });

  it('blocks an approved write when the guest changed after planning', async () => {
    const code = `return await pve.post('/nodes/pve1/qemu/118/status/reset');`;
    const dry = await run(code, deps(), { dryRun: true });
    expect(dry.r.plan?.writes[0]?.targets[0]).toMatchObject({ vmid: 118, name: 'dev-02', digest: expect.stringMatching(/^[0-9a-f]{40}$/) });
    new ApprovalStore(join(dir, 'state')).approve(dry.r.plan!.planId);
    await client.request('PUT', '/nodes/pve1/qemu/118/config', { description: 'changed behind the plan' });
    const { r, writes } = await run(code, deps());
    expect(r.outcome?.error?.kind).toBe('identity');
    expect(writes).toEqual({});
  });

  it('redacts secrets in results: a created token value never reaches the script output', async () => {
    const code = `const t = await pve.post('/access/users/{userid}/token/{tokenid}', { userid: 'root@pam', tokenid: 'e2e', privsep: 1 });\nconsole.log(JSON.stringify(t));\nreturn t;`;
    const { r } = await run(code, deps('accept', { preset: 'operator', privileged: ['POST /access/users/{userid}/token/{tokenid}'] }));
    expect(r.mode).toBe('approved');
    expect(r.outcome?.result).toMatchObject({ 'full-tokenid': 'root@pam!e2e', value: REDACTED });
    expect(r.outcome?.logs.join('\n')).toContain(REDACTED);
  });

  it('left a verifiable audit without the token secret anywhere', () => {
    const v = verifyAudit(join(dir, 'audit', 'audit.jsonl'), { hmacKey: HMAC_KEY });
    expect(v.problems).toEqual([]);
    expect(v.runs.started).toBe(v.runs.finished);
    expect(v.runs.started).toBeGreaterThanOrEqual(10);
    const auditText = readFileSync(join(dir, 'audit', 'audit.jsonl'), 'utf8');
    expect(auditText).toContain('"type":"call"');
    const secret = sim.token.secret;
    expect(auditText).not.toContain(secret);
    expect(JSON.stringify(everything)).not.toContain(secret);
    for (const s of [encodeURIComponent(secret), secret.replaceAll('-', '')]) {
      expect(auditText).not.toContain(s);
      expect(JSON.stringify(everything)).not.toContain(s);
    }
  });
});
