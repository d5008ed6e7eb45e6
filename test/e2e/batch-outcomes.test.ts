/**
 * A batch of writes as an agent runs it, through a real MCP client and the built server on a
 * simulator with fault scenarios: one guest locked by a snapshot, one guest's snapshot task
 * failing. `pve.waitTasks` must report every guest's outcome — none hidden behind the first
 * failure — and a write the run's budget refuses must be reported as not sent, naming the limit,
 * with the remaining guest done by the next run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectStdio, runAnswer, textOf, type Connected } from './helpers/mcp.js';
import { startE2eEnv, type E2eEnv } from './helpers/harness.js';

const LOCKED = 101;
const FAILING = 102;

let env: E2eEnv;
let mcp: Connected;

beforeAll(async () => {
  env = await startE2eEnv({ scenarios: [`locked:${LOCKED}:snapshot`, `failing-task:qmsnapshot:${FAILING}`] });
  mcp = await connectStdio(env, { name: 'agent' });
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await env?.close();
});

/** Snapshots the VMs in `vmids` in one batch and returns each one's outcome. */
function snapshotScript(vmids: number[], snapname: string): string {
  return `const vms = (await pve.guests()).filter((g) => ${JSON.stringify(vmids)}.includes(g.vmid));
const results = await pve.waitTasks(vms.map((g) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: g.node, vmid: g.vmid, snapname: ${JSON.stringify(snapname)} })));
return results.map((r, i) => ({ vmid: vms[i]!.vmid, outcome: r.outcome, kind: r.kind, exitstatus: r.exitstatus, message: r.outcome === 'done' ? undefined : r.message, upid: r.upid }));`;
}

interface Reported {
  vmid: number;
  outcome: string;
  kind?: string;
  exitstatus?: string;
  message?: string;
  upid?: string;
}

function snapshotsNamed(name: string): number[] {
  return env.sim.cluster
    .guests()
    .filter((g) => g.snapshots.some((s) => s.name === name))
    .map((g) => g.vmid)
    .sort((a, b) => a - b);
}

describe('a batch of snapshots with a locked guest and a failing task', () => {
  it('reports every outcome, none hidden behind the first failure', async () => {
    const run = await callTool(mcp, 'run_script', { code: snapshotScript([100, LOCKED, FAILING, 110], 'batch') });
    const answer = runAnswer(run.result);
    expect(answer.ok, textOf(run.result)).toBe(true);
    const reported = answer.result as Reported[];
    expect(reported.map((r) => [r.vmid, r.outcome])).toEqual([
      [100, 'done'],
      [LOCKED, 'failed'],
      [FAILING, 'failed'],
      [110, 'done'],
    ]);
    const [, locked, failing] = reported as [Reported, Reported, Reported];
    expect(locked).toMatchObject({ kind: 'task', exitstatus: expect.stringMatching(/locked \(snapshot\)/), upid: expect.stringMatching(/^UPID:pve2:.*:qmsnapshot:101:/) });
    expect(failing).toMatchObject({ kind: 'task', exitstatus: 'snapshot create failed: command failed: exit code 1' });
    // What the agent reported is what the cluster holds.
    expect(snapshotsNamed('batch')).toEqual([100, 110]);
    // The model reads each guest's outcome in the answer's text.
    for (const r of reported) expect(textOf(run.result)).toContain(`"vmid":${r.vmid},"outcome":"${r.outcome}"`);
  }, 60_000);

  it('reports a write the budget refused as not sent, naming the limit; the next run does the rest', async () => {
    const guests = env.sim.cluster
      .guests()
      .filter((g) => g.type === 'qemu' && !g.config.template && g.vmid !== LOCKED && g.vmid !== FAILING)
      .map((g) => g.vmid)
      .slice(0, 11);
    expect(guests).toHaveLength(11);
    const run = await callTool(mcp, 'run_script', { code: snapshotScript(guests, 'budgeted') });
    const answer = runAnswer(run.result);
    expect(answer.ok, textOf(run.result)).toBe(true);
    const reported = answer.result as Reported[];
    const refused = reported.filter((r) => r.outcome !== 'done');
    expect(reported.filter((r) => r.outcome === 'done')).toHaveLength(10);
    expect(refused).toHaveLength(1);
    // The refused write never left: no task, and the message names the limit it hit.
    expect(refused[0]).toMatchObject({ outcome: 'not-sent', kind: 'budget' });
    expect(refused[0]!.upid).toBeUndefined();
    expect(refused[0]!.message).toMatch(/\b10\b/);
    expect(refused[0]!.message).toMatch(/guest/);
    expect(snapshotsNamed('budgeted')).toHaveLength(10);

    // Following it: the one guest left, in a run of its own.
    const next = await callTool(mcp, 'run_script', { code: snapshotScript([refused[0]!.vmid], 'budgeted') });
    expect((runAnswer(next.result).result as Reported[]).map((r) => r.outcome)).toEqual(['done']);
    expect(snapshotsNamed('budgeted')).toEqual([...guests].sort((a, b) => a - b));
  }, 60_000);
});
