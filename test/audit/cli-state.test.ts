/**
 * The operator's commands from a plain shell of the same user, without a cluster configuration:
 * `approve` lists the plans waiting for approval (with summaries and the exact command) and
 * approves by a prefix; `audit verify` finds the log and the key by itself. Needs the built CLI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startE2eEnv, type E2eEnv } from '../e2e/helpers/harness.js';

describe('approve and audit verify from a plain shell', () => {
  let env: E2eEnv;
  let planId: string;
  let directPlanId: string;
  beforeAll(async () => {
    env = await startE2eEnv({ sandbox: { workers: 1 } });
    const script = join(env.dir, 'stop.ts');
    writeFileSync(script, "const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: 'pve3', vmid: 102 });\nreturn (await pve.waitTask(upid)).exitstatus;\n");
    const dry = await runCli(['run', script, '--dry-run', '--config', env.configFile], { env: env.env });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    planId = /[0-9a-f]{64}/.exec(dry.stdout)?.[0] as string;
    expect(planId).toBeDefined();
    // A plan whose writes all run directly needs no approval: it is not listed as waiting.
    const direct = join(env.dir, 'snap.ts');
    writeFileSync(direct, "await pve.post('/nodes/pve3/qemu/102/snapshot', { snapname: 'direct' });\n");
    const dryDirect = await runCli(['run', direct, '--dry-run', '--config', env.configFile], { env: env.env });
    directPlanId = /[0-9a-f]{64}/.exec(dryDirect.stdout)?.[0] as string;
  }, 120_000);
  afterAll(async () => env?.close());

  it('approve without a planId lists the waiting plan with its summary and the command that approves it', async () => {
    const r = await runCli(['approve'], { env: { ...env.env, PVE_STATE_DIR: env.stateDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(planId);
    expect(r.stdout).toMatch(/waiting for approval/);
    expect(r.stdout).toMatch(/POST \/nodes\/pve3\/qemu\/102\/status\/stop/);
    expect(r.stdout).toContain(`approve: pve-code-mcp approve ${planId} --state-dir ${env.stateDir}`);
    expect(r.stdout).not.toContain(directPlanId ?? 'no direct plan');
  });

  it('approves by a unique prefix; a malformed or unknown planId fails with what to check', async () => {
    const shell = { ...env.env, PVE_STATE_DIR: env.stateDir };
    // Without a terminal it shows the plan and approves only with --yes.
    const unconfirmed = await runCli(['approve', planId.slice(0, 10)], { env: shell });
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stdout).toMatch(/running → stopped|→ stopped/);
    expect(unconfirmed.stderr).toMatch(/not approved: no terminal to confirm on.*--yes/);
    const ok = await runCli(['approve', planId.slice(0, 10), '--yes'], { env: shell });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`approved plan ${planId}`);
    const bad = await runCli(['approve', 'nothex'], { env: shell });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/is not a planId/);
    const missing = await runCli(['approve', 'f'.repeat(64)], { env: shell });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no plan f{64} in .*--state-dir/);
  });

  it('audit verify needs no cluster configuration: it finds the log in the state directory and the generated key', async () => {
    const viaEnv = await runCli(['audit', 'verify'], { env: { ...env.env, PVE_STATE_DIR: env.stateDir } });
    expect(viaEnv.code, viaEnv.stdout + viaEnv.stderr).toBe(0);
    expect(viaEnv.stdout).toMatch(/audit OK/);
    expect(viaEnv.stdout).toMatch(/key .*audit\.key/);
    const viaFlag = await runCli(['audit', 'verify', '--state-dir', env.stateDir], { env: env.env });
    expect(viaFlag.code, viaFlag.stdout + viaFlag.stderr).toBe(0);
    const unkeyed = await runCli(['audit', 'verify', '--state-dir', env.stateDir, '--unkeyed'], { env: env.env });
    expect(unkeyed.code).toBe(1);
    expect(unkeyed.stdout).toMatch(/\[algorithm\]/);
  });
});
