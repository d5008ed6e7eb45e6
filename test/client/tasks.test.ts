import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PveInputError, PveTaskFailedError, PveTimeoutError, type TaskStatus } from '../../src/client/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { caught, clientFor, pickVm, startSim } from './sim.js';

let sim: RunningSimulator;
let client: ReturnType<typeof clientFor>;

beforeAll(async () => {
  sim = await startSim({ taskDurationMs: 400 });
  client = clientFor(sim);
});
afterEach(() => {
  sim.cluster.taskFaults.length = 0;
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

describe('waitTask', () => {
  it('resolves ok with the log tail and reports new log lines as they appear', async () => {
    const { node, vmid } = pickVm(sim, 'stopped');
    const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
    const progress: Array<{ lines: string[]; status: TaskStatus }> = [];
    const result = await client.waitTask(upid, { timeoutMs: 10_000, pollMs: 50, onProgress: (lines, status) => progress.push({ lines, status }) });
    expect(result).toMatchObject({ upid, node, status: 'stopped', exitstatus: 'OK', ok: true });
    expect(result.log.at(-1)).toBe('TASK OK');
    // Polls saw the task running before it stopped, and every line was reported exactly once.
    expect(progress.some((p) => p.status.status === 'running')).toBe(true);
    expect(progress.at(-1)!.status.status).toBe('stopped');
    expect(progress.flatMap((p) => p.lines)).toEqual(result.log);
    const current = await client.request<{ status: string }>('GET', '/nodes/{node}/qemu/{vmid}/status/current', { node, vmid });
    expect(current.status).toBe('running');
  });

  it('rejects with PveTaskFailedError carrying exit status, log lines and the full result', async () => {
    const { node, vmid } = pickVm(sim, 'running');
    const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
    const err = await caught(() => client.waitTask(upid, { timeoutMs: 10_000, pollMs: 50 }));
    expect(err).toBeInstanceOf(PveTaskFailedError);
    const failed = err as PveTaskFailedError;
    expect(failed.exitstatus).toBe(`VM ${vmid} already running`);
    expect(failed.log.at(-1)).toBe(`TASK ERROR: VM ${vmid} already running`);
    expect(failed.result).toMatchObject({ upid, node, ok: false, status: 'stopped' });
    expect(err.message).toContain(`TASK ERROR: VM ${vmid} already running`);
  });

  it('reports an injected task failure the same way', async () => {
    const { node, vmid } = pickVm(sim, 'stopped');
    sim.cluster.taskFaults.push({ type: 'qmstart', vmid, fail: 'storage went away', times: 1 });
    const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
    const err = (await caught(() => client.waitTask(upid, { timeoutMs: 10_000, pollMs: 50 }))) as PveTaskFailedError;
    expect(err).toBeInstanceOf(PveTaskFailedError);
    expect(err.exitstatus).toBe('storage went away');
  });

  it('times out with PveTimeoutError (phase task) while the task keeps running', async () => {
    const { node, vmid } = pickVm(sim, 'stopped');
    sim.cluster.taskFaults.push({ type: 'qmstart', vmid, durationMs: 5_000, times: 1 });
    const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
    const seen: string[] = [];
    const err = await caught(() => client.waitTask(upid, { timeoutMs: 600, pollMs: 50, onProgress: (lines) => seen.push(...lines) }));
    expect(err).toBeInstanceOf(PveTimeoutError);
    expect(err).toMatchObject({ phase: 'task', timeoutMs: 600 });
    const status = await client.request<{ status: string }>('GET', '/nodes/{node}/tasks/{upid}/status', { node, upid });
    expect(status.status).toBe('running');
    // A running qmstart has an empty log, which PVE shows as a 'no content' placeholder: not a real line.
    expect(seen).toEqual([]);
    expect(err.message).toMatch(/No log lines yet/);
  });

  it('rejects a malformed UPID without calling the server', async () => {
    const before = sim.counters.snapshot().total;
    expect(await caught(() => client.waitTask('not-a-upid'))).toBeInstanceOf(PveInputError);
    expect(sim.counters.snapshot().total).toBe(before);
  });
});
