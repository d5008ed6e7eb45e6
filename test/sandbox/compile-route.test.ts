/**
 * Where a run without the check is compiled: in the type-check process while it is ready (the
 * sandbox worker then never loads TypeScript), else in a sandbox worker — and either way the
 * same script, the same secrets and the same refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { TypeCheckService } from '../../src/script/typecheck-service.js';
import { writeFakeTypecheckChild } from '../support/fake-typecheck-child.js';
import { fakeBridge } from './fake-bridge.js';
import { miniModel, miniSdkFiles } from './fixtures/mini-sdk.js';

const LIMITS = { wallMs: 10_000, entryTimeoutMs: 1_000 };
/** Throws at 3:7 of the source, after a call: the position maps back through the compile's source map. */
const THROWS = ["const vms = await pve.get('/nodes/{node}/qemu', { node: 'pve1' });", 'const n: number = vms.length;', 'throw new Error(`found ${n}`);'].join('\n');
const WITH_SECRET = "const pw = 'hunter2-xyz';\nawait pve.get('/nodes/{node}/qemu', { node: 'pve1', password: pw } as never);\nreturn 1;";

/** A checked run's service and an engine that compiles unchecked runs there while it is ready. */
function setup(options: { compileTimeoutMs?: number; entry?: string } = {}): { engine: SandboxEngine; checkers: TypeCheckService } {
  const checkers = new TypeCheckService({ log: () => undefined, ...(options.entry ? { entry: options.entry } : {}) });
  const remote = checkers.checker(miniSdkFiles, miniModel());
  const engine = new SandboxEngine({ workers: 2, checker: () => remote, compiler: checkers, limits: LIMITS, ...(options.compileTimeoutMs ? { compileTimeoutMs: options.compileTimeoutMs } : {}) });
  return { engine, checkers };
}

describe('a run without the check, the type-check process ready', () => {
  let engine: SandboxEngine;
  let checkers: TypeCheckService;
  let workerCompiled: SandboxEngine;
  beforeAll(async () => {
    ({ engine, checkers } = setup());
    await checkers.warm();
    workerCompiled = new SandboxEngine({ workers: 1, limits: LIMITS });
  });
  afterAll(async () => {
    await Promise.all([engine.close(), checkers.close(), workerCompiled.close()]);
  });

  it('is compiled by the type-check process: no worker compiles, so none loads TypeScript', async () => {
    expect((await engine.run({ code: 'return 1;' }, fakeBridge().handler)).ok).toBe(true);
    const o = await engine.run({ code: 'return 2;', typecheck: false }, fakeBridge().handler);
    expect(o).toMatchObject({ ok: true, result: 2 });
    expect(engine.stats.workerCompiles).toBe(0);
    expect(checkers.stats).toMatchObject({ compiles: 1, processesStarted: 1, failures: 0 });
  });

  it('runs as a worker-compiled script does: the error maps to the same line:col', async () => {
    const here = await engine.run({ code: THROWS, typecheck: false }, fakeBridge().handler);
    const there = await workerCompiled.run({ code: THROWS, typecheck: false }, fakeBridge().handler);
    expect(workerCompiled.stats.workerCompiles).toBe(1);
    expect(here.error).toMatchObject({ kind: 'exception', line: 3, col: 7, message: expect.stringContaining('found 2') });
    expect({ ...here.error, stack: undefined }).toEqual({ ...there.error, stack: undefined });
    expect(engine.stats.workerCompiles).toBe(0);
  });

  it('still finds the secret literals in the source, as the worker does', async () => {
    const here = await engine.compile({ code: WITH_SECRET, typecheck: false });
    const there = await workerCompiled.compile({ code: WITH_SECRET, typecheck: false });
    expect(here.secrets?.literals).toEqual(['hunter2-xyz']);
    expect(here.secrets).toEqual(there.secrets);
    expect(engine.stats.workerCompiles).toBe(0);
  });

  it('a syntax error is refused as the worker refuses it', async () => {
    const here = await engine.compile({ code: 'const a = ;', typecheck: false });
    const there = await workerCompiled.compile({ code: 'const a = ;', typecheck: false });
    expect(here.ok).toBe(false);
    expect(!here.ok && here.outcome.error).toEqual(!there.ok && there.outcome.error);
    expect(engine.stats.workerCompiles).toBe(0);
  });
});

describe('a run without the check, the type-check process not ready', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'compile-route-test-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('cold: the worker compiles, and the type-check process is not started', async () => {
    const { engine, checkers } = setup();
    try {
      expect(await engine.run({ code: 'return 3;', typecheck: false }, fakeBridge().handler)).toMatchObject({ ok: true, result: 3 });
      expect(engine.stats.workerCompiles).toBe(1);
      expect(checkers.stats).toMatchObject({ processesStarted: 0, compiles: 0 });
      expect(checkers.pid).toBeUndefined();
    } finally {
      await Promise.all([engine.close(), checkers.close()]);
    }
  });

  it('a process that answers garbage or dies mid-compile: the worker compiles and the run goes on', async () => {
    const answers = {
      garbage: "process.send({ type: 'compiled', id: m.id, transpiled: { ok: 'yes' }, rssMb: 1 });",
      dies: 'process.exit(1);',
    };
    for (const [name, answer] of Object.entries(answers)) {
      const file = writeFakeTypecheckChild(dir, name, answer);
      const { engine, checkers } = setup({ entry: file });
      try {
        await checkers.warm();
        expect(await engine.run({ code: 'return 4;', typecheck: false }, fakeBridge().handler)).toMatchObject({ ok: true, result: 4 });
        expect(engine.stats.workerCompiles).toBe(1);
        await vi.waitFor(() => expect(checkers.stats).toMatchObject({ compiles: 0, failures: 1 }), { timeout: 10_000, interval: 20 });
      } finally {
        await Promise.all([engine.close(), checkers.close()]);
      }
    }
  });

  it('a compile past the deadline there is refused as the worker refuses it, and the process is replaced', async () => {
    const { engine, checkers } = setup({ compileTimeoutMs: 1 });
    try {
      await checkers.warm();
      const first = checkers.pid;
      // Large enough that no compile answers within 1 ms.
      const code = Array.from({ length: 3_000 }, (_, i) => `const v${i} = ${i} * 2;`).join('\n');
      const o = await engine.compile({ code, typecheck: false });
      expect(!o.ok && o.outcome.error).toMatchObject({
        kind: 'invalid',
        message: 'not executed: compiling the script took more than 1 ms and was stopped; split long expressions and deeply nested code into smaller named steps',
      });
      expect(engine.stats.workerCompiles).toBe(0);
      // Killed like a check that overran, and replaced once its exit is seen.
      await vi.waitFor(() => expect(checkers.stats).toMatchObject({ failures: 1, processesStarted: 2 }), { timeout: 20_000, interval: 20 });
      await vi.waitFor(() => expect(checkers.pid).not.toBe(first), { timeout: 20_000, interval: 20 });
    } finally {
      await Promise.all([engine.close(), checkers.close()]);
    }
  });
});
