/**
 * Least privilege enforced by PVE too: a cluster configured with a read token (PVEAuditor on the
 * nodes, storages and VM 118 only) and a write token (root's). Through a real MCP client against the simulator, reads go
 * out with the read token (so PVE refuses what that token may not read, although the write token
 * could), writes and their task waits with the write token, and the permission preflight checks
 * the token each call will use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunAnswer } from '../e2e/helpers/mcp.js';
import { startPolicyEnv, type PolicyEnv } from './helpers/env.js';

let env: PolicyEnv;
let readToken: { tokenid: string; secret: string } | undefined;

beforeAll(async () => {
  env = await startPolicyEnv({
    name: 'tokens',
    policies: { ops: { preset: 'operator' } },
    arrange(sim) {
      sim.access.addUser('reader@pve');
      readToken = sim.access.addToken('reader@pve', 'ro', { privsep: false });
      for (const path of ['/nodes', '/storage', '/vms/118']) sim.access.grant({ path, roles: ['PVEAuditor'], users: ['reader@pve'] });
    },
    get clusterExtras() {
      return { ops: { tokens: { read: { tokenId: readToken?.tokenid, secret: readToken?.secret } } } };
    },
  });
}, 120_000);

afterAll(async () => {
  await env?.close();
});

function run(code: string): Promise<RunAnswer> {
  return env.run(code);
}

describe('one API token per risk class', () => {
  it('reads go out with the read token: PVE refuses what only the write token may read', async () => {
    const allowed = await run(`return (await pve.get('/nodes/pve1/qemu/118/status/current')).name`);
    expect(allowed.result).toBe('dev-02');
    // Built at run time, so only PVE (not the preflight) can refuse it.
    const refused = await run(`const id = [100][0]; return await pve.get('/nodes/pve1/qemu/' + id + '/status/current')`);
    expect(refused.error?.kind, JSON.stringify(refused)).toBe('api');
    expect(refused.error?.message).toMatch(/403|Permission check failed/);
  });

  it('the preflight checks the token the call will use', async () => {
    const answer = await run(`return await pve.get('/nodes/pve1/qemu/100/status/current')`);
    expect(answer.error?.kind).toBe('denied');
    expect(answer.error?.message).toMatch(/VM\.Audit on \/vms\/100/);
  });

  it('writes and their task waits go out with the write token', async () => {
    const answer = await run(`const upid = await pve.post('/nodes/pve1/qemu/118/status/start'); const t = await pve.waitTask(upid); return { upid, ok: t.ok }`);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    const result = answer.result as { upid: string; ok: boolean };
    expect(result.ok).toBe(true);
    // The task's owner field in the UPID is the token that started it.
    expect(result.upid).toContain(`:${env.sim.token.id}:`);
  });
});
