import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BridgeHandler, BridgeReply } from '../bridge/protocol.js';
import type { TranspiledScript } from '../script/compiled.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits.js';
import { REPLY_HOLD_MS, WorkerRun, type SessionPorts } from './worker-run.js';

type Sent = Parameters<SessionPorts['send']>[0];

/** A run whose calls the test answers one by one, recording what the session sends to the worker. */
function session(limits: Partial<SandboxLimits> = {}) {
  const answers = new Map<number, (reply: BridgeReply) => void>();
  const handler: BridgeHandler = (call) =>
    new Promise((resolve) => {
      if (call.kind === 'request') answers.set(Number(call.params.i), resolve);
    });
  const sent: Sent[] = [];
  const all = { ...DEFAULT_LIMITS, ...limits };
  const run = new WorkerRun(
    {
      jobId: 1,
      script: { js: '', calls: [] } as unknown as TranspiledScript,
      limits: all,
      workerLimits: { ...all, maxRssMb: 1_024 } as never,
      handler,
      warnings: [],
      startedAt: performance.now(),
    },
    { send: (msg) => sent.push(msg), killWorker: () => undefined },
  );
  const call = (i: number) => run.message({ type: 'call', jobId: 1, callId: i + 1, json: JSON.stringify({ kind: 'request', method: 'GET', path: '/echo', params: { i } }) });
  const answer = async (i: number) => {
    answers.get(i)?.({ ok: true, data: i });
    // The session's own awaits (the handler, the reply's bookkeeping) settle on microtasks.
    for (let k = 0; k < 10; k++) await Promise.resolve();
  };
  const replies = () => sent.filter((m) => m.type === 'reply').map((m) => (m.type === 'reply' ? m.callId - 1 : -1));
  return { run, call, answer, replies };
}

describe('WorkerRun replies to a batch of parallel calls', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('holds a reply while half the parallel calls are still with the bridge, then sends the held ones together, in order', async () => {
    const s = session({ maxParallelCalls: 4 });
    for (let i = 0; i < 4; i++) s.call(i);
    for (let k = 0; k < 10; k++) await Promise.resolve();
    await s.answer(2);
    await s.answer(0);
    expect(s.replies()).toEqual([]);
    await s.answer(3);
    expect(s.replies()).toEqual([2, 0, 3]);
    await s.answer(1);
    expect(s.replies()).toEqual([2, 0, 3, 1]);
    s.run.cancel();
  });

  it(`sends a held reply after ${REPLY_HOLD_MS} ms when the other calls take longer`, async () => {
    const s = session({ maxParallelCalls: 4 });
    for (let i = 0; i < 4; i++) s.call(i);
    for (let k = 0; k < 10; k++) await Promise.resolve();
    await s.answer(1);
    expect(s.replies()).toEqual([]);
    vi.advanceTimersByTime(REPLY_HOLD_MS);
    expect(s.replies()).toEqual([1]);
    s.run.cancel();
  });

  it('answers a lone call at once', async () => {
    const s = session({ maxParallelCalls: 16 });
    s.call(0);
    for (let k = 0; k < 10; k++) await Promise.resolve();
    await s.answer(0);
    expect(s.replies()).toEqual([0]);
    s.run.cancel();
  });

  it('sends nothing held once the run has ended', async () => {
    const s = session({ maxParallelCalls: 4 });
    for (let i = 0; i < 4; i++) s.call(i);
    for (let k = 0; k < 10; k++) await Promise.resolve();
    await s.answer(0);
    s.run.cancel();
    vi.advanceTimersByTime(REPLY_HOLD_MS);
    expect(s.replies()).toEqual([]);
  });
});

describe('WorkerRun takes its worker messages itself', () => {
  it("passes over another job's messages (a compile's, an earlier run's late report) and ends on a fatal report of no job", async () => {
    const s = session();
    s.run.message({ type: 'end', jobId: 2, end: { status: 'ok', resultJson: '1' }, stats: { wallMs: 1, cpuMs: 1, logsDropped: 0, rssMb: 50 } });
    s.run.message({ type: 'fatal', jobId: 2, message: 'not this run' });
    s.run.message({ type: 'log', jobId: 1, line: 'mine' });
    s.run.message({ type: 'fatal', message: 'the worker is gone' });
    const outcome = await s.run.outcome;
    expect(outcome.logs).toEqual(['mine']);
    expect(outcome.error?.message).toMatch(/the worker is gone/);
  });
});
