/**
 * Over HTTP with OAuth principals, a principal undoes only its own runs: the reversal reads guests
 * with the server's credentials and answers with their values, so another principal's run is
 * theirs to undo (and the local user's runs are not a remote principal's either).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyHttpEnv, type PolicyHttpEnv } from './helpers/env-http.js';

const secret = (id: string): string => `${id}-secret-0123456789`;
let env: PolicyHttpEnv;

beforeAll(async () => {
  env = await startPolicyHttpEnv({
    policies: { ops: { preset: 'operator' } },
    clusters: { main: 'ops' },
    defaultCluster: 'main',
    principals: [
      { user: 'alice', policy: 'ops' },
      { user: 'bob', policy: 'ops' },
    ],
    users: ['alice', 'bob'].map((id) => ({ id, secret: secret(id), scope: 'pve:read pve:write' })),
  });
}, 180_000);

afterAll(async () => {
  await env?.close();
});

describe('undo across principals', () => {
  it("bob cannot undo alice's run; alice can", async () => {
    const vms = (await env.admin.request('GET', '/nodes/pve1/qemu')) as Array<{ vmid: number; template?: number }>;
    const vmid = (vms.find((v) => !v.template) as { vmid: number }).vmid;
    await env.admin.request('PUT', `/nodes/pve1/qemu/${vmid}/config`, { cores: 1 });
    const changed = await env.run('alice', `await pve.put('/nodes/pve1/qemu/${vmid}/config', { cores: 2 });\nreturn 1;`);
    const runId = (changed as { changes?: { runId?: string } }).changes?.runId as string;
    expect(JSON.stringify(changed).slice(0, 1500)).toMatch(/"runId":"[0-9a-f-]{36}"/);
    const code = `return await pve.undo('${runId}');`;

    const bob = await env.run('bob', code, { dryRun: true });
    expect(bob.ok).toBe(false);
    expect(bob.error?.message).toMatch(/made no recorded changes of yours/);

    const alice = await env.run('alice', code, { dryRun: true });
    expect(alice.ok, JSON.stringify(alice).slice(0, 1500)).toBe(true);
    expect(alice.plan?.writes.map((w) => `${w.method} ${w.path}`)).toEqual([`PUT /nodes/pve1/qemu/${vmid}/config`]);
  }, 120_000);
});
