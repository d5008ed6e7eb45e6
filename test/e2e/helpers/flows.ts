/**
 * The core flow both transports must carry, as assertions on a connected client: search,
 * get_schema, run_script reading, writing and dry-running, checked against the simulator's state.
 */
import { expect } from 'vitest';
import type { RunningSimulator } from '../../../src/simulator/index.js';
import { callTool, runAnswer, textOf, type Connected } from './mcp.js';

export async function checkToolList(c: Connected, policy: 'writes' | 'read-only' = 'writes'): Promise<void> {
  const { tools } = await c.client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['get_schema', 'run_script', 'search_api']);
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ['search_api', 'get_schema']) {
    expect(byName.get(name)?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get(name)?.outputSchema?.type).toBe('object');
  }
  const run = byName.get('run_script');
  expect(run?.annotations?.readOnlyHint).toBe(policy === 'read-only');
  if (policy === 'writes') expect(run?.annotations?.destructiveHint).toBe(true);
  // `code` or `runbook`: neither is required by the schema, the handler names the fix when both or neither come.
  expect(run?.inputSchema.required).toBeUndefined();
  expect(Object.keys(run?.inputSchema.properties ?? {}).sort()).toEqual(['args', 'cluster', 'code', 'dryRun', 'runbook', 'typecheck']);
  expect(run?.description).toMatch(/waitTask/);
}

export async function checkSearch(c: Connected): Promise<void> {
  const { result } = await callTool(c, 'search_api', { query: 'start a virtual machine', limit: 5 });
  expect(result.isError).toBeFalsy();
  const { results } = result.structuredContent as { results: Array<{ method: string; path: string; summary: string; risk: string }> };
  expect(results.length).toBeGreaterThan(0);
  expect(results.length).toBeLessThanOrEqual(5);
  expect(results).toContainEqual(expect.objectContaining({ method: 'POST', path: '/nodes/{node}/qemu/{vmid}/status/start', risk: 'write' }));
  for (const r of results) expect(Object.keys(r).sort()).toEqual(['method', 'path', 'risk', 'summary', 'verdict']);
  // The e2e policy (operator) runs guest power directly.
  expect(results).toContainEqual(expect.objectContaining({ path: '/nodes/{node}/qemu/{vmid}/status/start', verdict: 'allowed' }));
  expect(textOf(result)).toContain('POST /nodes/{node}/qemu/{vmid}/status/start');

  const filtered = await callTool(c, 'search_api', { query: 'delete', method: 'DELETE', risk: 'destructive', pathPrefix: '/nodes' });
  const hits = (filtered.result.structuredContent as { results: Array<{ method: string; path: string; risk: string }> }).results;
  expect(hits.length).toBeGreaterThan(0);
  for (const h of hits) {
    expect(h.method).toBe('DELETE');
    expect(h.risk).toBe('destructive');
    expect(h.path.startsWith('/nodes')).toBe(true);
  }
}

export async function checkGetSchema(c: Connected): Promise<void> {
  const { result } = await callTool(c, 'get_schema', { operations: ['POST /nodes/{node}/qemu/{vmid}/status/start', '/nodes/{node}/qemu'] });
  expect(result.isError).toBeFalsy();
  const { operations } = result.structuredContent as {
    operations: Array<{ method: string; path: string; risk: string; permission: string; signature: string }>;
  };
  // "/path" alone means every method of that path.
  expect(operations.map((o) => `${o.method} ${o.path}`).sort()).toEqual(['GET /nodes/{node}/qemu', 'POST /nodes/{node}/qemu', 'POST /nodes/{node}/qemu/{vmid}/status/start']);
  const start = operations.find((o) => o.path.endsWith('/status/start'));
  expect(start).toMatchObject({ method: 'POST', risk: 'write' });
  expect(start?.permission).toMatch(/VM\.PowerMgmt/);
  expect(start?.signature).toContain("pve.post('/nodes/{node}/qemu/{vmid}/status/start'");
  expect(start?.signature).toMatch(/vmid: number/);
  for (const o of operations) expect(Object.keys(o).sort()).toEqual(['method', 'path', 'permission', 'risk', 'signature', 'verdict']);
  expect(start?.signature).toContain("// policy 'e2e' on sim: allowed");

  const missing = await callTool(c, 'get_schema', { operations: ['GET /nodes/{node}/qemu/{vmid}/no-such-thing'] });
  expect(missing.result.isError).toBe(true);
  expect(textOf(missing.result)).toMatch(/Not found/);
}

/** A read whose filtering happens inside the sandbox: only the answer crosses back. */
export async function checkRead(c: Connected, sim: RunningSimulator): Promise<void> {
  const code = `
const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve2' });
return vms.filter((v) => v.status === 'running').map((v) => v.vmid).sort((a, b) => a - b);`;
  const { result } = await callTool(c, 'run_script', { code });
  const answer = runAnswer(result);
  expect(answer.error).toBeUndefined();
  expect(answer.ok).toBe(true);
  sim.cluster.settle();
  const expected = sim.cluster
    .guests()
    .filter((g) => g.type === 'qemu' && g.node === 'pve2' && g.status === 'running')
    .map((g) => g.vmid)
    .sort((a, b) => a - b);
  expect(expected.length).toBeGreaterThan(0);
  expect(answer.result).toEqual(expected);
  expect(textOf(result)).toContain(JSON.stringify(expected));
  // The text rendering is compact: the answer and stats, never the raw VM list.
  expect(textOf(result)).not.toMatch(/maxmem/);
}

export function startScript(node: string, vmid: number): string {
  return `
const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: '${node}', vmid: ${vmid} });
const task = await pve.waitTask(upid);
return { ok: task.ok, exitstatus: task.exitstatus };`;
}

export function stopScript(node: string, vmid: number): string {
  return `
const upid = await pve.post('/nodes/{node}/qemu/{vmid}/status/stop', { node: '${node}', vmid: ${vmid} });
return (await pve.waitTask(upid)).exitstatus;`;
}

export function statusOf(sim: RunningSimulator, vmid: number): string | undefined {
  sim.cluster.settle();
  return sim.cluster.guest(vmid)?.status;
}

/** A live write under the operator policy: the VM really starts in the simulator. */
export async function checkWrite(c: Connected, sim: RunningSimulator, node: string, vmid: number): Promise<void> {
  expect(statusOf(sim, vmid)).toBe('stopped');
  const writesBefore = sim.counters.snapshot().writes;
  const { result } = await callTool(c, 'run_script', { code: startScript(node, vmid) });
  const answer = runAnswer(result);
  expect(answer.error).toBeUndefined();
  expect(answer.result).toEqual({ ok: true, exitstatus: 'OK' });
  expect(statusOf(sim, vmid)).toBe('running');
  expect(sim.counters.snapshot().writes).toBe(writesBefore + 1);
}

/** dryRun: reads happen, the write is only planned; the simulator sees no write at all. */
export async function checkDryRun(c: Connected, sim: RunningSimulator, node: string, vmid: number): Promise<string> {
  expect(statusOf(sim, vmid)).toBe('stopped');
  const before = sim.counters.snapshot();
  const { result } = await callTool(c, 'run_script', { code: startScript(node, vmid), dryRun: true });
  const answer = runAnswer(result);
  expect(answer.ok).toBe(true);
  expect(answer.plan?.planId).toMatch(/^[0-9a-f]{64}$/);
  expect(answer.plan?.writes).toHaveLength(1);
  expect(answer.plan?.writes[0]).toMatchObject({ method: 'POST', path: `/nodes/${node}/qemu/${vmid}/status/start` });
  expect(textOf(result)).toContain(`plan ${answer.plan?.planId}`);
  const after = sim.counters.snapshot();
  expect(after.writes).toBe(before.writes);
  expect(after.byOperation['POST /nodes/{node}/qemu/{vmid}/status/start'] ?? 0).toBe(before.byOperation['POST /nodes/{node}/qemu/{vmid}/status/start'] ?? 0);
  expect(statusOf(sim, vmid)).toBe('stopped');
  return answer.plan?.planId as string;
}
