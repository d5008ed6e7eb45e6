/**
 * `pve.waitTasks`: every task of a batch is reported with its outcome, none hidden behind the
 * first failure — failed tasks, waits the bridge refused, tasks still running, writes that never
 * started a task — in the order given, with a bounded number of waits in flight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeCall, BridgeHandler, BridgeReply } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';

let engine: SandboxEngine;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1, limits: { wallMs: 10_000, entryTimeoutMs: 1_000 } });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

const upid = (n: number, type = 'qmsnapshot') => `UPID:pve${(n % 2) + 1}:${n.toString(16).toUpperCase().padStart(8, '0')}:00000001:65A0B1C2:${type}:${100 + n}:root@pam:`;

/** A bridge whose answer depends on the task's VMID: 101 fails, 102's wait is refused, 103 is still running. */
function batchBridge(): { handler: BridgeHandler; calls: BridgeCall[]; peak: () => number } {
  const calls: BridgeCall[] = [];
  let active = 0;
  let peak = 0;
  const answer = (call: BridgeCall): BridgeReply => {
    if (call.kind === 'request') {
      if (call.params.vmid === 104)
        return { ok: false, error: { kind: 'denied', outcome: 'not-sent', message: 'POST snapshot of 104 is refused by the test policy', method: 'POST', path: call.path } };
      return { ok: true, data: upid(Number(call.params.vmid) - 100) };
    }
    if (call.kind !== 'waitTask') return { ok: false, error: { kind: 'invalid', message: 'refused' } };
    const node = call.upid.split(':')[1];
    switch (call.upid.split(':')[6]) {
      case '101':
        return {
          ok: false,
          error: {
            kind: 'task',
            outcome: 'failed',
            message: `task ${call.upid} failed: VM is locked (snapshot)`,
            upid: call.upid,
            node,
            exitstatus: 'VM is locked (snapshot)',
            log: ['trying to acquire lock...', 'VM is locked (snapshot)'],
          },
        };
      case '102':
        return { ok: false, error: { kind: 'budget', outcome: 'not-sent', message: 'task-wait budget used up (900000 ms per run)' } };
      case '103':
        return { ok: false, error: { kind: 'timeout', outcome: 'failed', message: 'the task is still running after 1000 ms' } };
      default:
        return { ok: true, data: { upid: call.upid, node, status: 'stopped', exitstatus: 'OK', ok: true, log: ['snapshot taken'] } };
    }
  };
  const handler: BridgeHandler = async (call) => {
    calls.push(call);
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 5));
    active--;
    return answer(call);
  };
  return { handler, calls, peak: () => peak };
}

describe('pve.waitTasks', () => {
  it('reports every task of a batch in order, whatever became of each', async () => {
    const bridge = batchBridge();
    const o = await engine.run({ code: `return await pve.waitTasks([${[0, 1, 2, 3].map((n) => JSON.stringify(upid(n))).join(', ')}], { timeoutMs: 1000 });`, typecheck: false }, bridge.handler);
    expect(o.ok).toBe(true);
    expect(o.result).toEqual([
      { upid: upid(0), node: 'pve1', outcome: 'done', ok: true, status: 'stopped', exitstatus: 'OK', log: ['snapshot taken'] },
      {
        upid: upid(1),
        node: 'pve2',
        outcome: 'failed',
        ok: false,
        exitstatus: 'VM is locked (snapshot)',
        log: ['trying to acquire lock...', 'VM is locked (snapshot)'],
        kind: 'task',
        message: `task ${upid(1)} failed: VM is locked (snapshot)`,
      },
      // The task was started; a wait that could not be made says nothing of how it ended.
      { upid: upid(2), node: 'pve1', outcome: 'unknown', ok: false, log: [], kind: 'budget', message: 'task-wait budget used up (900000 ms per run)' },
      { upid: upid(3), node: 'pve2', outcome: 'unknown', ok: false, log: [], kind: 'timeout', message: 'the task is still running after 1000 ms' },
    ]);
    expect(bridge.calls.map((c) => c.kind === 'waitTask' && c.timeoutMs)).toEqual([1000, 1000, 1000, 1000]);
  });

  it("takes the writes' promises and reports a write that failed with the write's outcome", async () => {
    const bridge = batchBridge();
    const code = `const vmids = [100, 101, 104];
const results = await pve.waitTasks(vmids.map((vmid) => pve.post('/nodes/{node}/qemu/{vmid}/snapshot', { node: 'pve1', vmid, snapname: 'pre' })));
return results.map((r, i) => ({ vmid: vmids[i], outcome: r.outcome, kind: r.kind, upid: r.upid }));`;
    const o = await engine.run({ code, typecheck: false }, bridge.handler);
    expect(o.ok).toBe(true);
    expect(o.result).toEqual([
      { vmid: 100, outcome: 'done', upid: upid(0) },
      { vmid: 101, outcome: 'failed', kind: 'task', upid: upid(1) },
      { vmid: 104, outcome: 'not-sent', kind: 'denied' },
    ]);
  });

  it('waits a few at a time, in parallel', async () => {
    const bridge = batchBridge();
    const list = Array.from({ length: 30 }, (_, i) => JSON.stringify(upid(10 + i)));
    const o = await engine.run({ code: `const r = await pve.waitTasks([${list.join(', ')}]);\nreturn r.filter((x) => x.outcome === 'done').length;`, typecheck: false }, bridge.handler);
    expect(o.result).toBe(30);
    expect(bridge.peak()).toBeGreaterThan(1);
    expect(bridge.peak()).toBeLessThanOrEqual(8);
  });

  it('reports items that are not task IDs, counts a write without a task as done, and refuses a non-array', async () => {
    const bridge = batchBridge();
    const o = await engine.run({ code: "return await pve.waitTasks([null, 42, Promise.reject(new Error('mine'))]);", typecheck: false }, bridge.handler);
    expect(o.result).toEqual([
      { outcome: 'done', ok: true, log: [] },
      { outcome: 'unknown', ok: false, log: [], kind: 'invalid', message: 'pve.waitTasks: item 1 is number, not a task ID (UPID) or the promise of a write' },
      { outcome: 'unknown', ok: false, log: [], message: "the script's own error, not an SDK call's: mine" },
    ]);
    const refused = await engine.run({ code: "return await pve.waitTasks('UPID:pve1:1:2:3:qmstart:100:root@pam:');", typecheck: false }, bridge.handler);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/upids must be an array/) });
    expect(bridge.calls).toEqual([]);
  });
});
