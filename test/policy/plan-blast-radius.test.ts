/**
 * A plan's blast radius, end to end through a real MCP client against the simulator: the dry-run
 * of a storage removal shows the guests that lose a disk and which will not boot (structured in
 * `blastRadius` and in the plan text), the approval binds to it, and an approved run is refused,
 * nothing sent, when the radius grew after the approval. A live write whose radius cannot be read
 * counts as its worst case and waits for approval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/helpers/harness.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;

beforeAll(async () => {
  // A config folder of its own: the host-wide kill switch another test may hold must not stop this file's live write.
  process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'pve-blast-config-'));
  env = await startPolicyEnv({
    name: 'plan-blast-radius',
    policies: {
      ops: {
        preset: 'operator',
        allow: ['DELETE /storage/{storage}', 'POST /nodes/{node}/qemu/{vmid}/move_disk', 'PUT /cluster/ha/resources/{sid}', 'DELETE /nodes/{node}/qemu/{vmid}'],
        privileged: ['DELETE /storage/{storage}', 'DELETE /access/users/{userid}/token/{tokenid}'],
      },
    },
  });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

interface RadiusWrite {
  needsApproval: boolean;
  blastRadius?: { family: string; summary: string; complete: boolean; items: Array<{ what: string; effect: string; severe?: boolean }> };
}

async function moveTo(storage: string, vmid: number): Promise<void> {
  const upid = (await env.admin.request('POST', `/nodes/pve1/qemu/${vmid}/move_disk`, { disk: 'scsi0', storage, delete: 1 })) as string;
  await env.admin.waitTask(upid, { timeoutMs: 10_000 });
}

describe('plans show the blast radius and bind to it', () => {
  it('a storage removal lists the guest that will not boot; the approved run is refused once another guest moved there', async () => {
    await env.admin.request('POST', '/storage', { storage: 'scratch', type: 'dir', path: '/srv/scratch', content: 'images' });
    await moveTo('scratch', 118);
    const code = "await pve.delete('/storage/scratch');\nreturn 'done';";
    const planned = await env.run(code, { dryRun: true });
    const step = (planned.plan?.writes as RadiusWrite[] | undefined)?.[0];
    expect(step?.blastRadius, JSON.stringify(planned).slice(0, 2000)).toMatchObject({ family: 'storage-remove', complete: true, summary: '1 guest loses a disk; 1 of them will not boot' });
    expect(step?.blastRadius?.items[0]).toMatchObject({ what: "VM 118 'dev-02' on pve1", severe: true });
    expect(planned.plan?.summary).toMatch(/\n {3}blast radius: 1 guest loses a disk; 1 of them will not boot\n {5}!! VM 118 'dev-02' on pve1: loses disk scsi0 .* it will not boot/);

    const approved = await runCli(['approve', planned.plan?.planId as string, '--yes', '--config', env.configFile], { env: env.env });
    expect(approved.code, approved.stderr).toBe(0);
    // After the approval, a second guest comes to depend on the storage.
    await moveTo('scratch', 100);
    const before = env.sim.counters.snapshot().byOperation;
    const answer = await env.run(code);
    const after = env.sim.counters.snapshot().byOperation;
    expect(answer.error?.kind, JSON.stringify(answer).slice(0, 1500)).toBe('identity');
    expect(answer.error?.message).toMatch(
      /showed "1 guest loses a disk; 1 of them will not boot", and now it would be "2 guests lose a disk; 2 of them will not boot": what the human approved no longer holds/,
    );
    expect((after['DELETE /storage/{storage}'] ?? 0) - (before['DELETE /storage/{storage}'] ?? 0)).toBe(0);
  }, 120_000);

  it('a live write allowed outright whose blast radius cannot be read counts as its worst case: approval, nothing sent', async () => {
    const code = "await pve.put('/cluster/ha/resources/vm:101', { comment: 'db' });\nreturn 'done';";
    const key = 'PUT /cluster/ha/resources/{sid}';
    const fault = env.sim.faults.add({ path: '/cluster/ha/resources/*', method: 'GET', errorRate: 1, errorStatus: 500, errorMessage: 'ha manager unreachable' });
    try {
      const before = env.sim.counters.snapshot().byOperation[key] ?? 0;
      const answer = await env.run(code);
      expect(answer.error?.kind, JSON.stringify(answer).slice(0, 1500)).toBe('approval');
      expect(answer.error?.message).toMatch(/its blast radius could not be read \(GET \/cluster\/ha\/resources\/vm%3A101: 500 /);
      expect((env.sim.counters.snapshot().byOperation[key] ?? 0) - before).toBe(0);
    } finally {
      env.sim.faults.remove(fault);
    }
    const before = env.sim.counters.snapshot().byOperation[key] ?? 0;
    const answer = await env.run(code);
    expect(answer.error, JSON.stringify(answer).slice(0, 1500)).toBeUndefined();
    expect((env.sim.counters.snapshot().byOperation[key] ?? 0) - before).toBe(1);
  }, 120_000);

  it('a guest destroy shows its HA resource and backup jobs, read through the handler with the config the identity check read', async () => {
    const planned = await env.run("await pve.delete('/nodes/pve2/qemu/101', { purge: 1 });\nreturn 'done';", { dryRun: true });
    const step = (planned.plan?.writes as RadiusWrite[] | undefined)?.[0];
    expect(step?.blastRadius, JSON.stringify(planned).slice(0, 2000)).toMatchObject({ family: 'guest-destroy', complete: true });
    expect(step?.blastRadius?.summary).toMatch(/^VM 101 'db-01' on pve2 is destroyed with \d+ disks? and \d+ snapshots?; 2 HA resources or jobs name it/);
    expect(step?.blastRadius?.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ what: 'HA resource vm:101 (state started)', effect: 'removed with the guest' }),
        expect.objectContaining({ kind: 'replication', what: "replication job '101-0' to pve1", effect: 'removed with the guest' }),
      ]),
    );
    expect(step?.needsApproval).toBe(true);
  }, 60_000);

  it('deleting the token this server authenticates with is planned as "this server loses access"', async () => {
    const [userid, tokenid] = env.sim.token.id.split('!') as [string, string];
    const planned = await env.run(`await pve.delete('/access/users/${userid}/token/${tokenid}');\nreturn 'done';`, { dryRun: true });
    const step = (planned.plan?.writes as RadiusWrite[] | undefined)?.[0];
    expect(step?.blastRadius, JSON.stringify(planned).slice(0, 2000)).toMatchObject({ family: 'token-delete', summary: expect.stringMatching(/^THIS SERVER LOSES ACCESS to the cluster; /) });
    expect(step?.blastRadius?.items[0]).toMatchObject({ what: `${env.sim.token.id} (this server's own credential)`, severe: true });
    expect(planned.plan?.summary).toMatch(/!! .*this server's own credential.*: deleted: this server authenticates with this token, so this server loses access/);
  }, 60_000);
});
