/**
 * Functional behaviour of the sandbox engine: results, logs, positions, type-check gating,
 * truncation, bridge errors, parallel calls, queueing, recycling and cancellation.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { BridgeCall, BridgeHandler } from '../../src/bridge/protocol.js';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { TypeCheckService } from '../../src/script/typecheck-service.js';
import { ScriptChecker } from '../../src/script/typecheck.js';
import { fakeBridge } from './fake-bridge.js';
import { miniModel, miniSdkFiles } from './fixtures/mini-sdk.js';

let engine: SandboxEngine;
let checker: ScriptChecker;

beforeAll(async () => {
  checker = new ScriptChecker({ files: miniSdkFiles, model: miniModel() });
  checker.warm();
  engine = new SandboxEngine({
    workers: 2,
    checker: () => checker,
    limits: { wallMs: 10_000, entryTimeoutMs: 1_000, resultBudgetBytes: 4 * 1024, maxLogBytes: 8 * 1024 },
  });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

describe('results and logs', () => {
  it('returns the value, the console output and stats', async () => {
    const bridge = fakeBridge();
    const lines: string[] = [];
    const o = await engine.run(
      {
        code: [
          "const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });",
          "console.log('found', vms.length, 'vms', { first: vms[0]?.name });",
          "console.warn('careful');",
          "return vms.filter((v) => v.status === 'running').map((v) => v.vmid);",
        ].join('\n'),
        onLog: (line) => lines.push(line),
      },
      bridge.handler,
    );
    expect(o.ok).toBe(true);
    expect(o.result).toEqual([100]);
    expect(o.logs).toEqual(['found 2 vms {"first":"web"}', '[warn] careful']);
    expect(lines).toEqual(o.logs);
    expect(o.stats.bridgeCalls).toBe(1);
    expect(o.stats.bytesIn).toBeGreaterThan(0);
    expect(bridge.calls).toEqual([{ kind: 'request', method: 'GET', path: '/nodes/{node}/qemu', params: { node: 'pve1' } }]);
  });

  it('returns nothing when the script returns nothing', async () => {
    const o = await engine.run({ code: 'const a = 1;' }, fakeBridge().handler);
    expect(o).toMatchObject({ ok: true, result: undefined });
  });

  it('keeps the logs when the script fails, with the user line:col of the throw', async () => {
    const code = ['interface Guest {', '  vmid: number;', '}', "console.log('before');", 'const g: Guest = { vmid: 1 };', "if (g.vmid > 0) throw new RangeError('vmid ' + g.vmid + ' is wrong');"].join(
      '\n',
    );
    const o = await engine.run({ code }, fakeBridge().handler);
    expect(o.logs).toEqual(['before']);
    expect(o.error).toMatchObject({ kind: 'exception', message: 'RangeError: vmid 1 is wrong', line: 6, col: 23 });
    expect(o.error?.stack).toContain('agent.ts:6:23');
    expect(o.error?.stack).not.toMatch(/\/work\/|node_modules|isolated-vm|prelude/);
  });

  it('formats errors, cycles, BigInts and functions inside the sandbox', async () => {
    const o = await engine.run({ code: "const a: any = { n: 1n };\na.self = a;\nconsole.log(a, () => 1, undefined, null, Symbol('s'));\nconsole.error(new TypeError('bad'));" }, fakeBridge().handler);
    expect(o.logs[0]).toBe('{"n":"1n","self":"[Circular]"} [Function] undefined null Symbol(s)');
    expect(o.logs[1]).toMatch(/^\[error\] TypeError: bad\n {4}at /);
  });

  it('truncates large results structurally and reports the cut', async () => {
    const o = await engine.run({ code: "return { count: 3000, items: await pve.get('/big') };", typecheck: false }, fakeBridge().handler);
    expect(o.ok).toBe(true);
    const result = o.result as { count: number; items: unknown[] };
    expect(result.count).toBe(3000);
    expect(result.items.length).toBeLessThan(3000);
    expect(o.truncated?.result).toMatchObject({ cuts: [{ path: '$.items', kind: 'array', from: 3000 }] });
    expect(o.truncated?.result?.originalBytes).toBeGreaterThan(600_000);
  });

  it('reports dropped log lines', async () => {
    const o = await engine.run({ code: "for (let i = 0; i < 5000; i++) console.log('line', i);" }, fakeBridge().handler);
    expect(o.ok).toBe(true);
    expect(o.truncated?.logLines).toBeGreaterThan(3000);
  });
});

describe('the pve bridge', () => {
  it('turns a refused call into an error the script can catch', async () => {
    const o = await engine.run(
      {
        code: "try {\n  await pve.post('/nodes/{node}/qemu/{vmid}/status/start', { node: 'pve1', vmid: 100 });\n} catch (e: any) {\n  return [e.name, e.kind, e.message, e instanceof Error, e.risk];\n}",
      },
      fakeBridge().handler,
    );
    expect(o.result).toEqual(['PveDeniedError', 'denied', 'POST /nodes/{node}/qemu/{vmid}/status/start is refused by the test policy', true, 'write']);
  });

  it('an uncaught bridge error becomes the run error with its kind, details and the awaiting position', async () => {
    const o = await engine.run({ code: "const x = 1;\nawait pve.get('/nodes/pve1/missing');", typecheck: false }, fakeBridge().handler);
    expect(o.error).toMatchObject({
      kind: 'api',
      message: 'GET /nodes/pve1/missing: 404 no such path',
      line: 2,
      col: 1,
      details: { bridgeKind: 'api', method: 'GET', path: '/nodes/pve1/missing', status: 404 },
    });
  });

  it('sends waitTask and cluster-bound calls as such', async () => {
    const bridge = fakeBridge();
    const o = await engine.run(
      {
        code: "const lab = pve.cluster('lab');\nconst echo = await lab.get('/echo', { a: [1, 'x'], b: true });\nconst task = await lab.waitTask('UPID:pve1:00000001:00000002:00000003:qmstart:100:root@pam:', { timeoutMs: 5000 });\nreturn { echo, ok: task.ok };",
        typecheck: false,
      },
      bridge.handler,
    );
    expect(o.result).toEqual({ echo: { params: { a: [1, 'x'], b: true }, cluster: 'lab' }, ok: true });
    expect(bridge.calls[1]).toEqual({ kind: 'waitTask', upid: 'UPID:pve1:00000001:00000002:00000003:qmstart:100:root@pam:', timeoutMs: 5000, cluster: 'lab' });
  });

  it('runs parallel calls up to the cap and queues the rest', async () => {
    let active = 0;
    let peak = 0;
    const calls: BridgeCall[] = [];
    const handler: BridgeHandler = async (call) => {
      calls.push(call);
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      return { ok: true, data: { path: call.kind === 'request' ? call.path : '' } };
    };
    const o = await engine.run(
      { code: "const r = await Promise.all(Array.from({ length: 50 }, (_, i) => pve.get('/nodes/pve1/qemu/' + i)));\nreturn r.length;", limits: { maxParallelCalls: 8 } },
      handler,
    );
    expect(o.result).toBe(50);
    expect(calls).toHaveLength(50);
    expect(peak).toBeLessThanOrEqual(8);
    expect(peak).toBeGreaterThan(1);
  });

  it('answers a throwing handler with an internal error instead of crashing', async () => {
    const o = await engine.run({ code: "await pve.get('/version');" }, async () => {
      throw new Error('handler bug');
    });
    expect(o.error).toMatchObject({ kind: 'crashed', message: 'the bridge handler failed: handler bug' });
  });

  it("runs a handler's deferred bookkeeping after its reply and before the script's next call", async () => {
    const events: string[] = [];
    let n = 0;
    const handler: BridgeHandler = async (_call, ctx) => {
      const id = ++n;
      events.push(`call ${id}`);
      ctx.afterReply?.(() => events.push(`after ${id}`));
      return { ok: true, data: id };
    };
    const o = await engine.run({ code: "const a = await pve.get('/a'); const b = await pve.get('/b'); return [a, b];", typecheck: false }, handler);
    expect(o.result).toEqual([1, 2]);
    expect(events).toEqual(['call 1', 'after 1', 'call 2', 'after 2']);
  });

  it('still runs deferred bookkeeping when the run ended while the call was in flight, and survives a throwing task', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const done: string[] = [];
    const controller = new AbortController();
    const handler: BridgeHandler = async (_call, ctx) => {
      await gate;
      ctx.afterReply?.(() => {
        throw new Error('bookkeeping bug');
      });
      ctx.afterReply?.(() => done.push('recorded'));
      return { ok: true, data: null };
    };
    const pending = engine.run({ code: "await pve.get('/slow');", signal: controller.signal, typecheck: false }, handler);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort();
    expect((await pending).error?.kind).toBe('cancelled');
    release();
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toEqual(['recorded']);
  });

  it('refuses replies larger than the sandbox accepts', async () => {
    const o = await engine.run({ code: "await pve.get('/big');", limits: { maxReplyBytes: 10_000 }, typecheck: false }, fakeBridge().handler);
    expect(o.error).toMatchObject({ kind: 'invalid' });
    expect(o.error?.message).toMatch(/accepts at most 10000/);
  });
});

describe('checks before running', () => {
  it('a syntax error is not executed and says where', async () => {
    const bridge = fakeBridge();
    const o = await engine.run({ code: "await pve.get('/version');\nconst x = ;" }, bridge.handler);
    expect(o.error).toMatchObject({ kind: 'syntax', line: 2, col: 11 });
    expect(o.error?.message).toMatch(/^not executed/);
    expect(o.error?.message).toContain('2:11 Expression expected.');
    expect(bridge.calls).toHaveLength(0);
  });

  it('a provable type mistake blocks the run; a warning does not', async () => {
    const blocked = await engine.run({ code: "await pve.get('/nodes/{node}/qemu', { nod: 'pve1' });" }, fakeBridge().handler);
    expect(blocked.error?.kind).toBe('typecheck');
    expect(blocked.error?.diagnostics?.length).toBeGreaterThan(0);
    expect(blocked.error?.message).toMatch(/^not executed/);

    const warned = await engine.run({ code: "const v = await pve.get('/version');\nreturn (v as any).nope ?? v.release.toUpperCase();" }, fakeBridge().handler);
    expect(warned.ok).toBe(true);
    const typoWarned = await engine.run({ code: "const v = await pve.get('/version');\nreturn v.relase;" }, fakeBridge().handler);
    expect(typoWarned.ok).toBe(true);
    expect(typoWarned.warnings?.[0]).toMatchObject({ line: 2, severity: 'warning' });
  });

  it('typecheck: false skips the check', async () => {
    const o = await engine.run({ code: "return await pve.gett('/version');", typecheck: false }, fakeBridge().handler);
    expect(o.error).toMatchObject({ kind: 'exception', message: 'TypeError: pve.gett is not a function', line: 1 });
  });

  it('a syntax error only V8 finds is reported at the user position', async () => {
    const o = await engine.run({ code: 'const a = 1;\nlbl: lbl: a;', typecheck: false }, fakeBridge().handler);
    expect(o.error).toMatchObject({ kind: 'syntax', line: 2 });
  });

  it('refuses oversized code and invalid limits without running', async () => {
    expect((await engine.run({ code: 'return 1;'.repeat(100), limits: { maxCodeBytes: 50 } }, fakeBridge().handler)).error?.kind).toBe('invalid');
    const bad = await engine.run({ code: 'return 1;', limits: { wallMs: -5 } }, fakeBridge().handler);
    expect(bad.error?.kind).toBe('invalid');
    expect(bad.error?.message).toMatch(/wallMs/);
  });
});

describe('type-check in the checker process', () => {
  let checkers: TypeCheckService;
  beforeAll(async () => {
    checkers = new TypeCheckService();
    checkers.checker(miniSdkFiles, miniModel());
    await checkers.warm();
  });
  afterAll(async () => {
    await checkers.close();
  });

  it('blocks and warns exactly as the in-process checker does', async () => {
    const remote = checkers.checker(miniSdkFiles, miniModel());
    for (const code of ["await pve.get('/nodes/{node}/qemu', { nod: 'pve1' });", "const v = await pve.get('/version');\nreturn v.relase;"]) {
      const there = await engine.run({ code, checker: remote }, fakeBridge().handler);
      const here = await engine.run({ code }, fakeBridge().handler);
      expect([there.ok, there.error?.kind, there.error?.message, there.warnings]).toEqual([here.ok, here.error?.kind, here.error?.message, here.warnings]);
    }
    const ok = await engine.run({ code: "return (await pve.get('/version')).release;", checker: remote }, fakeBridge().handler);
    expect(ok).toMatchObject({ ok: true, result: '9.1' });
    expect(ok.stats.typecheckMs).toBeGreaterThan(0);
  });

  it('runs the JavaScript the checker process transpiled: syntax errors and thrown positions as here', async () => {
    const remote = checkers.checker(miniSdkFiles, miniModel());
    for (const code of ['const a = ;\nreturn 1;', "const v = await pve.get('/version');\n\nthrow new Error('bad ' + v.release);"]) {
      const there = await engine.run({ code, checker: remote }, fakeBridge().handler);
      const here = await engine.run({ code }, fakeBridge().handler);
      expect(there.error?.line).toBeGreaterThan(0);
      expect([there.error?.kind, there.error?.message, there.error?.line, there.error?.col]).toEqual([here.error?.kind, here.error?.message, here.error?.line, here.error?.col]);
    }
  });

  it('runs the script with a warning when the checker process dies during the check', async () => {
    const remote = checkers.checker(miniSdkFiles, miniModel());
    const pid = checkers.pid as number;
    const pending = engine.run({ code: "return (await pve.get('/version')).release;", checker: remote }, fakeBridge().handler);
    process.kill(pid, 'SIGKILL');
    const o = await pending;
    expect(o).toMatchObject({ ok: true, result: '9.1' });
    expect(o.warnings?.[0]?.message).toMatch(/^type-check failed and was skipped: .*type-check process/);
    const next = await engine.run({ code: "return await pve.gett('/version');", checker: remote }, fakeBridge().handler);
    expect(next.error?.kind).toBe('typecheck');
  });

  it('runs the script with a warning when a checker throws', async () => {
    const failing = { check: async () => Promise.reject(new Error('declarations unavailable')) };
    const o = await engine.run({ code: 'return 1;', checker: failing }, fakeBridge().handler);
    expect(o).toMatchObject({ ok: true, result: 1 });
    expect(o.warnings).toEqual([{ line: 1, col: 1, severity: 'warning', message: 'type-check failed and was skipped: declarations unavailable' }]);
  });
});

describe('workers, queueing and cancellation', () => {
  it('queues runs beyond the worker count and runs them all', async () => {
    const small = new SandboxEngine({ workers: 1 });
    try {
      const outcomes = await Promise.all([1, 2, 3].map((n) => small.run({ code: `return ${n} * 2;` }, fakeBridge().handler)));
      expect(outcomes.map((o) => o.result)).toEqual([2, 4, 6]);
      expect(outcomes[2]?.stats.queueMs).toBeGreaterThan(0);
      expect(small.stats.workersStarted).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('recycles a worker after N runs', async () => {
    const small = new SandboxEngine({ workers: 1, recycleAfterRuns: 2 });
    try {
      for (let i = 0; i < 3; i++) expect((await small.run({ code: 'return 1;' }, fakeBridge().handler)).ok).toBe(true);
      expect(small.stats.workersRecycled).toBe(1);
    } finally {
      await small.close();
    }
  });

  it('cancelling a run with a pending call frees the sandbox and aborts the call', async () => {
    const bridge = fakeBridge({ hangPaths: ['/hang'] });
    const controller = new AbortController();
    const pending = engine.run({ code: "await pve.get('/hang');", signal: controller.signal, typecheck: false }, bridge.handler);
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    const o = await pending;
    expect(o.error?.kind).toBe('cancelled');
    expect(bridge.inFlight()).toBe(0);
    expect((await engine.run({ code: 'return 2;' }, fakeBridge().handler)).result).toBe(2);
  });

  it('cancelling a busy script stops it', async () => {
    const controller = new AbortController();
    const pending = engine.run({ code: 'while (true) {}', signal: controller.signal, limits: { entryTimeoutMs: 30_000 } }, fakeBridge().handler);
    setTimeout(() => controller.abort(), 200);
    const o = await pending;
    expect(o.error?.kind).toBe('cancelled');
    expect(o.stats.ms).toBeLessThan(5_000);
  });

  it('a run whose deadline passed while it waited does not start, sends nothing, and frees its worker', async () => {
    const bridge = fakeBridge();
    const runs = engine.stats.runs;
    const o = await engine.run({ code: "await pve.get('/version');", typecheck: false, pastDeadline: () => true }, bridge.handler);
    expect(o.error?.kind).toBe('deadline');
    expect(o.error?.message).toMatch(/nothing was sent/);
    expect(bridge.calls).toHaveLength(0);
    expect(engine.stats.runs).toBe(runs);
    expect((await engine.run({ code: 'return 3;', pastDeadline: () => false }, bridge.handler)).result).toBe(3);
  });

  it('an already aborted signal never runs', async () => {
    const bridge = fakeBridge();
    const o = await engine.run({ code: "await pve.get('/version');", signal: AbortSignal.abort() }, bridge.handler);
    expect(o.error?.kind).toBe('cancelled');
    expect(bridge.calls).toHaveLength(0);
  });
});
