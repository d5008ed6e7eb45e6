import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callOutcomeOf, PveInputError, PveTaskFailedError, PveTaskUnknownError, PveTimeoutError, type TaskStatus } from '../../src/client/index.js';
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
  sim.faults.clear();
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
    // One field short (no trailing colon): refused with the shape it should have.
    const short = await caught(() => client.waitTask('UPID:pve1:00000001:00000002:00000003:qmstart:100:root@pam'));
    expect(short).toBeInstanceOf(PveInputError);
    expect((short as Error).message).toMatch(/UPID:<node>:<pid>/);
    expect(sim.counters.snapshot().total).toBe(before);
  });

  describe('when the node does not answer about the task', () => {
    const STATUS = 'GET /nodes/{node}/tasks/{upid}/status';
    const used = new Set<number>();

    /** A stopped VM no test of this file has started yet (a start task of another may still run). */
    function untouchedStoppedVm(): { node: string; vmid: number } {
      const started = new Set(
        sim.cluster
          .tasks()
          .filter((t) => t.state !== 'stopped')
          .map((t) => Number(t.id)),
      );
      const g = sim.cluster.guests().find((x) => x.type === 'qemu' && x.status === 'stopped' && !x.config.template && !x.config.lock && !used.has(x.vmid) && !started.has(x.vmid));
      if (!g) throw new Error('no untouched stopped VM left in the preset');
      used.add(g.vmid);
      return { node: g.node, vmid: g.vmid };
    }

    async function statusReads(atLeast: number): Promise<void> {
      for (let i = 0; i < 500 && sim.counters.get(STATUS) < atLeast; i++) await new Promise((r) => setTimeout(r, 5));
    }

    it('keeps waiting through status reads that fail for a while, and resolves when they answer again', async () => {
      const { node, vmid } = untouchedStoppedVm();
      const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
      const flaky = clientFor(sim, { retry: { attempts: 1 } });
      try {
        const rule = sim.faults.add({ path: '/nodes/{node}/tasks/{upid}/status', method: 'GET', errorRate: 1, errorStatus: 595, errorBody: 'none', errorMessage: 'Connection timed out' });
        const before = sim.counters.get(STATUS);
        const waiting = flaky.waitTask(upid, { timeoutMs: 10_000, pollMs: 30, maxPollMs: 60 });
        // Two polls in a row fail (of the three allowed), then the node answers again.
        await statusReads(before + 2);
        sim.faults.remove(rule);
        const result = await waiting;
        expect(result).toMatchObject({ upid, ok: true, exitstatus: 'OK' });
      } finally {
        await flaky.close();
      }
    });

    it('reports a task it can no longer read as started with an unknown outcome, not as failed', async () => {
      const { node, vmid } = untouchedStoppedVm();
      sim.cluster.taskFaults.push({ type: 'qmstart', vmid, durationMs: 5_000, times: 1 });
      const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
      const flaky = clientFor(sim, { retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 5 } });
      try {
        const before = sim.counters.get(STATUS);
        const waiting = caught(() => flaky.waitTask(upid, { timeoutMs: 10_000, pollMs: 30, maxPollMs: 60 }));
        await statusReads(before + 1);
        sim.faults.add({ path: '/nodes/{node}/tasks/{upid}/status', method: 'GET', errorRate: 1, errorStatus: 595, errorBody: 'none', errorMessage: 'Connection timed out' });
        const err = await waiting;
        expect(err).toBeInstanceOf(PveTaskUnknownError);
        expect(err).toMatchObject({ code: 'pve-task-unknown', upid, node, lastStatus: 'running' });
        expect((err as PveTaskUnknownError).reason).toMatch(/595.*gave up after 2 attempts.*3 polls in a row failed/);
        expect(err.message).toMatch(/was started, but its status could not be read .*Its outcome is unknown/);
        expect(callOutcomeOf(err, 'GET')).toBe('unknown');
      } finally {
        await flaky.close();
      }
    });

    it('a log that cannot be read after the task ended does not fail the wait: the result says so', async () => {
      const { node, vmid } = untouchedStoppedVm();
      const upid = await client.request<string>('POST', '/nodes/{node}/qemu/{vmid}/status/start', { node, vmid });
      sim.faults.add({ path: '/nodes/{node}/tasks/{upid}/log', method: 'GET', errorRate: 1, errorStatus: 500, errorMessage: 'log file locked' });
      const result = await client.waitTask(upid, { timeoutMs: 10_000, pollMs: 30 });
      expect(result).toMatchObject({ upid, ok: true, exitstatus: 'OK', log: [] });
      expect(result.note).toMatch(/the log could not be read after the task ended \(.*log file locked.*\)/);
    });
  });
});
