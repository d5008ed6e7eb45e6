/**
 * The state directory on a full file system (a small tmpfs, as root): no change reaches PVE
 * without its intent, the agent is told the audit is unavailable with a kind of its own, runs
 * resume by themselves once space returns, and `audit verify` passes with the gap explained.
 * Root is needed to mount; under CI (root) these cases run, elsewhere they skip when not root.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from '../e2e/helpers/mcp.js';
import { auditEntries, simSnapshots } from './audit-trail.js';

const isRoot = process.getuid?.() === 0;
if (process.env.CI === 'true' && !isRoot) throw new Error('the full-disk fault cases need root under CI (they mount a tmpfs)');

let env: E2eEnv;
let mcp: Connected | undefined;

beforeEach(async () => {
  env = await startE2eEnv();
  mkdirSync(env.stateDir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', env.stateDir]);
});

afterEach(async () => {
  await mcp?.close();
  mcp = undefined;
  execFileSync('umount', ['-l', env.stateDir]);
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

describe.skipIf(!isRoot)('the audit on a full file system', () => {
  it('sends no change while the audit cannot take its intent, says why, and resumes when space returns', async () => {
    mcp = await connectStdio(env, { name: 'full-disk' });
    const g = env.sim.cluster.guests().find((x) => x.type === 'qemu' && !x.config.template && !x.config.lock)!;
    const snap = (name: string) => `return await pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: '${g.node}', vmid: ${g.vmid}, snapname: '${name}' });`;
    expect(runAnswer((await callTool(mcp, 'run_script', { code: snap('disk0') })).result).ok).toBe(true);

    const filler = fill(env.stateDir);
    for (const name of ['disk1', 'disk2', 'disk3']) {
      const { result } = await callTool(mcp, 'run_script', { code: snap(name) });
      const answer = runAnswer(result);
      expect(answer.ok).toBe(false);
      expect(answer.error?.kind).toBe('audit');
      expect(textOf(result)).toMatch(/error \[audit\]/);
    }
    // Parallel writes too: none may slip through while the audit is full.
    const parallel = `const vms = (await pve.get('/cluster/resources', { type: 'vm' })).filter((v) => v.type === 'qemu' && !v.template).slice(0, 5);
await Promise.all(vms.map((v, i) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: v.node, vmid: v.vmid, snapname: 'diskp' + i })));`;
    expect(runAnswer((await callTool(mcp, 'run_script', { code: parallel })).result).ok).toBe(false);
    expect(simSnapshots(env.sim, 'disk').sort()).toEqual(['disk0']);
    expect(mcp.stderr()).toMatch(/audit/i);

    rmSync(filler);
    // The disk fills between the run's start and its write: the write's own intent fails.
    env.sim.faults.add({ path: '/nodes/*/qemu/*/config', method: 'GET', latencyMs: 1_500 });
    const late = callTool(mcp, 'run_script', { code: `await pve.get('/nodes/{node}/qemu/{vmid}/config', { node: '${g.node}', vmid: ${g.vmid} });\n${snap('disk5')}` });
    await new Promise((r) => setTimeout(r, 700));
    const filler2 = fill(env.stateDir);
    const lateAnswer = runAnswer((await late).result);
    expect(lateAnswer.ok).toBe(false);
    expect(lateAnswer.error?.kind).toBe('audit');
    expect(simSnapshots(env.sim, 'disk').sort()).toEqual(['disk0']);
    env.sim.faults.clear();
    rmSync(filler2);

    const resumed = runAnswer((await callTool(mcp, 'run_script', { code: snap('disk9') })).result);
    expect(resumed.ok).toBe(true);
    expect(simSnapshots(env.sim, 'disk').sort()).toEqual(['disk0', 'disk9']);
    await mcp.close();
    mcp = undefined;

    const entries = auditEntries(env.stateDir);
    expect(entries.filter((e) => e.type === 'torn')).toEqual([]);
    expect(entries.some((e) => e.type === 'alert' && /could not be written|no space/i.test(JSON.stringify(e.data)))).toBe(true);
    const verify = await runCli(['audit', 'verify', '--config', env.configFile], { env: env.env });
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
  });
});
