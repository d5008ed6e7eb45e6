/** The SDK helpers every task starts with, typed and type-checked, through MCP against the simulator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectStdio, runAnswer, type Connected } from './helpers/mcp.js';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';

let env: E2eEnv;
let mcp: Connected;

beforeAll(async () => {
  env = await startE2eEnv();
  mcp = await connectStdio(env, { name: 'sdk-helpers' });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

describe('pve.guests() and pve.findGuest()', () => {
  it('list every guest with where it runs, and find one by name or VMID, without type-check warnings', async () => {
    const code = [
      'const all = await pve.guests();',
      "const web = await pve.findGuest('web-01');",
      'const dev = await pve.findGuest(118);',
      "const none = await pve.findGuest('no-such-guest');",
      "return { count: all.length, running: all.filter((g) => g.status === 'running').length, web: web && { node: web.node, vmid: web.vmid, type: web.type }, dev: dev?.name, none: none === undefined };",
    ].join('\n');
    const { result } = await callTool(mcp, 'run_script', { code });
    const answer = runAnswer(result);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    expect(answer.result).toMatchObject({ web: { node: 'pve1', vmid: 100, type: 'qemu' }, dev: 'dev-02', none: true });
    expect((answer.result as { count: number }).count).toBeGreaterThan(20);
    expect((answer as { warnings?: unknown[] }).warnings ?? []).toEqual([]);
  });

  it('refuse a lookup key that is neither a name nor a VMID', async () => {
    const { result } = await callTool(mcp, 'run_script', { code: 'return await pve.findGuest({} as any);' });
    expect(runAnswer(result).error?.message).toMatch(/give a VMID or a guest name/);
  });
});
