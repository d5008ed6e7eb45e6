/**
 * Least privilege enforced by PVE too: a cluster configured with a read token (PVEAuditor on the
 * nodes, storages and VM 118 only) and a write token (root's). Through a real MCP client against the simulator, reads go
 * out with the read token (so PVE refuses what that token may not read, although the write token
 * could), writes and their task waits with the write token, and the permission preflight checks
 * the token each call will use.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { callTool, connectStdio, runAnswer, type Connected, type RunAnswer } from '../e2e/helpers/mcp.js';

let sim: RunningSimulator;
let mcp: Connected;
let dir: string;
let readToken: { tokenid: string; secret: string };

beforeAll(async () => {
  sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, taskDurationMs: 20 });
  sim.access.addUser('reader@pve');
  readToken = sim.access.addToken('reader@pve', 'ro', { privsep: false });
  for (const path of ['/nodes', '/storage', '/vms/118']) sim.access.grant({ path, roles: ['PVEAuditor'], users: ['reader@pve'] });
  dir = mkdtempSync(join(tmpdir(), 'pve-tokens-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      clusters: {
        sim: {
          url: sim.url,
          auth: { tokenId: sim.token.id, secret: sim.token.secret },
          tokens: { read: { tokenId: readToken.tokenid, secret: readToken.secret } },
          tls: { fingerprint: sim.fingerprint },
          policy: 'ops',
        },
      },
      cacheDir: join(dir, 'cache'),
      stateDir: join(dir, 'state'),
      policies: { ops: { preset: 'operator' } },
    }),
    { mode: 0o600 },
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PVE_')) env[k] = v;
  env.XDG_STATE_HOME = join(dir, 'xdg');
  mcp = await connectStdio({ sim, dir, configFile, stateDir: join(dir, 'state'), env, writeConfig: () => configFile, close: async () => undefined }, { name: 'tokens' }, configFile);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function run(code: string): Promise<RunAnswer> {
  const { result } = await callTool(mcp, 'run_script', { code, typecheck: false });
  return runAnswer(result);
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
    expect(result.upid).toContain(`:${sim.token.id}:`);
  });
});
