/**
 * Hostile-script corpus: escapes, prototype pollution, bridge abuse, path traversal, runaway time
 * and memory, floods. Every case must end with a clear error (or a harmless result), leave this
 * process alive, show the handler only safe calls, and leave the engine able to run the next script.
 */
import { describe, it, expect, beforeAll, afterAll, afterEach } from 'vitest';
import vm from 'node:vm';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import type { RunOutcome } from '../../src/sandbox/outcome.js';
import type { SandboxLimits } from '../../src/sandbox/limits.js';
import { assertSafeCall, fakeBridge, type FakeBridge } from './fake-bridge.js';

const LIMITS: Partial<SandboxLimits> = {
  wallMs: 5_000,
  cpuMs: 1_500,
  entryTimeoutMs: 400,
  memoryMb: 64,
  maxLogBytes: 16 * 1024,
  maxResultBytes: 1024 * 1024,
  resultBudgetBytes: 8 * 1024,
  maxPendingCalls: 200,
  maxParallelCalls: 8,
};

let engine: SandboxEngine;
let bridge: FakeBridge;

beforeAll(async () => {
  engine = new SandboxEngine({ workers: 1, limits: LIMITS, workerRssLimitMb: 768 });
  await engine.warm();
});

afterAll(async () => {
  await engine.close();
});

afterEach(async () => {
  for (const call of bridge.calls) assertSafeCall(call);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const next = await engine.run({ code: "const v = await pve.get('/version');\nreturn v.release;" }, fakeBridge().handler);
  expect(next).toMatchObject({ ok: true, result: '9.1' });
});

async function run(code: string, limits: Partial<SandboxLimits> = {}, options: { hangPaths?: string[] } = {}): Promise<RunOutcome> {
  bridge = fakeBridge(options);
  return engine.run({ code, limits, typecheck: false }, bridge.handler);
}

function expectError(o: RunOutcome, kind: string, message?: RegExp): void {
  expect(o.ok, JSON.stringify(o.error ?? o.result)).toBe(false);
  expect(o.error?.kind, JSON.stringify(o.error)).toBe(kind);
  if (message) expect(o.error?.message).toMatch(message);
}

describe('realm escapes', () => {
  it('constructor.constructor cannot reach process', async () => {
    expectError(await run("return this.constructor.constructor('return process')();"), 'exception', /process is not defined/);
  });

  it('Function("return globalThis") sees no Node globals', async () => {
    const o = await run("const g = Function('return globalThis')();\nreturn [typeof g.process, typeof g.require, typeof g.module, typeof g.Buffer, typeof g.global];");
    expect(o.result).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('the constructor of a bridge function stays in the sandbox realm', async () => {
    const o = await run("const F = pve.get.constructor;\nreturn [typeof F('return this')().process, console.log.constructor.constructor('return typeof require')()];");
    expect(o.result).toEqual(['undefined', 'undefined']);
  });

  it('dynamic import() is refused', async () => {
    expectError(await run("const fs = await import('fs');\nreturn fs;"), 'exception');
  });

  it('require, process, fetch and setTimeout do not exist', async () => {
    const o = await run('return [typeof require, typeof process, typeof fetch, typeof setTimeout, typeof XMLHttpRequest, typeof queueMicrotask];');
    expect(o.result).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
    expectError(await run("require('child_process').execSync('id');"), 'exception', /require is not defined/);
  });

  it('WebAssembly, SharedArrayBuffer and Atomics are removed', async () => {
    const o = await run('return [typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics];');
    expect(o.result).toEqual(['undefined', 'undefined', 'undefined']);
  });

  it("globals are only the built-ins plus pve, console and the run's args", async () => {
    const o = await run('return Object.getOwnPropertyNames(globalThis);');
    const builtins = new Set(vm.runInNewContext('Object.getOwnPropertyNames(globalThis)') as string[]);
    const extra = (o.result as string[]).filter((name) => !builtins.has(name)).sort();
    // V8 gives every context a `console`; the prelude replaces it, so it is not listed as extra.
    expect(extra).toEqual(['__pveProgram__', 'args', 'pve']);
  });

  it('Error.prepareStackTrace call sites show no host files', async () => {
    const o = await run(
      [
        'Error.prepareStackTrace = (_e, sites) => sites.map((s) => String(s.getFileName()));',
        'let files: string[] = [];',
        "try { await pve.get('/nope'); } catch (e) { files = (new Error('x').stack as unknown as string[]); }",
        'return files;',
      ].join('\n'),
    );
    expect(o.ok).toBe(true);
    for (const f of o.result as string[]) expect(f).toMatch(/^(file:\/\/\/agent\.js|pve:prelude|undefined|null)$/);
  });

  it('the SDK objects are frozen and the globals cannot be replaced', async () => {
    const o = await run(
      [
        "(pve as any).get = () => 'hijacked';",
        "try { (globalThis as any).pve = { get: () => 'x' }; } catch {}",
        'try { (globalThis as any).console = null; } catch {}',
        "const v = await pve.get('/version');",
        'return [typeof v, Object.isFrozen(pve), typeof console.log];',
      ].join('\n'),
    );
    expect(o.result).toEqual(['object', true, 'function']);
  });

  it('a previous run leaves nothing behind', async () => {
    await run('(globalThis as any).leak = 42; Object.prototype.leaked = 1; return 1;');
    const o = await run('return [typeof (globalThis as any).leak, typeof ({} as any).leaked];');
    expect(o.result).toEqual(['undefined', 'undefined']);
  });

  it('the one-shot start hook is gone before the script runs', async () => {
    expect((await run('return typeof (globalThis as any).__pveStart__;')).result).toBe('undefined');
  });

  it('replacing JSON and Promise.prototype.then does not break the bridge', async () => {
    const o = await run(
      ["JSON.stringify = () => 'nope'; JSON.parse = () => 'nope';", "Array.prototype.push = () => { throw new Error('no'); };", "const v = await pve.get('/version');", 'return v.version;'].join('\n'),
    );
    expect(o).toMatchObject({ ok: true, result: '9.1.1' });
  });
});

describe('prototype pollution through the bridge', () => {
  it('a __proto__ key in params is refused before the handler acts on the call', async () => {
    const o = await run('await pve.get(\'/echo\', JSON.parse(\'{"__proto__":{"polluted":true}}\'));');
    expectError(o, 'invalid', /__proto__/);
    expectOnlyRefusal(bridge);
  });

  it('a constructor.prototype chain in params is refused', async () => {
    expectError(await run("await pve.get('/echo', { constructor: { prototype: { polluted: true } } });"), 'invalid', /constructor/);
    expectOnlyRefusal(bridge);
  });

  it('a result with __proto__ keys stays data in the sandbox and on the host', async () => {
    const o = await run("const r = await pve.get('/proto');\nreturn { inner: typeof (r as any).polluted, probe: typeof ({} as any).polluted, r };");
    expect(o.ok).toBe(true);
    const result = o.result as { inner: string; probe: string; r: object };
    expect(result.inner).toBe('undefined');
    expect(result.probe).toBe('undefined');
    expect(Object.getPrototypeOf(result.r)).toBe(Object.prototype);
    expect(Object.keys(result.r)).toContain('__proto__');
  });

  it('a returned __proto__ key survives structural truncation as data', async () => {
    const o = await run('return JSON.parse(\'{"__proto__":{"polluted":true},"list":\' + JSON.stringify(Array(5000).fill(\'abcdefgh\')) + \'}\');');
    expect(o.ok).toBe(true);
    expect(o.truncated?.result).toBeDefined();
    expect(Object.getPrototypeOf(o.result)).toBe(Object.prototype);
    expect((o.result as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('hostile values handed to the bridge', () => {
  it('params getters run inside the sandbox; the handler gets plain data', async () => {
    const o = await run("const p = { get node() { return 'pve' + 1; } };\nreturn await pve.get('/echo', p);");
    expect(o.result).toEqual({ params: { node: 'pve1' }, cluster: null });
  });

  it('a looping getter in params is stopped by the entry timeout', async () => {
    const o = await run("await pve.get('/echo', { get x() { while (true) {} } });");
    expectError(o, 'killed');
    expect(o.error?.reason).toBe('entry-timeout');
    expect(bridge.calls).toHaveLength(0);
  });

  it('a Proxy with throwing traps is refused as non-serialisable', async () => {
    const o = await run("const p = new Proxy({}, { ownKeys() { throw new Error('trap'); } });\nawait pve.get('/echo', p);");
    expectError(o, 'invalid', /not JSON-serialisable: trap/);
  });

  it('toJSON that returns a non-object is refused', async () => {
    expectError(await run("await pve.get('/echo', { toJSON() { return 'ha'; } });"), 'invalid', /JSON object/);
  });

  it('a non-string path (Symbol.toPrimitive, String object) is refused', async () => {
    expectError(await run("await pve.get({ [Symbol.toPrimitive]() { return '/version'; } } as any);"), 'invalid', /path must be a string/);
    expectError(await run("await pve.get(new String('/version') as any);"), 'invalid', /path must be a string/);
  });

  it('a thenable return value is resolved inside the sandbox', async () => {
    expect((await run('return { then(r: (v: number) => void) { r(7); } };')).result).toBe(7);
  });

  it('toJSON on the result runs inside the sandbox', async () => {
    expect((await run('return { secret: 1, toJSON() { return { shown: true }; } };')).result).toEqual({ shown: true });
  });

  it('a Proxy result with throwing traps is undeliverable, not a crash', async () => {
    expectError(await run("return new Proxy({}, { ownKeys() { throw new Error('trap'); } });"), 'invalid', /not JSON-serialisable/);
  });

  it('BigInt and cyclic results are undeliverable', async () => {
    expectError(await run('return 10n;'), 'invalid', /not JSON-serialisable/);
    expectError(await run('const a: any = {}; a.self = a; return a;'), 'invalid', /not JSON-serialisable/);
  });
});

/**
 * The call reached the handler (it counts and audits every attempt) and was refused by the one
 * shape check before anything acted on it.
 */
function expectOnlyRefusal(b: FakeBridge): void {
  expect(b.refused.length).toBeGreaterThan(0);
  expect(b.calls).toEqual([]);
}

describe('path traversal and malformed calls', () => {
  const refused = async (code: string, message: RegExp) => {
    const o = await run(code);
    expectError(o, 'invalid', message);
    expectOnlyRefusal(bridge);
  };

  it('.. segments', () => refused("await pve.get('/nodes/../access/users');", /dot segment/));
  it('percent-encoded traversal', () => refused("await pve.get('/nodes/pve1%2F..%2Faccess');", /contains '\?', '#', '%'/));
  it('query strings and fragments', () => refused("await pve.get('/version?x=1#y');", /contains '\?', '#', '%'/));
  it('relative paths and empty segments', async () => {
    await refused("await pve.get('version');", /must start with '\/'/);
    await refused("await pve.get('/nodes//qemu');", /empty segment \(\/\/\)/);
  });
  it('a traversing cluster name', () => refused("await pve.cluster('../etc').get('/version');", /cluster/));
  it('a bogus task id', () => refused("await pve.waitTask('../../etc/passwd');", /not a task ID \(UPID:<node>/));
  it('a pve.cluster() name that is not a string throws in the sandbox', async () => {
    expectError(await run('pve.cluster(42 as any);'), 'invalid', /name must be a non-empty string/);
  });
});

describe('runaway time', () => {
  it('a synchronous endless loop', async () => {
    const o = await run('while (true) {}');
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'entry-timeout' });
  });

  it('an endless loop after an await', async () => {
    const o = await run("await pve.get('/version');\nwhile (true) {}");
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'entry-timeout' });
  });

  it('busy slices between awaits hit the CPU budget', async () => {
    const o = await run("for (let i = 0; i < 100; i++) {\n  const t = Date.now();\n  while (Date.now() - t < 150) {}\n  await pve.get('/version');\n}", { cpuMs: 500, wallMs: 20_000 });
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'cpu' });
  });

  it('catastrophic regex backtracking', async () => {
    const o = await run("return /^(a+)+$/.test('a'.repeat(40) + 'b');");
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'entry-timeout' });
  });

  it('an endless microtask chain', async () => {
    const o = await run('const spin = (): Promise<void> => Promise.resolve().then(spin);\nspin();\nawait pve.get("/version");');
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'entry-timeout' });
  });

  it('a promise that never settles ends at once as a deadlock', async () => {
    const o = await run('await new Promise(() => {});');
    expectError(o, 'exception', /can never settle/);
    expect(o.stats.ms).toBeLessThan(LIMITS.wallMs as number);
  });

  it('a bridge call that never answers hits the wall clock', async () => {
    const o = await run("await pve.get('/hang');", { wallMs: 800 }, { hangPaths: ['/hang'] });
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'wall' });
    expect(bridge.inFlight()).toBe(0);
  });
});

/**
 * Generous time limits for the tests whose subject is another limit (memory, the log budget, the
 * result size), so that limit is what they meet, also on a loaded machine: the entry timeout of
 * LIMITS is wall-clock, and a slice that takes 20 ms idle has taken over 400 ms under a full test run.
 */
const roomy = { entryTimeoutMs: 10_000, cpuMs: 10_000, wallMs: 20_000 };

describe('runaway memory', () => {
  it('the process-aborting one: new Array(2**26).fill(0)', async () => {
    // Array.prototype.fill cannot be interrupted: whichever watchdog fires first reports it,
    // and a V8 abort takes the worker down instead of this process.
    const o = await run('const a = new Array(2 ** 26).fill(0);\nreturn a.length;');
    expect(o.ok).toBe(false);
    expect(['killed', 'crashed']).toContain(o.error?.kind);
  });

  it('arrays of doubles allocated in a loop', async () => {
    const o = await run('const keep: number[][] = [];\nwhile (true) keep.push(new Array(1e5).fill(1.5));', roomy);
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'memory' });
  });

  it('many small objects', async () => {
    const o = await run('const keep: object[] = [];\nfor (let i = 0; ; i++) keep.push({ i, s: "v" + i });', roomy);
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'memory' });
  });

  it('a huge string returned to the host', async () => {
    const o = await run("return 'x'.repeat(2 ** 29 - 24);");
    expect(o.ok).toBe(false);
    expect(['killed', 'exception']).toContain(o.error?.kind);
  });

  it('spreading a 200 MB string into an array', async () => {
    const o = await run("return [...'.'.repeat(2e8)].length;", roomy);
    expect(o.error).toMatchObject({ kind: 'killed', reason: 'memory' });
  });

  it('typed arrays in a loop', async () => {
    const o = await run('const keep: Uint8Array[] = [];\nwhile (true) keep.push(new Uint8Array(8 * 1024 * 1024));');
    expect(o.ok).toBe(false);
    expect(['killed', 'exception']).toContain(o.error?.kind);
  });
});

describe('recursion', () => {
  it('deep recursion is a catchable RangeError', async () => {
    const o = await run('const f = (n: number): number => f(n + 1) + 1;\nreturn f(0);', roomy);
    expectError(o, 'exception', /Maximum call stack size exceeded/);
    expect(o.error?.line).toBe(1);
  });

  it('recursion that swallows the RangeError and recurses again', async () => {
    const o = await run('const f = (): void => { try { f(); } catch { f(); } };\nf();');
    expect(o.error?.kind).toBe('killed');
  });

  it('a deeply nested return value', async () => {
    const o = await run('let v: any = 1;\nfor (let i = 0; i < 1e5; i++) v = [v];\nreturn v;');
    expect(o.ok).toBe(false);
    expect(['invalid', 'killed']).toContain(o.error?.kind);
  });
});

describe('floods', () => {
  it('a million console lines keep only the log budget', async () => {
    const o = await run("const line = 'y'.repeat(1000);\nfor (let i = 0; i < 1e6; i++) console.log(line);\nreturn 'done';", roomy);
    expect(o).toMatchObject({ ok: true, result: 'done' });
    expect(o.logs.join('').length).toBeLessThanOrEqual(16 * 1024 + 100);
    expect(o.truncated?.logLines).toBeGreaterThan(900_000);
  });

  it('a giant log line is cut', async () => {
    const o = await run("console.log('z'.repeat(5_000_000));\nreturn 1;", roomy);
    expect(o.ok, JSON.stringify(o.error)).toBe(true);
    expect(o.logs[0]?.length).toBeLessThan(5_000);
  });

  it('a log argument with a looping getter is stopped', async () => {
    expect((await run('console.log({ get x() { while (true) {} } });')).error).toMatchObject({ kind: 'killed', reason: 'entry-timeout' });
  });

  it('a giant result is refused', async () => {
    expectError(await run("return 'r'.repeat(5 * 1024 * 1024);", roomy), 'invalid', /limit/);
  });

  it('a large result is truncated structurally and stays valid', async () => {
    const o = await run("return await pve.get('/big');", roomy);
    expect(o.ok).toBe(true);
    expect(JSON.stringify(o.result).length).toBeLessThanOrEqual(8 * 1024);
    expect(o.truncated?.result?.cuts[0]).toMatchObject({ path: '$', kind: 'array', from: 3_000 });
  });

  it('10,000 concurrent bridge calls are capped', async () => {
    // A generous entry timeout: on a loaded machine creating 10,000 promises can take a while.
    const o = await run("await Promise.all(Array.from({ length: 10_000 }, () => pve.get('/version')));", { entryTimeoutMs: 10_000, wallMs: 30_000 });
    expectError(o, 'budget', /in flight/);
    expect(bridge.calls.length).toBeLessThanOrEqual(200);
  });

  it('a promise flood without bridge calls stays inside the entry timeout', async () => {
    const o = await run('let p: Promise<unknown> = Promise.resolve();\nfor (let i = 0; i < 1e7; i++) p = p.then(() => i);\nawait p;');
    expect(o.error?.kind).toBe('killed');
  });
});

describe('hostile exceptions', () => {
  it('throw null, a Symbol, a plain object', async () => {
    expectError(await run('throw null;'), 'exception', /non-Error value: null/);
    expectError(await run("throw Symbol('s');"), 'exception', /non-Error value: Symbol\(s\)/);
    expectError(await run('throw { code: 7 };'), 'exception', /non-Error value: \{"code":7\}/);
  });

  it('an Error whose message getter loops, thrown', async () => {
    const o = await run("const e = new Error('x');\nObject.defineProperty(e, 'message', { get() { while (true) {} } });\nthrow e;");
    expect(o.error?.kind).toBe('killed');
  });

  it('an Error whose message getter loops, left as an unhandled rejection', async () => {
    const o = await run("const e = new Error('x');\nObject.defineProperty(e, 'message', { get() { while (true) {} } });\nPromise.reject(e);\nreturn 'returned';");
    // Either the run finished before isolated-vm touched the rejection, or a limit stopped it;
    // a stuck isolate thread is detected and the worker replaced (checked by the next run).
    if (o.ok) expect(o.result).toBe('returned');
    else expect(o.error?.kind).toBe('killed');
  });

  it('an exception with a throwing name and stack', async () => {
    const o = await run("const e = new Error('boom');\nObject.defineProperty(e, 'name', { get() { throw 1; } });\nObject.defineProperty(e, 'stack', { get() { throw 2; } });\nthrow e;");
    expectError(o, 'exception', /boom/);
  });
});
