/**
 * The kill switch end to end: `pve-code-mcp halt` / `resume` / `halt --status` as built, the
 * audit entries they write, and a running server that stops every change while halted (a live
 * write, an approved plan's step, a run in flight before its next write) and goes on reading.
 * Every process here gets PVE_HALT_FILE inside the test's directory: the default switch is shared
 * by every test server on the machine and must never be touched.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { statusOf, stopScript } from './helpers/flows.js';
import { callTool, connectStdio, runAnswer, type Connected } from './helpers/mcp.js';

interface Entry {
  type: string;
  data: Record<string, unknown>;
}

function auditEntries(file: string): Entry[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Entry);
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const SNAPSHOT = 'POST /nodes/{node}/qemu/{vmid}/snapshot';

function snapshotScript(snapname: string): string {
  return `await pve.waitTask(await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: '${snapname}' }));\nreturn 'made';`;
}

describe('pve-code-mcp halt / resume / halt --status (the built CLI)', () => {
  let env: E2eEnv;
  let haltFile: string;
  let cli: Record<string, string>;

  beforeAll(async () => {
    env = await startE2eEnv();
    haltFile = join(env.dir, 'host', 'halt');
    cli = { ...env.env, PVE_HALT_FILE: haltFile };
  });
  afterAll(async () => env?.close());

  it("halts with a reason, shows it, resumes, and audits both in the configuration's log", async () => {
    const idle = await runCli(['halt', '--status', '--config', env.configFile], { env: cli });
    expect(idle.code).toBe(0);
    expect(idle.stdout).toContain(`not halted: changes are allowed (the switch file ${haltFile} does not exist)`);

    const halted = await runCli(['halt', '--reason', 'incident 42', '--config', env.configFile], { env: cli });
    expect(halted.code, halted.stderr).toBe(0);
    expect(halted.stdout).toMatch(/^halted since \S+ by \S+.*: incident 42\n {2}file: /);
    expect(halted.stdout).toContain(`file: ${haltFile}`);
    expect(statSync(haltFile).mode & 0o777).toBe(0o644);
    expect(JSON.parse(readFileSync(haltFile, 'utf8'))).toMatchObject({ reason: 'incident 42' });

    const status = await runCli(['halt', '--status', '--config', env.configFile], { env: cli });
    expect(status.stdout).toMatch(/^halted since \S+ by .+: incident 42\n {2}file: .*\n {2}lift it with: pve-code-mcp resume/);

    const resumed = await runCli(['resume', '--config', env.configFile], { env: cli });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`resumed: changes are allowed again (removed ${haltFile}`);
    expect(existsSync(haltFile)).toBe(false);

    const again = await runCli(['resume', '--config', env.configFile], { env: cli });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('not halted: nothing to resume');

    const entries = auditEntries(join(env.stateDir, 'audit.jsonl')).filter((e) => e.type === 'halt');
    expect(entries.map((e) => e.data.action)).toEqual(['halt', 'resume']);
    expect(entries[0]?.data).toMatchObject({ action: 'halt', reason: 'incident 42', file: haltFile });
    expect(entries[0]?.data.by).toEqual(expect.any(String));
    expect(entries[1]?.data).toMatchObject({ action: 'resume', file: haltFile, ended: { reason: 'incident 42' } });
    const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: cli });
    expect(verify.code, verify.stdout).toBe(0);
  });

  it('a file made by hand halts, and resume removes it', async () => {
    mkdirSync(join(env.dir, 'host'), { recursive: true });
    writeFileSync(haltFile, '');
    const status = await runCli(['halt', '--status', '--config', env.configFile], { env: cli });
    expect(status.stdout).toMatch(/^halted since \d{4}-\d\d-\d\dT/);
    const resumed = await runCli(['resume', '--config', env.configFile], { env: cli });
    expect(resumed.code).toBe(0);
    expect(existsSync(haltFile)).toBe(false);
  });

  it('halt.file in the configuration wins over PVE_HALT_FILE, relative to the config file', async () => {
    const config = { ...(JSON.parse(readFileSync(env.configFile, 'utf8')) as object), halt: { file: 'switch/halt' } };
    const configFile = join(env.dir, 'halt-config.json');
    writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });
    const status = await runCli(['halt', '--status', '--config', configFile], { env: cli });
    expect(status.stdout).toContain(`the switch file ${join(env.dir, 'switch', 'halt')} does not exist`);
  });

  it('without a writable audit log: halt still stops (and fails loudly), resume is refused and the halt stays', async () => {
    const config = { ...(JSON.parse(readFileSync(env.configFile, 'utf8')) as object), audit: { file: join(env.dir, 'not-a-log') } };
    mkdirSync(join(env.dir, 'not-a-log', 'x'), { recursive: true });
    const configFile = join(env.dir, 'broken-audit.json');
    writeFileSync(configFile, JSON.stringify(config), { mode: 0o600 });

    const halted = await runCli(['halt', '--reason', 'audit down', '--config', configFile], { env: cli });
    expect(halted.code).toBe(1);
    expect(halted.stderr).toContain('the halt is in place, but its audit entry could not be written');
    expect(existsSync(haltFile)).toBe(true);

    const resumed = await runCli(['resume', '--config', configFile], { env: cli });
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toContain('the halt stays in place');
    expect(JSON.parse(readFileSync(haltFile, 'utf8'))).toMatchObject({ reason: 'audit down' });

    expect((await runCli(['resume', '--config', env.configFile], { env: cli })).code).toBe(0);
  });

  it('--status takes no --reason, and neither command takes positionals', async () => {
    expect((await runCli(['halt', '--status', '--reason', 'x'], { env: cli })).code).toBe(2);
    expect((await runCli(['resume', 'now'], { env: cli })).code).toBe(2);
  });
});

/**
 * Needs the bridge's check (the lead's wiring): a change while halted is refused with kind
 * 'halted' and outcome 'not-sent', before its intent is written.
 */
describe('a running server while halted', () => {
  let env: E2eEnv;
  let haltFile: string;
  let plain: Connected;
  const halt = (reason: string) => runCli(['halt', '--reason', reason, '--config', env.configFile], { env: env.env });
  const resume = () => runCli(['resume', '--config', env.configFile], { env: env.env });
  const snapshots = () => env.sim.counters.snapshot().byOperation[SNAPSHOT] ?? 0;

  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    haltFile = join(env.dir, 'host', 'halt');
    // The server and every CLI run below share the switch through the environment.
    env.env.PVE_HALT_FILE = haltFile;
    plain = await connectStdio(env, { name: 'plain' });
  }, 180_000);

  afterAll(async () => {
    await plain?.close();
    await env?.close();
  });

  it('refuses a live write with the reason and sends nothing; reads in the same run go on; `run` from the CLI is stopped too', async () => {
    expect((await halt('incident 42')).code).toBe(0);
    const before = env.sim.counters.snapshot();
    const code = `
const vm = await pve.get('/nodes/{node}/qemu/{vmid}/status/current', { node: 'pve2', vmid: 107 });
try {
  await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'whileHalted' });
  return { status: vm.status, write: 'sent' };
} catch (e) {
  const after = await pve.get('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107 });
  return { status: vm.status, write: e.kind, message: e.message, snapshots: after.map((s) => s.name) };
}`;
    const answer = runAnswer((await callTool(plain, 'run_script', { code })).result);
    expect(answer.error).toBeUndefined();
    const result = answer.result as { status: string; write: string; message: string; snapshots: string[] };
    expect(result.status).toBe('stopped');
    expect(result.write).toBe('halted');
    expect(result.message).toContain('all changes are halted on this host since');
    expect(result.message).toContain(`incident 42 (file ${haltFile}); nothing was sent`);
    expect(result.snapshots).not.toContain('whileHalted');
    const after = env.sim.counters.snapshot();
    expect(after.writes).toBe(before.writes);

    const calls = auditEntries(join(env.stateDir, 'audit.jsonl')).filter((e) => e.type === 'call' && e.data.template === '/nodes/{node}/qemu/{vmid}/snapshot' && e.data.method === 'POST');
    expect(calls.at(-1)?.data).toMatchObject({ status: 'halted', outcome: 'not-sent' });

    const cliRun = await runCli(['run', '-', '--config', env.configFile], { env: env.env, input: snapshotScript('cliWhileHalted') });
    expect(cliRun.code).toBe(1);
    expect(cliRun.stdout).toContain('halted');
    expect(env.sim.counters.snapshot().writes).toBe(before.writes);

    expect((await resume()).code).toBe(0);
    const made = runAnswer((await callTool(plain, 'run_script', { code: snapshotScript('afterResume') })).result);
    expect(made.error).toBeUndefined();
    expect(made.result).toBe('made');
  });

  it("refuses an approved plan's step", async () => {
    const code = stopScript('pve1', 100);
    const dry = runAnswer((await callTool(plain, 'run_script', { code, dryRun: true })).result);
    const planId = dry.plan?.planId as string;
    expect(planId).toMatch(/^[0-9a-f]{64}$/);
    const approved = await runCli(['approve', planId, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.code, approved.stderr).toBe(0);

    expect((await halt('approved is not enough')).code).toBe(0);
    const before = env.sim.counters.snapshot().writes;
    const answer = runAnswer((await callTool(plain, 'run_script', { code })).result);
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('halted');
    expect(answer.error?.message).toContain('approved is not enough');
    expect(statusOf(env.sim, 100)).toBe('running');
    expect(env.sim.counters.snapshot().writes).toBe(before);
    expect((await resume()).code).toBe(0);
  });

  it('stops a run in flight before its next write, halted by a file made by hand', async () => {
    // The run's second step waits on a slow read: the operator halts meanwhile.
    const slow = env.sim.faults.add({ path: '/version', method: 'GET', latencyMs: 4_000 });
    try {
      const before = snapshots();
      const code = `
await pve.waitTask(await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'beforeHalt' }));
await pve.get('/version');
try {
  await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve2', vmid: 107, snapname: 'afterHalt' });
  return { second: 'sent' };
} catch (e) {
  return { second: e.kind, message: e.message };
}`;
      const running = callTool(plain, 'run_script', { code });
      await until(() => snapshots() === before + 1, 'the first write to reach the simulator');
      mkdirSync(join(env.dir, 'host'), { recursive: true });
      writeFileSync(haltFile, 'maintenance window\n');
      const answer = runAnswer((await running).result);
      expect(answer.error).toBeUndefined();
      expect(answer.result).toMatchObject({ second: 'halted' });
      expect((answer.result as { message: string }).message).toContain('maintenance window');
      expect(snapshots()).toBe(before + 1);
    } finally {
      env.sim.faults.remove(slow);
      await resume();
    }
  });
});
