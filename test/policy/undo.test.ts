/**
 * Undo, end to end against the simulator's state: a run's changes are recorded in the audit with
 * what reverses them; `pve.undo(runId)` (run_script) and `pve-code-mcp undo` (CLI) plan the
 * reversal, which says what cannot be undone and is approved like any other plan; a config that
 * moved since is never overwritten; a safety snapshot the policy asked for is rolled back to.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../e2e/helpers/harness.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;
/** Stopped, non-template VMs whose storage can take snapshots (each test takes its own). */
const guests: Array<{ node: string; vmid: number }> = [];

beforeAll(async () => {
  env = await startPolicyEnv({
    name: 'undo',
    policies: {
      ops: { preset: 'operator' },
      // Every change needs an approval: the approved run can be held to its plan.
      strict: { preset: 'operator', approval: { require: ['write', 'destructive', 'privileged'] } },
      snap: { preset: 'operator', undo: { snapshotBefore: ['write'] } },
      adm: { preset: 'admin' },
    },
  });
  const vms = (await env.admin.request('GET', '/cluster/resources', { type: 'vm' })) as Array<{ vmid: number; node: string; type: string; status: string; template?: number }>;
  for (const vm of vms.filter((v) => v.type === 'qemu' && !v.template && v.status === 'stopped')) {
    const feature = (await env.admin.request('GET', `/nodes/${vm.node}/qemu/${vm.vmid}/feature`, { feature: 'snapshot' })) as { hasFeature: number };
    if (feature.hasFeature) guests.push({ node: vm.node, vmid: vm.vmid });
  }
}, 180_000);

afterAll(async () => {
  await env?.close();
});

const PUT_CONFIG = 'PUT /nodes/{node}/qemu/{vmid}/config';

interface Config {
  memory?: unknown;
  onboot?: unknown;
  description?: unknown;
  cores?: unknown;
  digest?: string;
}

const config = async (base: string): Promise<Config> => (await env.admin.request('GET', `${base}/config`)) as Config;
const snapshots = async (base: string): Promise<string[]> => ((await env.admin.request('GET', `${base}/snapshot`)) as Array<{ name: string }>).map((s) => s.name);
const runIdOf = (answer: { changes?: unknown }): string => {
  const runId = (answer.changes as { runId?: string } | undefined)?.runId;
  expect(runId, JSON.stringify(answer).slice(0, 1500)).toMatch(/^[0-9a-f-]{36}$/);
  return runId as string;
};
const undoCode = (runId: string): string => `return await pve.undo('${runId}');`;

/** A change under the 'strict' policy: planned, approved by the operator, then run. */
async function approvedRun(code: string): Promise<Awaited<ReturnType<PolicyEnv['run']>>> {
  const planned = await env.run(code, { dryRun: true, cluster: 'strict' });
  const approved = await runCli(['approve', planned.plan?.planId as string, '--yes', '--config', env.configFile], { env: env.env });
  expect(approved.code, approved.stderr).toBe(0);
  const ran = await env.run(code, { cluster: 'strict' });
  expect(ran.ok, JSON.stringify(ran).slice(0, 1500)).toBe(true);
  return ran;
}

describe('undo', () => {
  it('restores a changed config, deletes the snapshot the run took, says what it cannot undo, and works from the CLI', async () => {
    expect(guests.length, 'the demo has stopped VMs on snapshot-capable storage').toBeGreaterThanOrEqual(3);
    const { node, vmid } = guests[0] as { node: string; vmid: number };
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('POST', `${base}/snapshot`, { snapname: 'old' }).then((t) => env.admin.waitTask(t as string, { timeoutMs: 10_000 }));
    await env.admin.request('PUT', `${base}/config`, { memory: 4096, onboot: 1, delete: 'description' });
    const changed = await approvedRun(
      `await pve.put('${base}/config', { memory: 8192, description: 'set by the run', delete: 'onboot' });\n` +
        `await pve.waitTask(await pve.post('${base}/snapshot', { snapname: 'runsnap' }));\n` +
        `await pve.waitTask(await pve.delete('${base}/snapshot/old'));\nreturn 1;`,
    );
    const runId = runIdOf(changed);
    expect(String((await config(base)).memory)).toBe('8192');

    // The run_script way: a dry-run shows the reversal and what it cannot do.
    const planned = await env.run(undoCode(runId), { dryRun: true, cluster: 'strict' });
    expect(planned.ok, JSON.stringify(planned).slice(0, 2000)).toBe(true);
    expect(planned.plan?.writes.map((w) => `${w.method} ${w.path}`)).toEqual([`DELETE ${base}/snapshot/runsnap`, `PUT ${base}/config`]);
    const summary = planned.plan?.summary ?? '';
    expect(summary).toMatch(/memory: 8192 MiB → 4096 MiB/);
    expect(summary).toMatch(/description: set by the run → \(deleted\)/);
    expect(summary).toMatch(/onboot: \(not set\) → 1/);
    expect(summary).toMatch(new RegExp(`note: not undone: DELETE ${base}/snapshot/old: a deleted snapshot cannot be restored`));
    expect((planned.result as { cannot: string[] }).cannot).toEqual([`DELETE ${base}/snapshot/old: a deleted snapshot cannot be restored`]);
    expect(String((await config(base)).memory)).toBe('8192');

    // The CLI way: the plan is shown, --yes approves it, the approved run makes exactly it.
    const before = env.sim.counters.snapshot().byOperation;
    const cli = await runCli(['undo', runId, '--yes', '--cluster', 'strict', '--config', env.configFile], { env: env.env, timeoutMs: 60_000 });
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    expect(cli.stdout).toMatch(/memory: 8192 MiB → 4096 MiB/);
    expect(cli.stdout).toMatch(/not undone:\n {2}- DELETE .*a deleted snapshot cannot be restored/);
    const after = env.sim.counters.snapshot().byOperation;
    expect((after[PUT_CONFIG] ?? 0) - (before[PUT_CONFIG] ?? 0)).toBe(1);
    const now = await config(base);
    expect(String(now.memory)).toBe('4096');
    expect(now.onboot).toBe(1);
    expect(now.description).toBeUndefined();
    expect(await snapshots(base)).not.toContain('runsnap');

    // Recorded in the signed audit: the intent of the config write carried its undo record.
    const intent = env.auditEntries().find((e) => e.type === 'intent' && e.runId === runId && String(e.path).endsWith('/config'));
    expect(intent?.undo).toEqual({
      kind: 'config',
      guest: { node, type: 'qemu', vmid },
      before: { description: null, memory: '4096', onboot: '1' },
      after: { description: 'set by the run', memory: '8192', onboot: null },
    });
  }, 180_000);

  it('never overwrites a config that moved since, and an approved undo is refused when the config moved after its plan', async () => {
    const { node, vmid } = guests[1] as { node: string; vmid: number };
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('PUT', `${base}/config`, { memory: 4096, cores: 2 });
    const first = await env.run(`await pve.put('${base}/config', { memory: 8192 });\nreturn 1;`);
    const firstId = runIdOf(first);
    await env.admin.request('PUT', `${base}/config`, { memory: 2048 });
    const moved = await env.run(undoCode(firstId), { dryRun: true });
    expect(moved.ok, JSON.stringify(moved).slice(0, 1500)).toBe(true);
    expect(moved.plan?.writes ?? []).toEqual([]);
    expect((moved.result as { cannot: string[] }).cannot.join('\n')).toMatch(/moved since \(memory is '2048', the run left '8192'\), so this change is not undone/);

    const second = await approvedRun(`await pve.put('${base}/config', { cores: 3 });\nreturn 1;`);
    const secondId = runIdOf(second);
    const planned = await env.run(undoCode(secondId), { dryRun: true, cluster: 'strict' });
    expect(planned.plan?.writes.length, JSON.stringify(planned).slice(0, 1500)).toBe(1);
    const approved = await runCli(['approve', planned.plan?.planId as string, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.code, approved.stderr).toBe(0);
    // Another key changes after the plan: the config's digest moved, so the approved step no longer holds.
    await env.admin.request('PUT', `${base}/config`, { description: 'edited meanwhile' });
    const before = env.sim.counters.snapshot().byOperation;
    const ran = await env.run(undoCode(secondId), { cluster: 'strict' });
    const after = env.sim.counters.snapshot().byOperation;
    expect(ran.ok, JSON.stringify(ran).slice(0, 1500)).toBe(false);
    expect(ran.error?.kind).toBe('approval');
    expect(ran.error?.message).toMatch(/not in the approved plan \(or its params differ\)/);
    expect((after[PUT_CONFIG] ?? 0) - (before[PUT_CONFIG] ?? 0)).toBe(0);
    expect((await config(base)).cores).toBe(3);
  }, 180_000);

  it('takes the safety snapshot the policy asks for before a change, and the undo rolls back to it', async () => {
    const { node, vmid } = guests[2] as { node: string; vmid: number };
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('PUT', `${base}/config`, { memory: 4096, cores: 2 });
    const code = `await pve.put('${base}/config', { memory: 8192 });\nawait pve.put('${base}/config', { cores: 4 });\nreturn 1;`;
    const planned = await env.run(code, { dryRun: true, cluster: 'snap' });
    expect(planned.plan?.summary, JSON.stringify(planned).slice(0, 1500)).toMatch(new RegExp(`note: before step 1, a safety snapshot of VM ${vmid} is taken`));
    const changed = await env.run(code, { cluster: 'snap' });
    expect(changed.ok, JSON.stringify(changed).slice(0, 1500)).toBe(true);
    const runId = runIdOf(changed);
    const safety = `undo-${runId.replace(/-/g, '').slice(0, 12)}`;
    expect(await snapshots(base)).toContain(safety);
    expect([String((await config(base)).memory), (await config(base)).cores]).toEqual(['8192', 4]);

    const cli = await runCli(['undo', runId, '--yes', '--cluster', 'snap', '--config', env.configFile], { env: env.env, timeoutMs: 60_000 });
    expect(cli.code, cli.stderr + cli.stdout).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`roll back to snapshot '${safety}'`));
    const now = await config(base);
    expect([String(now.memory), now.cores]).toEqual(['4096', 2]);
    // The snapshot stays: the operator deletes it once satisfied.
    expect(await snapshots(base)).toContain(safety);
    // Its intent and outcome are chained and paired like any change's.
    const verified = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  }, 180_000);

  it('puts back the previous values of another update, read before it was sent', async () => {
    await env.admin.request('POST', '/pools', { poolid: 'undopool', comment: 'before' });
    const changed = await env.run(`await pve.put('/pools/undopool', { comment: 'after' });\nreturn 1;`, { cluster: 'adm' });
    expect(changed.ok, JSON.stringify(changed).slice(0, 1500)).toBe(true);
    const runId = runIdOf(changed);
    expect(env.auditEntries().find((e) => e.type === 'intent' && e.runId === runId)?.undo).toEqual({
      kind: 'update',
      path: '/pools/undopool',
      before: { comment: 'before' },
      after: { comment: 'after' },
      canDelete: false,
    });
    const undone = await env.run(undoCode(runId), { cluster: 'adm' });
    expect(undone.ok, JSON.stringify(undone).slice(0, 1500)).toBe(true);
    expect(((await env.admin.request('GET', '/pools/undopool')) as { comment?: string }).comment).toBe('before');
  }, 120_000);

  it('restores the keys a delete given as an array removed: the array is the list PVE got', async () => {
    const { node, vmid } = guests[3] as { node: string; vmid: number };
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('PUT', `${base}/config`, { onboot: 1, description: 'kept by undo' });
    const changed = await env.run(`await pve.put('${base}/config', { delete: ['onboot', 'description'] });\nreturn 1;`, { cluster: 'adm' });
    const runId = runIdOf(changed);
    expect(env.auditEntries().find((e) => e.type === 'intent' && e.runId === runId)?.params).toMatchObject({ delete: 'onboot,description' });
    expect(await config(base)).not.toHaveProperty('onboot');
    const undone = await env.run(undoCode(runId), { cluster: 'adm' });
    expect(undone.ok, JSON.stringify(undone).slice(0, 1500)).toBe(true);
    const now = await config(base);
    expect([now.onboot, now.description]).toEqual([1, 'kept by undo']);
  }, 120_000);

  it('without a terminal it asks for --yes and sends nothing', async () => {
    const { node, vmid } = guests[3] ?? (guests[0] as { node: string; vmid: number });
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('PUT', `${base}/config`, { cores: 1 });
    const runId = runIdOf(await env.run(`await pve.put('${base}/config', { cores: 2 });\nreturn 1;`));
    const before = env.sim.counters.snapshot().byOperation;
    const piped = await runCli(['undo', runId, '--config', env.configFile], { env: env.env, timeoutMs: 60_000 });
    const after = env.sim.counters.snapshot().byOperation;
    expect(piped.code).toBe(1);
    expect(piped.stdout).toMatch(/cores 2 → 1/);
    expect(piped.stdout).not.toMatch(/Next:/);
    expect(piped.stderr).toMatch(/no terminal to confirm on.*--yes/);
    expect((after[PUT_CONFIG] ?? 0) - (before[PUT_CONFIG] ?? 0)).toBe(0);
    expect((await config(base)).cores).toBe(2);
  }, 120_000);

  it('asks on a terminal like approve: "n" sends nothing', async () => {
    const { node, vmid } = guests[4] ?? (guests[0] as { node: string; vmid: number });
    const base = `/nodes/${node}/qemu/${vmid}`;
    await env.admin.request('PUT', `${base}/config`, { cores: 1 });
    const runId = runIdOf(await env.run(`await pve.put('${base}/config', { cores: 2 });\nreturn 1;`));
    const { out, code } = await onTerminal(['undo', runId, '--config', env.configFile], 'n');
    expect(code, out).toBe(1);
    expect(out).toMatch(/cores 2 → 1/);
    expect(out).toMatch(new RegExp(`Undo run ${runId.slice(0, 8)} with these 1 write\\? \\[y/N\\]`));
    expect(out).toContain('not undone: nothing was sent');
    expect((await config(base)).cores).toBe(2);
  }, 120_000);
});

/**
 * The CLI on a real pty (util-linux `script`), `answer` typed at its prompt. Asynchronous: the
 * simulator answers from this process, so it must not be blocked while the command runs.
 */
function onTerminal(args: string[], answer: string): Promise<{ out: string; code: number | null }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out, code });
    });
    child.stdin.end(`${answer}\n`);
  });
}
