/**
 * The sandbox channel writes once per event-loop turn (src/process/turn-writer.ts), so the calls a
 * script starts together reach the server in one write and their answers go back batched. Every
 * per-call rule must hold inside a batch: the handler sees each call once and in the script's
 * order, each call gets its own outcome, a budget refuses exactly the calls past it, and a
 * cancellation stops the calls still with the bridge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeCall, BridgeHandler, BridgeReply } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';

let engine: SandboxEngine;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1, perPrincipal: 1, limits: { wallMs: 20_000, entryTimeoutMs: 2_000 } });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

const indexOf = (call: BridgeCall): number => (call.kind === 'request' ? Number(call.params.i) : -1);

/** Answers each call with its index, in the order the calls arrive, a turn later. */
function echo(): { handler: BridgeHandler; seen: number[] } {
  const seen: number[] = [];
  const handler: BridgeHandler = async (call) => {
    seen.push(indexOf(call));
    await new Promise((r) => setImmediate(r));
    return { ok: true, data: indexOf(call) };
  };
  return { handler, seen };
}

const run = (code: string, handler: BridgeHandler, extra: Parameters<SandboxEngine['run']>[0] = { code: '' }) => engine.run({ ...extra, code, typecheck: false }, handler);

describe('calls started together (one batch each way)', () => {
  it('reach the handler once each, in the order the script made them, and answer each its own', async () => {
    const { handler, seen } = echo();
    const o = await run("return await Promise.all(Array.from({ length: 60 }, (_, i) => pve.get('/echo', { i })));", handler, { code: '', limits: { maxParallelCalls: 16 } });
    expect(o.ok).toBe(true);
    const all = Array.from({ length: 60 }, (_, i) => i);
    expect(o.result).toEqual(all);
    expect(seen).toEqual(all);
    expect(o.stats.bridgeCalls).toBe(60);
  });

  it('one call failing does not fail the others of its batch', async () => {
    const handler: BridgeHandler = async (call): Promise<BridgeReply> => {
      const i = indexOf(call);
      if (i === 2) return { ok: false, error: { kind: 'api', message: 'GET /echo: 500 broken', method: 'GET', path: '/echo', status: 500, outcome: 'failed' } };
      return { ok: true, data: i };
    };
    const o = await run(
      "const r = await Promise.allSettled([0, 1, 2, 3, 4].map((i) => pve.get('/echo', { i })));\nreturn r.map((x) => x.status === 'fulfilled' ? x.value : x.reason.kind + ' ' + x.reason.outcome);",
      handler,
    );
    expect(o.result).toEqual([0, 1, 'api failed', 3, 4]);
  });

  it('a budget hit inside a batch refuses exactly the calls past it, each as a budget error, none sent', async () => {
    const { handler, seen } = echo();
    const o = await run(
      "const r = await Promise.allSettled([0, 1, 2, 3, 4, 5, 6, 7].map((i) => pve.get('/echo', { i })));\nreturn r.map((x) => x.status === 'fulfilled' ? x.value : x.reason.kind);",
      handler,
      { code: '', limits: { maxCalls: 5 } },
    );
    expect(o.result).toEqual([0, 1, 2, 3, 4, 'budget', 'budget', 'budget']);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('a cancellation while a batch is with the bridge stops every call of it, and the worker serves the next run', async () => {
    let inBridge = 0;
    let aborted = 0;
    let allArrived!: () => void;
    const arrived = new Promise<void>((r) => (allArrived = r));
    const handler: BridgeHandler = (_call, ctx) =>
      new Promise((resolve) => {
        if (++inBridge === 6) allArrived();
        ctx.signal.addEventListener('abort', () => {
          aborted++;
          resolve({ ok: false, error: { kind: 'cancelled', message: 'run ended', outcome: 'not-sent' } });
        });
      });
    const controller = new AbortController();
    const pending = run("await Promise.all([0, 1, 2, 3, 4, 5].map((i) => pve.get('/echo', { i })));", handler, { code: '', signal: controller.signal });
    await arrived;
    controller.abort();
    const o = await pending;
    expect(o.error?.kind).toBe('cancelled');
    expect(aborted).toBe(6);
    const next = echo();
    expect((await run("return await pve.get('/echo', { i: 7 });", next.handler)).result).toBe(7);
  });
});
