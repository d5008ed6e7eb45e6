/**
 * Operator tasks done the way an agent does them, with the tool answers as its only input: ask
 * search_api in the operator's words, take the first hit of the kind the task needs (a read for a
 * question, a write for an action), read its signature with get_schema, then run a script built on
 * the path that search returned — never on a path this test knows. Each task checks what the
 * interface promised along the way: the verdict search showed, the signature naming the path's
 * parameters, and the result (or refusal) of the run against the simulator's state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectStdio, runAnswer, textOf, type Connected, type RunAnswer } from './helpers/mcp.js';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';

let env: E2eEnv;
let mcp: Connected;

beforeAll(async () => {
  env = await startE2eEnv();
  mcp = await connectStdio(env, { name: 'agent' });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

interface Hit {
  method: string;
  path: string;
  risk: string;
  verdict: string;
}

interface Task {
  ask: string;
  /** What the agent is after: a read answers a question, a write acts. */
  kind: 'read' | 'write';
  /** The operations a good answer leads to (checked, not used to build the script). */
  expect: string | string[];
  /** Values for the path's placeholders, as the operator named them. */
  values: Record<string, string | number>;
  params?: Record<string, unknown>;
  /** What the script does with the call's answer. */
  shape?: string;
  check(answer: RunAnswer): void;
}

const TASKS: Task[] = [
  {
    ask: 'every guest in the datacenter with cpu and memory',
    kind: 'read',
    expect: 'GET /cluster/resources',
    values: {},
    params: { type: 'vm' },
    shape: 'r.length',
    check: (a) => expect(a.result).toBeGreaterThan(20),
  },
  { ask: 'status of node pve1 cpu memory uptime', kind: 'read', expect: 'GET /nodes/{node}/status', values: { node: 'pve1' }, shape: 'typeof r.uptime', check: (a) => expect(a.result).toBe('number') },
  // The one storage's status, or the node's storage list filtered to it: both answer the question.
  {
    ask: 'how full is storage local-lvm on pve1',
    kind: 'read',
    expect: ['GET /nodes/{node}/storage/{storage}/status', 'GET /nodes/{node}/storage'],
    values: { node: 'pve1', storage: 'local-lvm' },
    shape: '(Array.isArray(r) ? r.length === 1 && r[0].used < r[0].total : r.used < r.total)',
    check: (a) => expect(a.result).toBe(true),
  },
  {
    ask: 'list snapshots of vm 118',
    kind: 'read',
    expect: 'GET /nodes/{node}/qemu/{vmid}/snapshot',
    values: { node: 'pve1', vmid: 118 },
    shape: 'r.some((s) => s.name === "current")',
    check: (a) => expect(a.result).toBe(true),
  },
  { ask: 'recent tasks in the cluster', kind: 'read', expect: 'GET /cluster/tasks', values: {}, shape: 'Array.isArray(r)', check: (a) => expect(a.result).toBe(true) },
  { ask: 'who has which role on which path', kind: 'read', expect: 'GET /access/acl', values: {}, shape: 'Array.isArray(r)', check: (a) => expect(a.result).toBe(true) },
  { ask: 'scheduled backup jobs', kind: 'read', expect: 'GET /cluster/backup', values: {}, shape: 'Array.isArray(r)', check: (a) => expect(a.result).toBe(true) },
  {
    ask: 'firewall rules of vm 100',
    kind: 'read',
    expect: 'GET /nodes/{node}/qemu/{vmid}/firewall/rules',
    values: { node: 'pve1', vmid: 100 },
    shape: 'Array.isArray(r)',
    check: (a) => expect(a.result).toBe(true),
  },
  {
    ask: 'which guests are managed by high availability',
    kind: 'read',
    expect: ['GET /cluster/ha/resources', 'GET /cluster/ha/status/current'],
    values: {},
    shape: 'Array.isArray(r)',
    check: (a) => expect(a.result).toBe(true),
  },
  {
    ask: 'take a snapshot of vm 118',
    kind: 'write',
    expect: 'POST /nodes/{node}/qemu/{vmid}/snapshot',
    values: { node: 'pve1', vmid: 118 },
    params: { snapname: 'agent_task' },
    shape: '(await pve.waitTask(r)).ok',
    check: (a) => expect(a.result).toBe(true),
  },
  {
    ask: 'start vm 118',
    kind: 'write',
    expect: 'POST /nodes/{node}/qemu/{vmid}/status/start',
    values: { node: 'pve1', vmid: 118 },
    shape: '(await pve.waitTask(r)).exitstatus',
    check: (a) => expect(a.result).toBe('OK'),
  },
  {
    ask: 'stop vm 118',
    kind: 'write',
    expect: 'POST /nodes/{node}/qemu/{vmid}/status/stop',
    values: { node: 'pve1', vmid: 118 },
    check: (a) => {
      // Destructive under the e2e policy and this client cannot ask its human: nothing is sent,
      // the plan says so and how to go on.
      expect(a.error?.kind).toBe('approval');
      expect(a.plan?.summary).toMatch(/DESTRUCTIVE, needs approval/);
      expect(a.plan?.summary).toMatch(/^Next: 1 write needs approval/m);
    },
  },
  {
    ask: 'delete vm 118',
    kind: 'write',
    expect: 'DELETE /nodes/{node}/qemu/{vmid}',
    values: { node: 'pve1', vmid: 118 },
    check: (a) => {
      expect(a.error?.kind).toBe('denied');
      expect(a.error?.message).toMatch(/not allowed by policy/);
    },
  },
];

describe('operator tasks through search_api → get_schema → run_script', () => {
  for (const task of TASKS) {
    it(`${task.ask}`, async () => {
      const search = await callTool(mcp, 'search_api', { query: task.ask, limit: 5 });
      const hits = (search.result.structuredContent as { results: Hit[] }).results;
      const hit = hits.find((h) => (task.kind === 'read' ? h.method === 'GET' : h.method !== 'GET'));
      expect(hit, `no ${task.kind} among ${JSON.stringify(hits.map((h) => `${h.method} ${h.path}`))}`).toBeDefined();
      const chosen = hit as Hit;
      expect([task.expect].flat(), JSON.stringify(hits.map((h) => `${h.method} ${h.path}`))).toContain(`${chosen.method} ${chosen.path}`);
      expect(['allowed', 'needs approval', 'refused', 'in scope only']).toContain(chosen.verdict);

      const schema = await callTool(mcp, 'get_schema', { operations: [`${chosen.method} ${chosen.path}`] });
      const signature = textOf(schema.result);
      for (const placeholder of chosen.path.matchAll(/\{(\w+)\}/g)) expect(signature).toContain(placeholder[1]);

      const call = `await pve.${chosen.method.toLowerCase()}(${JSON.stringify(chosen.path)}, ${JSON.stringify({ ...task.values, ...task.params })})`;
      const code = task.shape ? `const r: any = ${call};\nreturn ${task.shape};` : `return ${call};`;
      const run = await callTool(mcp, 'run_script', { code });
      task.check(runAnswer(run.result));
    }, 60_000);
  }
});
