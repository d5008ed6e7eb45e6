/**
 * A run that ends while a write is on the wire — its sandbox worker killed, or the MCP client
 * cancelling the call — must not turn "sent" into "cancelled": the write's outcome is learnt
 * within the grace a sent change gets (or recorded as unknown), the tool call is answered with
 * what became of each change, and the audit verifies.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startE2eEnv, runCli, type E2eEnv } from '../e2e/helpers/harness.js';
import { connectHttp, runAnswer, startHttpServe, type HttpServerProcess } from '../e2e/helpers/mcp.js';
import { auditEntries, intendedSnapshots, simSnapshots, waitFor } from './audit-trail.js';

const TOKEN = 'fault-suite-token-0123456789abcdef';

let env: E2eEnv;
let server: HttpServerProcess | undefined;

beforeEach(async () => {
  env = await startE2eEnv();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await env.close();
});

/** The sandbox worker processes of a server: its children that run the worker entry. */
function workerPids(serverPid: number): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(serverPid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /sandbox\/worker/.test(l))
    .map((l) => Number(l.split(/\s+/)[0]));
}

function firstVm(): { node: string; vmid: number } {
  const g = env.sim.cluster.guests().find((x) => x.type === 'qemu' && !x.config.template && !x.config.lock);
  if (!g) throw new Error('no free VM in the demo preset');
  return { node: g.node, vmid: g.vmid };
}

async function expectVerifies(): Promise<void> {
  const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
  expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
}

function expectNoSentWriteCancelled(): void {
  const entries = auditEntries(env.stateDir);
  const made = simSnapshots(env.sim, 'w');
  expect(made.length).toBeGreaterThan(0);
  expect(intendedSnapshots(entries)).toEqual(expect.arrayContaining(made));
  for (const e of entries.filter((x) => x.type === 'call' && x.data.method === 'POST')) {
    expect(e.data.status, JSON.stringify(e.data)).not.toBe('cancelled');
    expect(['done', 'unknown', 'failed', 'not-sent']).toContain(e.data.outcome);
    // A snapshot PVE made is recorded as done (the grace let its answer arrive) or unknown.
    const name = String((e.data.params as Record<string, unknown>).snapname);
    if (made.includes(name)) expect(['done', 'unknown']).toContain(e.data.outcome);
  }
}

describe('a run that ends with a write on the wire', () => {
  it('the worker killed: the answer says what was made, the audit says sent', async () => {
    server = await startHttpServe(env, TOKEN);
    const c = await connectHttp(server.url, TOKEN, { name: 'fault' });
    const { node, vmid } = firstVm();
    env.sim.faults.add({ path: '/nodes/*/qemu/*/snapshot', method: 'POST', latencyMs: 600 });
    const code = `for (let i = 0; i < 10; i++) await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: 'w' + i });`;
    const pending = c.client.callTool({ name: 'run_script', arguments: { code } }, undefined, { timeout: 60_000 });
    await waitFor('a first snapshot', () => simSnapshots(env.sim, 'w').length >= 1);
    await new Promise((r) => setTimeout(r, 200)); // the next POST is on the wire
    const workers = workerPids(server.child.pid!);
    expect(workers.length).toBeGreaterThan(0);
    for (const pid of workers) process.kill(pid, 'SIGKILL');
    const answer = runAnswer((await pending) as never);
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('crashed');
    const changes = (answer as unknown as { changes?: { done: number; unknown: number } }).changes;
    expect(changes).toBeDefined();
    await new Promise((r) => setTimeout(r, 1_000));
    expect((changes?.done ?? 0) + (changes?.unknown ?? 0)).toBe(simSnapshots(env.sim, 'w').length);
    await c.close();
    expectNoSentWriteCancelled();
    await server.close();
    await expectVerifies();
  });

  it('the client cancels: the write that was sent is recorded as done or unknown, never cancelled', async () => {
    server = await startHttpServe(env, TOKEN);
    const c = await connectHttp(server.url, TOKEN, { name: 'fault' });
    const { node, vmid } = firstVm();
    env.sim.faults.add({ path: '/nodes/*/qemu/*/snapshot', method: 'POST', latencyMs: 800 });
    const code = `for (let i = 0; i < 10; i++) await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: 'w' + i });`;
    const ac = new AbortController();
    const pending = c.client.callTool({ name: 'run_script', arguments: { code } }, undefined, { timeout: 60_000, signal: ac.signal }).catch((err: unknown) => err);
    await waitFor('a first snapshot', () => simSnapshots(env.sim, 'w').length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    await pending;
    // The server lets the sent write answer within its grace, then records it.
    await waitFor(
      'the outcome of the write that was on the wire',
      () => {
        const posts = auditEntries(env.stateDir).filter((e) => e.type === 'call' && e.data.method === 'POST');
        return posts.length >= simSnapshots(env.sim, 'w').length && auditEntries(env.stateDir).some((e) => e.type === 'run-end');
      },
      15_000,
    );
    await c.close();
    expectNoSentWriteCancelled();
    await server.close();
    await expectVerifies();
  });
});
