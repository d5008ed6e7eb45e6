/**
 * Hints that know the cluster, through a real MCP client against the built server and the
 * simulator: a write whose answer was lost says its outcome is unknown (and it did run), a VMID
 * asked for under the wrong type says what to look up, a misspelt path gets the nearest ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickVm } from '../client/sim.js';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from './helpers/mcp.js';

describe('hints an agent can act on', () => {
  let env: E2eEnv;
  let agent: Connected;

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    agent = await connectStdio(env, { name: 'agent' });
  }, 180_000);

  afterAll(async () => {
    await agent?.close();
    await env?.close();
  });

  it('a write whose answer is lost after it ran is reported as of unknown outcome, not as a dead node', async () => {
    const { node, vmid } = pickVm(env.sim, 'stopped');
    const rule = env.sim.faults.add({ path: `/nodes/${node}/qemu/${vmid}/status/start`, method: 'POST', resetRate: 1, resetWhen: 'after' });
    const key = 'POST /nodes/{node}/qemu/{vmid}/status/start';
    const before = env.sim.counters.get(key);
    try {
      const code = `
try {
  await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: '${node}', vmid: ${vmid} });
  return 'sent';
} catch (e) {
  // Told apart from a refusal by its kind, and from an answer by the missing status.
  return { kind: e.kind, status: e.status ?? null, refused: ['denied', 'approval', 'budget', 'invalid'].includes(e.kind), message: e.message };
}`;
      const { result } = await callTool(agent, 'run_script', { code });
      const answer = runAnswer(result).result as { kind: string; status: number | null; refused: boolean; message: string };
      expect(answer).toMatchObject({ kind: 'unknown', status: null, refused: false });
      expect(answer.message).toMatch(/was sent, but the connection failed before Proxmox answered .*the outcome is unknown — it may have run/);
      expect(answer.message).toMatch(/GET \/nodes\/\{node\}\/tasks/);
      expect(answer.message).not.toMatch(/pveproxy is running/);
      // It was sent exactly once, and it did run.
      expect(env.sim.counters.get(key) - before).toBe(1);
    } finally {
      env.sim.faults.remove(rule);
    }
  });

  it('a VMID asked for under the wrong guest type says it may be the other type or on another node', async () => {
    const ct = env.sim.cluster.guests().find((g) => g.type === 'lxc');
    expect(ct).toBeDefined();
    const code = `return await pve.get('/nodes/{node}/qemu/{vmid}/status/current', { node: '${ct?.node}', vmid: ${ct?.vmid} });`;
    const { result } = await callTool(agent, 'run_script', { code });
    const text = textOf(result);
    expect(text).toMatch(new RegExp(`no VM \\(qemu\\) ${ct?.vmid} on node '${ct?.node}': it may be a container \\(lxc\\)`));
    expect(text).toMatch(/GET \/cluster\/resources/);
  });

  it('a misspelt path gets the nearest known paths, before anything is sent', async () => {
    const { result } = await callTool(agent, 'run_script', { code: "return await pve.get('/cluster/resource');", typecheck: false });
    expect(textOf(result)).toMatch(/no API path matches \/cluster\/resource\. Did you mean \/cluster\/resources[,?]/);
  });

  it('a parameter value the schema does not accept is refused before it is planned or sent, naming the expected form', async () => {
    const { node, vmid } = pickVm(env.sim, 'stopped');
    const writes = env.sim.counters.snapshot().writes;
    // Literal: the preflight refuses it; the dry-run plans nothing.
    const literal = await callTool(agent, 'run_script', {
      code: `await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: '${node}', vmid: ${vmid}, memory: '8G' }); return 'done';`,
      dryRun: true,
    });
    expect(literal.result.isError).toBe(true);
    expect(textOf(literal.result)).toMatch(/memory: current \(its default key\) got "8G", expected an integer ≥ 16, in MiB/);
    expect(runAnswer(literal.result).plan?.writes ?? []).toEqual([]);
    // Computed at run time: the bridge refuses it as invalid, in a live run.
    const computed = await callTool(agent, 'run_script', {
      code: `const size = ['8', 'G'].join('');
try { await pve.put('/nodes/{node}/qemu/{vmid}/config', { node: '${node}', vmid: ${vmid}, memory: size }); return 'sent'; }
catch (e) { return { kind: e.kind, message: e.message }; }`,
    });
    const answer = runAnswer(computed.result).result as { kind: string; message: string };
    expect(answer.kind).toBe('invalid');
    expect(answer.message).toMatch(/expected an integer ≥ 16, in MiB/);
    expect(env.sim.counters.snapshot().writes).toBe(writes);
  });
});
