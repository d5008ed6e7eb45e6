/**
 * The state directory on a full file system (a small tmpfs, as root): no change reaches PVE
 * without its intent, the agent is told the audit is unavailable with a kind of its own, runs
 * resume by themselves once space returns, and `audit verify` passes with the gap explained.
 * Root is needed to mount; under CI (root) these cases run, elsewhere they skip when not root.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from '../e2e/helpers/mcp.js';
import { auditEntries, intendedSnapshots, simSnapshots } from './audit-trail.js';

const isRoot = process.getuid?.() === 0;
if (process.env.CI === 'true' && !isRoot) throw new Error('the full-disk fault cases need root under CI (they mount a tmpfs)');

let env: E2eEnv;
let mcp: Connected | undefined;

let mounted = false;

beforeEach(async (ctx) => {
  env = await startE2eEnv();
  mkdirSync(env.stateDir, { recursive: true });
  if (ctx.task.suite?.name.startsWith('the audit on a full file system')) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', env.stateDir]);
    mounted = true;
  }
});

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  if (mounted) execFileSync('umount', ['-l', env.stateDir]);
  mounted = false;
  await env.close();
});

/** Fill the file system to its last byte: one large file, then small ones until ENOSPC. */
function fill(dir: string): string {
  const file = join(dir, 'filler');
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  let written = 0;
  try {
    for (;;) {
      writeFileSync(file, chunk, { flag: 'a' });
      written += chunk.length;
    }
  } catch {
    // ENOSPC: top up with single bytes so not even a short line fits.
  }
  try {
    for (;;) writeFileSync(file, 'a', { flag: 'a' });
  } catch {
    // full to the last byte
  }
  expect(written).toBeGreaterThan(0);
  return file;
}

/** A snapshot and its task: the simulator lists the snapshot once the task has run. */
function snapCode(node: string, vmid: number, name: string): string {
  return `const upid = await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${node}', vmid: ${vmid}, snapname: '${name}' });\nawait pve.waitTask(upid);\nreturn upid;`;
}

/** Every snapshot PVE made has its intent in the audit (write-ahead), and no entry is torn. */
function expectWriteAhead(prefix: string): void {
  const entries = auditEntries(env.stateDir);
  expect(entries.filter((e) => e.type === 'torn')).toEqual([]);
  const intended = intendedSnapshots(entries);
  for (const name of simSnapshots(env.sim, prefix)) expect(intended, `snapshot ${name} reached PVE without an intent`).toContain(name);
}

async function expectVerifies(): Promise<void> {
  const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
  expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
}

describe.skipIf(!isRoot)('the audit on a full file system', () => {
  it('sends no change while the audit cannot take its intent, says why, and resumes when space returns', async () => {
    mcp = await connectStdio(env, { name: 'full-disk' });
    const g = env.sim.cluster.guests().find((x) => x.type === 'qemu' && !x.config.template && !x.config.lock)!;
    expect(runAnswer((await callTool(mcp, 'run_script', { code: snapCode(g.node, g.vmid, 'disk0') })).result).ok).toBe(true);

    const filler = fill(env.stateDir);
    // The audit file's last page may still take a few entries; after that every run is refused.
    const kinds: string[] = [];
    for (let i = 1; i <= 40 && kinds.at(-1) !== 'audit'; i++) {
      const { result } = await callTool(mcp, 'run_script', { code: snapCode(g.node, g.vmid, `disk${i}`) });
      const answer = runAnswer(result);
      kinds.push(answer.ok ? 'ok' : (answer.error?.kind ?? '?'));
      if (!answer.ok) expect(textOf(result)).toMatch(/error \[audit\]/);
    }
    expect(kinds.at(-1)).toBe('audit');
    expect(kinds.filter((k) => k !== 'ok' && k !== 'audit')).toEqual([]);
    const madeWhileFull = simSnapshots(env.sim, 'disk').length;
    // Parallel writes too: none may slip through while the audit is full.
    const parallel = `const vms = (await pve.get('/cluster/resources', { type: 'vm' })).filter((v) => v.type === 'qemu' && !v.template).slice(0, 5);
await Promise.all(vms.map((v, i) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: v.node, vmid: v.vmid, snapname: 'diskp' + i })));`;
    const blocked = runAnswer((await callTool(mcp, 'run_script', { code: parallel })).result);
    expect(blocked.ok).toBe(false);
    expect(blocked.error?.kind).toBe('audit');
    expect(simSnapshots(env.sim, 'disk')).toHaveLength(madeWhileFull);
    expect(mcp.stderr()).toMatch(/audit/i);
    expectWriteAhead('disk');

    rmSync(filler);
    const resumed = runAnswer((await callTool(mcp, 'run_script', { code: snapCode(g.node, g.vmid, 'disk99') })).result);
    expect(resumed.ok).toBe(true);
    expect(simSnapshots(env.sim, 'disk')).toContain('disk99');
    await mcp.close();
    mcp = undefined;
    expectWriteAhead('disk');
    const entries = auditEntries(env.stateDir);
    expect(entries.some((e) => e.type === 'alert' && /could not be written|no space/i.test(JSON.stringify(e.data)))).toBe(true);
    await expectVerifies();
  });
});

describe("the audit past the server's file size limit (RLIMIT_FSIZE, no root needed)", () => {
  it('a write whose intent cannot be written is not sent; the entry is whole or absent; the limit lifted, runs resume', async () => {
    mcp = await connectStdio(env, { name: 'fsize' });
    const pid = (mcp.client.transport as unknown as { pid?: number }).pid!;
    const g = env.sim.cluster.guests().find((x) => x.type === 'qemu' && !x.config.template && !x.config.lock)!;
    expect(runAnswer((await callTool(mcp, 'run_script', { code: snapCode(g.node, g.vmid, 'lim0') })).result).ok).toBe(true);
    // The limit falls while the run reads: its next entry would pass it.
    env.sim.faults.add({ path: '/nodes/*/qemu/*/config', method: 'GET', latencyMs: 1_000 });
    const run = callTool(mcp, 'run_script', { code: `await pve.get('/nodes/{node}/qemu/{vmid}/config', { node: '${g.node}', vmid: ${g.vmid} });\n${snapCode(g.node, g.vmid, 'lim1')}` });
    await new Promise((r) => setTimeout(r, 300));
    const size = statSync(join(env.stateDir, 'audit.jsonl')).size;
    // The soft limit only: the hard one could not be raised again without CAP_SYS_RESOURCE.
    execFileSync('prlimit', ['--pid', String(pid), `--fsize=${size + 40}:unlimited`]);
    const answer = runAnswer((await run).result);
    expect(answer.ok).toBe(false);
    expect(answer.error?.kind).toBe('audit');
    expect(simSnapshots(env.sim, 'lim')).toEqual(['lim0']);
    env.sim.faults.clear();
    execFileSync('prlimit', ['--pid', String(pid), '--fsize=unlimited:unlimited']);
    const resumed = runAnswer((await callTool(mcp, 'run_script', { code: snapCode(g.node, g.vmid, 'lim2') })).result);
    expect(resumed.ok).toBe(true);
    await mcp.close();
    mcp = undefined;
    expectWriteAhead('lim');
    await expectVerifies();
  });
});
