/**
 * Plans show the change, and the approval binds to what was shown: through a real MCP client
 * against the simulator, a dry-run of a memory change shows `memory current → new`, and a run
 * approved out of band is refused, with nothing sent, when memory changed after the plan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/helpers/harness.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;

beforeAll(async () => {
  env = await startPolicyEnv({ name: 'plan-changes', policies: { ops: { preset: 'operator' }, vols: { preset: 'operator', allow: ['DELETE /nodes/{node}/storage/{storage}/content/{volume}'] } } });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

const CONFIG_KEY = 'PUT /nodes/{node}/qemu/{vmid}/config';
const STOP_KEY = 'POST /nodes/{node}/qemu/{vmid}/status/stop';
// The stop needs approval under the operator preset, so the whole plan waits for one.
const CODE = "await pve.put('/nodes/pve1/qemu/118/config', { memory: 8192 });\nawait pve.post('/nodes/pve1/qemu/118/status/stop', {});\nreturn 'done';";

interface ChangedWrite {
  change?: { summary: string; lines: string[] };
}

describe('plans show the change and bind to it', () => {
  it('shows memory current → new, the state change of the stop, and refuses an approved run after memory changed', async () => {
    await env.admin.request('PUT', '/nodes/pve1/qemu/118/config', { memory: 4096 });
    const status = (await env.admin.request('GET', '/nodes/pve1/qemu/118/status/current')) as { status: string; name?: string };
    const planned = await env.run(CODE, { dryRun: true });
    const writes = planned.plan?.writes as ChangedWrite[] | undefined;
    expect(writes?.[0]?.change?.lines, JSON.stringify(planned).slice(0, 1500)).toEqual([`memory: 4096 MiB → 8192 MiB${status.status === 'running' ? ' (pending until restart)' : ''}`]);
    expect(writes?.[1]?.change?.summary).toMatch(new RegExp(`\\(VM 118 on pve1\\): ${status.status} → stopped`));
    expect(planned.plan?.summary).toMatch(/\n1\. .*\(VM 118 on pve1\): memory 4096 MiB → 8192 MiB/);

    const planId = planned.plan?.planId as string;
    const approved = await runCli(['approve', planId, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain('memory 4096 MiB → 8192 MiB');

    // Out of band, the value the human was shown changes.
    await env.admin.request('PUT', '/nodes/pve1/qemu/118/config', { memory: 2048 });
    const before = env.sim.counters.snapshot().byOperation;
    const answer = await env.run(CODE);
    const after = env.sim.counters.snapshot().byOperation;
    expect(answer.error?.kind, JSON.stringify(answer).slice(0, 1500)).toBe('identity');
    expect(answer.error?.message).toMatch(/configuration changed since it was read/);
    expect([CONFIG_KEY, STOP_KEY].map((k) => (after[k] ?? 0) - (before[k] ?? 0))).toEqual([0, 0]);
    expect(((await env.admin.request('GET', '/nodes/pve1/qemu/118/config')) as { memory: unknown }).memory).toBe('2048');
  }, 120_000);

  it('an approved power action whose shown state changed out of band is refused, nothing sent', async () => {
    const guests = (await env.admin.request('GET', '/nodes/pve1/qemu')) as Array<{ vmid: number; status: string; template?: number }>;
    const running = guests.find((g) => g.status === 'running' && g.vmid !== 118 && !g.template);
    expect(running, JSON.stringify(guests)).toBeDefined();
    const vmid = running?.vmid as number;
    const code = `await pve.post('/nodes/pve1/qemu/${vmid}/status/shutdown', {});\nawait pve.post('/nodes/pve1/qemu/${vmid}/status/stop', {});\nreturn 'done';`;
    const planned = await env.run(code, { dryRun: true });
    const writes = planned.plan?.writes as ChangedWrite[];
    expect(writes[0]?.change?.summary).toMatch(new RegExp(`\\(VM ${vmid} on pve1\\): running → stopped \\(clean shutdown\\)$`));
    // The second step on the same guest says its state was read before the first step.
    expect(writes[1]?.change?.summary).toMatch(/running → stopped .*\[as it is now, before step 1 of this plan also changes this guest\]/);
    const approved = await runCli(['approve', planned.plan?.planId as string, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.code, approved.stderr).toBe(0);

    const stopTask = (await env.admin.request('POST', `/nodes/pve1/qemu/${vmid}/status/stop`, {})) as string;
    await env.admin.waitTask(stopTask, { timeoutMs: 10_000 });
    const before = env.sim.counters.snapshot().byOperation;
    const answer = await env.run(code);
    const after = env.sim.counters.snapshot().byOperation;
    expect(answer.error?.kind, JSON.stringify(answer).slice(0, 1500)).toBe('identity');
    expect(answer.error?.message).toMatch(/showed ".*running → stopped.*", and now it would be ".*stopped → stopped.*": what the human approved no longer holds/);
    const sent = ['POST /nodes/{node}/qemu/{vmid}/status/shutdown', STOP_KEY].map((k) => (after[k] ?? 0) - (before[k] ?? 0));
    expect(sent).toEqual([0, 0]);
  }, 120_000);

  it('a backup delete names the backup, its guest, size and date from the storage', async () => {
    const backups = (await env.admin.request('GET', '/nodes/pve1/storage/nas/content', { content: 'backup' })) as Array<{ volid: string; vmid?: number; ctime?: number }>;
    const backup = backups[0];
    expect(backup, 'the demo has a backup on nas').toBeDefined();
    const planned = await env.run(`await pve.delete('/nodes/pve1/storage/nas/content/${backup?.volid}');\nreturn 1;`, { dryRun: true, cluster: 'vols' });
    const change = (planned.plan?.writes as ChangedWrite[] | undefined)?.[0]?.change;
    expect(change, JSON.stringify(planned).slice(0, 1500)).toBeDefined();
    expect(change?.summary, JSON.stringify(planned).slice(0, 1500)).toMatch(
      new RegExp(`^pve1 storage 'nas': delete backup '${backup?.volid.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' of guest ${backup?.vmid}, [\\d.]+ [KMGT]?i?B, made \\d{4}-`),
    );
  }, 60_000);
});
