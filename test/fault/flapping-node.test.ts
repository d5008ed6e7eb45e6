/**
 * A flapping node (30 % of calls answer 595, as pveproxy does when it cannot reach the node):
 * every write that reached PVE is in the audit as sent, a task that ran and succeeded is never
 * reported as failed, a task whose status could not be read is `unknown` with its UPID, and a
 * write answered 595 is `unknown` or `not-sent`, never a plain failure or cancelled.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, type Connected } from '../e2e/helpers/mcp.js';
import { auditEntries, intendedSnapshots, simSnapshots } from './audit-trail.js';

let env: E2eEnv;
let mcp: Connected;

beforeAll(async () => {
  env = await startE2eEnv();
  mcp = await connectStdio(env, { name: 'flapping' });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

interface Attempt {
  vmid: number;
  snapname: string;
  ok?: boolean;
  upid?: string;
  kind?: string;
  outcome?: string;
  stage?: string;
}

// 6 guests × 3 rounds = 18 writes: within the operator preset's 20 writes per run.
describe('a flapping node', () => {
  it('never turns a made change into a failure, and says what it does not know', async () => {
    const vms = env.sim.cluster
      .guests()
      .filter((g) => g.type === 'qemu' && !g.config.template && !g.config.lock)
      .slice(0, 6);
    env.sim.faults.add({ path: '/nodes/**', errorRate: 0.3, errorStatus: 595, errorMessage: 'Connection refused', errorBody: 'none' });
    const code = `
const vms = ${JSON.stringify(vms.map((g) => ({ node: g.node, vmid: g.vmid })))};
const out = [];
for (let round = 0; round < 3; round++) {
  for (const v of vms) {
    const snapname = 'flap' + round + '_' + v.vmid;
    let upid;
    try {
      upid = await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: v.node, vmid: v.vmid, snapname });
    } catch (e) { out.push({ vmid: v.vmid, snapname, stage: 'post', kind: e.kind, outcome: e.outcome }); continue; }
    try {
      const r = await pve.waitTask(upid);
      out.push({ vmid: v.vmid, snapname, stage: 'wait', ok: r.ok, upid });
    } catch (e) { out.push({ vmid: v.vmid, snapname, stage: 'wait', kind: e.kind, outcome: e.outcome, upid: e.upid }); }
  }
}
return out;`;
    const { result } = await callTool(mcp, 'run_script', { code, typecheck: false });
    const answer = runAnswer(result);
    expect(answer.ok, JSON.stringify(answer.error)).toBe(true);
    env.sim.faults.clear();
    await new Promise((r) => setTimeout(r, 500));
    const attempts = answer.result as Attempt[];
    const made = new Set(simSnapshots(env.sim, 'flap'));
    for (const a of attempts) {
      if (a.stage === 'post' && a.outcome !== 'not-sent') expect(a, JSON.stringify(a)).toMatchObject({ kind: 'unknown', outcome: 'unknown' });
      if (a.stage === 'post' && a.outcome === 'not-sent') expect(made.has(a.snapname)).toBe(false);
      // Snapshot tasks always succeed here: a wait may not know, but may never say failed.
      if (a.stage === 'wait') {
        expect(a.kind, JSON.stringify(a)).not.toBe('task');
        if (a.kind !== undefined) expect(a).toMatchObject({ kind: 'unknown', outcome: 'unknown', upid: expect.stringMatching(/^UPID:/) });
        expect(made.has(a.snapname)).toBe(true);
      }
    }
    expect(attempts.some((a) => a.kind === 'unknown')).toBe(true);
    const entries = auditEntries(env.stateDir);
    const intended = intendedSnapshots(entries);
    expect(made.size).toBeGreaterThan(0);
    for (const name of made) expect(intended).toContain(name);
    const calls = entries.filter((x) => x.type === 'call');
    expect(calls.length).toBeGreaterThan(0);
    for (const e of calls) expect(e.data.status).not.toBe('cancelled');
    const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});
