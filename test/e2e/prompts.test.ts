/**
 * MCP prompts through a real client against the built server: listed in prompts/list (tools/list
 * unchanged), each teaches the search_api → get_schema → run_script loop, its suggested searches
 * find the operations it needs, and bad arguments are refused with the expected form while the
 * server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';
import { callTool, connectStdio, textOf, type Connected } from './helpers/mcp.js';

let env: E2eEnv;
let c: Connected;

beforeAll(async () => {
  env = await startE2eEnv();
  c = await connectStdio(env, { name: 'prompts' });
}, 120_000);

afterAll(async () => {
  await c?.close();
  await env?.close();
});

const promptText = async (name: string, args: Record<string, string>): Promise<string> => {
  const r = await c.client.getPrompt({ name, arguments: args });
  expect(r.messages).toHaveLength(1);
  const content = r.messages[0]?.content;
  return content?.type === 'text' ? content.text : '';
};

describe('MCP prompts', () => {
  it('lists four prompts with their arguments, and tools/list still has only the three tools', async () => {
    const { prompts } = await c.client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['capacity-report', 'cluster-health', 'runbook', 'snapshot-pool', 'why-task-failed']);
    const snap = prompts.find((p) => p.name === 'snapshot-pool');
    expect(snap?.arguments?.map((a) => [a.name, a.required ?? false])).toEqual([
      ['pool', true],
      ['snapname', false],
      ['cluster', false],
    ]);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_api', 'get_schema', 'run_script']);
  });

  it('each prompt teaches the loop, and its suggested searches find what it needs', async () => {
    const health = await promptText('cluster-health', {});
    const snapshot = await promptText('snapshot-pool', { pool: 'production', snapname: 'pre_upgrade' });
    const task = await promptText('why-task-failed', { upid: 'UPID:pve1:0000C530:0001A2F3:6650B1C2:qmstart:101:root@pam:' });
    const capacity = await promptText('capacity-report', { threshold: '75' });
    for (const text of [health, snapshot, task, capacity]) {
      expect(text).toMatch(/search_api.*get_schema.*run_script/s);
      expect(text).toContain("cluster 'sim'");
    }
    expect(snapshot).toContain("pool 'production'");
    expect(snapshot).toContain("'pre_upgrade'");
    expect(snapshot).toMatch(/dryRun: true/);
    expect(task).toContain('(pve1)');
    // Any UPID the client can wait for is one the prompt takes: here a 9-digit pstart (a node up for years).
    expect(await promptText('why-task-failed', { upid: 'UPID:pve2:0017C594:10ADB2769:63EC5455:imgcopy::root@pam:' })).toContain('(pve2)');
    expect(capacity).toContain('above 75%');
    const found = async (query: string, line: RegExp) => {
      const r = await callTool(c, 'search_api', { query, limit: 8 });
      expect(textOf(r.result), query).toMatch(line);
    };
    await found('every node, guest and storage of the cluster', /GET \/cluster\/resources/);
    await found('snapshot a vm', /POST \/nodes\/\{node\}\/qemu\/\{vmid\}\/snapshot/);
    await found('snapshot a container', /POST \/nodes\/\{node\}\/lxc\/\{vmid\}\/snapshot/);
    await found('task log', /GET \/nodes\/\{node\}\/tasks\/\{upid\}\/log/);
    await found('task status', /GET \/nodes\/\{node\}\/tasks\/\{upid\}\/status/);
  });

  it('refuses bad arguments with the expected form and keeps serving', async () => {
    await expect(c.client.getPrompt({ name: 'snapshot-pool', arguments: { pool: 'bad pool/..' } })).rejects.toThrow(/a PVE pool ID/);
    await expect(c.client.getPrompt({ name: 'why-task-failed', arguments: { upid: 'not-a-upid' } })).rejects.toThrow(/a task UPID/);
    await expect(c.client.getPrompt({ name: 'cluster-health', arguments: { cluster: 'nope' } })).rejects.toThrow(/no cluster named 'nope'/);
    await expect(c.client.getPrompt({ name: 'snapshot-pool', arguments: {} })).rejects.toThrow(/pool/);
    expect((await c.client.listPrompts()).prompts).toHaveLength(5);
  });
});
