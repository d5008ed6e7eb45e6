/**
 * The run's abort signal is shared by every bridge call in flight; a script with many parallel
 * calls must not trip Node's listener-leak warning (it would print on the server's stderr).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BridgeHandler } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';

let engine: SandboxEngine;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1, limits: { maxParallelCalls: 32 } });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

describe('the run signal', () => {
  it('carries one listener per call in flight without a MaxListenersExceeded warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let most = 0;
    let listening = 0;
    const handler: BridgeHandler = async (_call, ctx) => {
      const onAbort = () => undefined;
      ctx.signal.addEventListener('abort', onAbort);
      most = Math.max(most, ++listening);
      await new Promise((r) => setTimeout(r, 20));
      listening--;
      ctx.signal.removeEventListener('abort', onAbort);
      return { ok: true, data: 1 };
    };
    try {
      const o = await engine.run({ code: "return (await Promise.all(Array.from({ length: 40 }, () => pve.get('/version')))).length;", typecheck: false }, handler);
      expect(o).toMatchObject({ ok: true, result: 40 });
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(most).toBeGreaterThan(10);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
