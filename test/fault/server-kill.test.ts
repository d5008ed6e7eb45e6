/**
 * The server killed with SIGKILL while a script's writes are in flight (sequential and parallel):
 * every write that reached PVE has its intent in the audit, `audit verify` passes (an unpaired
 * intent is reported as such, not as tampering), and the next server to start on the same state
 * directory looks each orphan up on PVE and records what became of it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startE2eEnv, runCli, type E2eEnv } from '../e2e/helpers/harness.js';
import { connectHttp, startHttpServe, type HttpServerProcess } from '../e2e/helpers/mcp.js';
import { auditEntries, intendedSnapshots, simSnapshots, waitFor } from './audit-trail.js';

const TOKEN = 'fault-suite-token-0123456789abcdef';

let env: E2eEnv;
let servers: HttpServerProcess[] = [];

beforeEach(async () => {
  env = await startE2eEnv();
  servers = [];
});

afterEach(async () => {
  for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await env.close();
});

function freeVms(n: number): Array<{ node: string; vmid: number }> {
  const vms = env.sim.cluster
    .guests()
    .filter((x) => x.type === 'qemu' && !x.config.template && !x.config.lock)
    .slice(0, n);
  if (vms.length < n) throw new Error(`the demo preset has fewer than ${n} free VMs`);
  return vms.map((g) => ({ node: g.node, vmid: g.vmid }));
}

async function killDuringWrites(code: string, prefix: string, after: number): Promise<void> {
  const server = await startHttpServe(env, TOKEN);
  servers.push(server);
  const c = await connectHttp(server.url, TOKEN, { name: 'fault' });
  // The answer never comes: the server dies under it.
  const call = c.client.callTool({ name: 'run_script', arguments: { code } }, undefined, { timeout: 60_000 }).catch((err: unknown) => err);
  await waitFor(`${after} snapshots on the simulator`, () => simSnapshots(env.sim, prefix).length >= after);
  server.child.kill('SIGKILL');
  await new Promise<void>((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', () => r())));
  // A streamable HTTP client may wait for its request's own timeout once the server is gone.
  void call;
  await Promise.race([c.close().catch(() => undefined), new Promise((r) => setTimeout(r, 2_000))]);
  // Requests that reached the simulator before the kill finish there (their latency first).
  await new Promise((r) => setTimeout(r, 1_500));
}

/** Intents that no `call` entry settles and no `recovered` entry has settled yet. */
function unsettledIntents(): number[] {
  const entries = auditEntries(env.stateDir);
  const settled = new Set(entries.filter((e) => (e.type === 'call' || e.type === 'recovered') && typeof e.data.intent === 'number').map((e) => e.data.intent as number));
  return entries.filter((e) => e.type === 'intent' && !settled.has(e.seq)).map((e) => e.seq);
}

async function restartAndRecover(): Promise<void> {
  const server = await startHttpServe(env, TOKEN);
  servers.push(server);
  // Recovery looks each orphan up on PVE in turn: wait for all of them, not the first. Its first
  // sweep runs at start; one that found the cluster not serving yet (a loaded machine) leaves
  // them to the next sweep, 30 s later: the wait covers both.
  try {
    await waitFor('every orphan recovered', () => auditEntries(env.stateDir).some((e) => e.type === 'recovered') && unsettledIntents().length === 0, 75_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; intents still open: ${JSON.stringify(unsettledIntents())}\nserver stderr:\n${server.stderr().slice(-3_000)}`);
  }
  await server.close();
}

async function expectVerifies(): Promise<string> {
  const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
  expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
  return verify.stdout + verify.stderr;
}

function checkTrail(prefix: string): void {
  const made = simSnapshots(env.sim, prefix);
  const entries = auditEntries(env.stateDir);
  const intended = intendedSnapshots(entries);
  expect(made.length).toBeGreaterThan(0);
  // Write-ahead: nothing reached PVE without its intent in the audit.
  for (const name of made) expect(intended, `snapshot ${name} reached PVE without an intent`).toContain(name);
  // No write that may have run is called cancelled.
  const calls = entries.filter((e) => e.type === 'call' && e.data.method === 'POST');
  for (const call of calls) expect(call.data.status).not.toBe('cancelled');
}

function checkRecovery(prefix: string): void {
  const made = new Set(simSnapshots(env.sim, prefix));
  const entries = auditEntries(env.stateDir);
  const paired = new Set(entries.filter((e) => e.type === 'call' && typeof e.data.intent === 'number').map((e) => e.data.intent as number));
  const recovered = new Map(entries.filter((e) => e.type === 'recovered').map((e) => [e.data.intent as number, e.data]));
  const orphans = entries.filter((e) => e.type === 'intent' && !paired.has(e.seq));
  expect(orphans.length).toBeGreaterThan(0);
  for (const intent of orphans) {
    const verdict = recovered.get(intent.seq);
    expect(verdict, `intent ${intent.seq} was not recovered`).toBeDefined();
    const name = String((intent.data.params as Record<string, unknown>).snapname);
    // `unknown` is honest when PVE cannot tell; a verdict that is given must be right.
    if (verdict?.outcome === 'made') expect(made.has(name)).toBe(true);
    if (verdict?.outcome === 'not-made') expect(made.has(name)).toBe(false);
  }
}

describe('kill -9 of the server with writes in flight', { timeout: 180_000 }, () => {
  it('sequential snapshot writes: every write PVE received has its intent; the next start recovers the orphan', async () => {
    const [vm] = freeVms(1);
    const { node, vmid } = vm!;
    env.sim.faults.add({ path: '/nodes/*/qemu/*/snapshot', method: 'POST', latencyMs: 250 });
    const code = `for (let i = 0; i < 20; i++) await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: 'seq' + i });\nreturn 'done';`;
    await killDuringWrites(code, 'seq', 5);
    checkTrail('seq');
    await expectVerifies();
    await restartAndRecover();
    checkRecovery('seq');
    await expectVerifies();
  });

  it('parallel snapshot writes (a Promise.all over 8 guests): every write PVE received has its intent', async () => {
    const vms = freeVms(8);
    env.sim.faults.add({ path: '/nodes/*/qemu/*/snapshot', method: 'POST', latencyMs: [200, 1500] });
    const code = `const vms = ${JSON.stringify(vms)};\nawait Promise.all(vms.map((v, i) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: v.node, vmid: v.vmid, snapname: 'par' + i })));\nreturn 'done';`;
    await killDuringWrites(code, 'par', 2);
    checkTrail('par');
    await expectVerifies();
    await restartAndRecover();
    checkRecovery('par');
  });
});
