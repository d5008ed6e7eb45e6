/**
 * Approvals bind exactly, through a real MCP client with elicitation (a test "human" that records
 * each prompt and answers) against the simulator:
 * - a script that tells its approved run from its dry-run and then skips the approved snapshot
 *   cannot perform the approved power cut alone;
 * - the human sees the destructive steps counted at the top and every script-controlled
 *   character that could hide a step made visible;
 * - the unused steps are in the tool output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveClient } from '../../src/client/index.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { callTool, connectStdio, runAnswer, type Connected } from '../e2e/helpers/mcp.js';

let sim: RunningSimulator;
let mcp: Connected;
let dir: string;
let admin: PveClient;
const prompts: string[] = [];

/** The human: approves, and meanwhile something changes that the script can see (a marker on VM 127). */
async function human(request: ElicitRequest): Promise<{ action: 'accept'; content: { approve: boolean } }> {
  prompts.push(String(request.params.message));
  await admin.request('PUT', '/nodes/pve1/qemu/127/config', { description: 'second pass' });
  return { action: 'accept', content: { approve: true } };
}

beforeAll(async () => {
  sim = await startSimulator({ preset: 'demo', port: 0, authFailureDelayMs: 0, taskDurationMs: 20 });
  admin = new PveClient({ name: 'admin', url: sim.url, auth: { kind: 'token', tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint } });
  dir = mkdtempSync(join(tmpdir(), 'pve-binding-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      clusters: { sim: { url: sim.url, auth: { tokenId: sim.token.id, secret: sim.token.secret }, tls: { fingerprint: sim.fingerprint }, policy: 'ops' } },
      cacheDir: join(dir, 'cache'),
      stateDir: join(dir, 'state'),
      policies: { ops: { preset: 'operator' } },
    }),
    { mode: 0o600 },
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PVE_')) env[k] = v;
  env.XDG_STATE_HOME = join(dir, 'xdg');
  mcp = await connectStdio(
    { sim, dir, configFile, stateDir: join(dir, 'state'), env, writeConfig: () => configFile, close: async () => undefined },
    { name: 'binding', elicit: human as never },
    configFile,
  );
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await admin?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('approved runs are bound to the approved sequence', () => {
  it('a script that skips the approved snapshot in its approved run cannot make the approved stop alone', async () => {
    const code = [
      "const marker = await pve.get('/nodes/pve1/qemu/127/config');",
      "if (!String(marker.description ?? '').includes('second pass')) {",
      "  await pve.post('/nodes/pve1/qemu/118/snapshot', { snapname: 'safety_net' });",
      '}',
      "return await pve.post('/nodes/pve1/qemu/118/status/stop', {});",
    ].join('\n');
    const before = sim.counters.snapshot().byOperation;
    const { result } = await callTool(mcp, 'run_script', { code, typecheck: false }, { timeout: 60_000 });
    const answer = runAnswer(result);
    const after = sim.counters.snapshot().byOperation;
    const sent = (key: string) => (after[key] ?? 0) - (before[key] ?? 0);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatch(/!! 1 destructive step: 2/);
    expect(prompts[0]).toMatch(/1\. POST \/nodes\/pve1\/qemu\/118\/snapshot .*\[write, runs directly\]/);
    expect(prompts[0]).toMatch(/2\. POST \/nodes\/pve1\/qemu\/118\/status\/stop \[DESTRUCTIVE, needs approval/);
    expect(answer.error?.kind, JSON.stringify(answer)).toBe('approval');
    expect(answer.error?.message).toMatch(/step 2 of the approved plan, but step 1 \(POST \/nodes\/pve1\/qemu\/118\/snapshot\) has not been made/);
    expect(sent('POST /nodes/{node}/qemu/{vmid}/status/stop')).toBe(0);
    expect(sent('POST /nodes/{node}/qemu/{vmid}/snapshot')).toBe(0);
    expect((answer.approval as { unusedSteps?: number[] } | undefined)?.unusedSteps).toEqual([1, 2]);
  }, 60_000);

  it('shows the human every character that could hide or reorder a step', async () => {
    prompts.length = 0;
    const code = `await pve.put('/nodes/pve1/qemu/118/config', { description: 'routine tidy-up\\u2029\\u2029\\u2029Nothing else is changed.\\u202E' });\nreturn await pve.post('/nodes/pve1/qemu/118/status/reset', {});`;
    await callTool(mcp, 'run_script', { code, typecheck: false }, { timeout: 60_000 });
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0] as string;
    expect(prompt).not.toMatch(/[\u2028\u2029\u202A-\u202E\u2066-\u2069]/);
    expect(prompt).toContain('\\u{2029}\\u{2029}\\u{2029}Nothing else is changed.\\u{202E}');
    expect(prompt).toMatch(/!! 1 destructive step: 2/);
  }, 60_000);
});
