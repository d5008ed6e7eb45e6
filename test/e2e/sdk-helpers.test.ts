/** The SDK helpers every task starts with, typed and type-checked, through MCP against the simulator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from './helpers/mcp.js';
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

describe('/cluster/resources typed by kind', () => {
  const warningsOf = (answer: object) => ((answer as { warnings?: Array<{ message: string }> }).warnings ?? []).map((w) => w.message);

  it('an ordinary inventory script runs without type-check warnings', async () => {
    const code = [
      "const vms = await pve.get('/cluster/resources', { type: 'vm' });",
      'const ids: string[] = [];',
      'for (const r of vms) ids.push(r.vmid.toString());',
      "const qemu = vms.filter((r) => r.type === 'qemu').map((r) => ({ vmid: r.vmid, node: r.node, name: r.name.toUpperCase(), status: r.status, mem: r.mem / r.maxmem }));",
      "const storages = (await pve.get('/cluster/resources', { type: 'storage' })).map((s) => `${s.node}:${s.storage}`);",
      "const nodes = (await pve.get('/cluster/resources', { type: 'node' })).map((n) => n.node);",
      'return { guests: ids.length, qemu: qemu.length, web: qemu.find((g) => g.vmid === 100), storages, nodes };',
    ].join('\n');
    const { result } = await callTool(mcp, 'run_script', { code });
    const answer = runAnswer(result);
    expect(answer.ok, JSON.stringify(answer)).toBe(true);
    expect(warningsOf(answer)).toEqual([]);
    expect(textOf(result)).not.toMatch(/^warning /m);
    const out = answer.result as { guests: number; qemu: number; web: { node: string; name: string }; storages: string[]; nodes: string[] };
    expect(out.guests).toBeGreaterThan(out.qemu);
    expect(out.web).toMatchObject({ node: 'pve1', name: 'WEB-01' });
    expect(out.storages).toContain('pve1:local');
    expect(out.nodes).toContain('pve1');
  });

  it('warns where a script reads a field its entries may lack, and still runs it', async () => {
    const code = [
      "const all = await pve.get('/cluster/resources');",
      "const kinds = (await pve.get('/cluster/resources', { type: 'vm' })).filter((r) => r.type === 'vm').length;",
      'return { above150: all.filter((r) => r.vmid > 150).length, kinds };',
    ].join('\n');
    const { result } = await callTool(mcp, 'run_script', { code });
    const answer = runAnswer(result);
    expect(warningsOf(answer)).toEqual([expect.stringMatching(/types '"qemu" \| "lxc"' and '"vm"' have no overlap/), "'r.vmid' is possibly 'undefined'."]);
    expect(textOf(result)).toMatch(/^warning 3:\d+ 'r.vmid' is possibly 'undefined'/m);
    expect(answer.result).toMatchObject({ kinds: 0 });
  });
});
