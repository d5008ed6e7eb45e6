/**
 * The synchronous-slice design of the worker: where a failed bridge call is reported (V8's async
 * stack, no stack captured per call), how each slice is bounded by the run's remaining CPU and
 * wall-clock budget, and the server's silence watchdog for a worker stuck inside a slice.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import type { RunOutcome } from '../../src/sandbox/outcome.js';
import type { SandboxLimits } from '../../src/sandbox/limits.js';
import { fakeBridge } from './fake-bridge.js';

let engine: SandboxEngine;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1, limits: { wallMs: 10_000, entryTimeoutMs: 1_000 } });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

function run(code: string, limits: Partial<SandboxLimits> = {}): Promise<RunOutcome> {
  return engine.run({ code, limits, typecheck: false }, fakeBridge().handler);
}

describe('where a failed bridge call is reported', () => {
  it('at the line that awaits it, inside a helper, with the helper and its caller in the stack', async () => {
    const o = await run(['async function load(path: string) {', '  return await pve.get(path);', '}', "const first = await load('/version');", "await load('/nodes/pve1/missing');"].join('\n'));
    expect(o.error).toMatchObject({ kind: 'api', line: 2, col: 10 });
    expect(o.error?.stack).toMatch(/agent\.ts:2:10/);
    expect(o.error?.stack).toMatch(/agent\.ts:5:1/);
    expect(o.error?.stack).not.toMatch(/prelude|node_modules|dist\//);
  });

  it('at the await of Promise.all when one of many calls fails', async () => {
    const o = await run("const ok = 1;\nconst all = await Promise.all([pve.get('/version'), pve.get('/nodes/pve1/missing')]);");
    expect(o.error).toMatchObject({ kind: 'api', line: 2, col: 13 });
  });

  it('a caught bridge error carries kind, status and a stack in agent coordinates', async () => {
    const o = await run("try {\n  await pve.get('/nodes/pve1/missing');\n} catch (e: any) {\n  return [e.name, e.kind, e.status, String(e.stack).split('\\n')[1]];\n}");
    expect(o.result).toEqual(['PveApiError', 'api', 404, expect.stringContaining('agent.js')]);
  });
});

describe('slices are bounded by what the run has left', () => {
  it('CPU spent in short slices between awaits is stopped at the CPU budget, not at the entry timeout', async () => {
    const o = await run("for (;;) {\n  const until = Date.now() + 50;\n  while (Date.now() < until) {}\n  await pve.get('/version');\n}", { cpuMs: 400, entryTimeoutMs: 5_000, wallMs: 20_000 });
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'cpu' });
    expect(o.stats.cpuMs).toBeGreaterThanOrEqual(300);
  });

  it('one long slice is cut at the CPU budget when that is tighter than the entry timeout', async () => {
    const o = await run('while (true) {}', { cpuMs: 300, entryTimeoutMs: 5_000, wallMs: 20_000 });
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'cpu' });
  });

  it('one long slice is cut at the wall-clock budget when that is the tightest', async () => {
    const o = await run('while (true) {}', { wallMs: 300, cpuMs: 5_000, entryTimeoutMs: 5_000 });
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'wall' });
  });
});

describe('a worker stuck inside a slice', () => {
  it('is killed by the server after the slice limit plus a grace, and the next run works', async () => {
    // isolated-vm reads a rejected Error's message after the timed section: the slice never returns.
    const o = await run("const e = new Error('x');\nObject.defineProperty(e, 'message', { get() { while (true) {} } });\nPromise.reject(e);\nawait new Promise(() => {});", { entryTimeoutMs: 300 });
    expect(o.ok).toBe(false);
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'entry-timeout', message: expect.stringMatching(/stopped responding/) });
    const next = await run("return (await pve.get('/version')).release;");
    expect(next).toMatchObject({ ok: true, result: '9.1' });
  });
});
