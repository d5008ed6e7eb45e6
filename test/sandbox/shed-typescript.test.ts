/**
 * A sandbox worker that compiled a run without the check loads TypeScript (35–65 MB). It sheds it —
 * swapped for a fresh worker once idle — when a type-check process that was not serving then can
 * now compile for it; a worker that loaded it while the same process was serving (busy with
 * checks) keeps it. The compiler here stands in for the type-check service and compiles in this
 * process, so the test controls which process is serving.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import type { CompilerProcess, ReadyCompiler } from '../../src/script/checker.js';
import { compileScript } from '../../src/script/compile.js';
import { fakeBridge } from './fake-bridge.js';

function stubCompiler(): ReadyCompiler & { process: CompilerProcess | undefined } {
  return {
    process: undefined,
    servingProcess() {
      return this.process;
    },
    async compileIfReady(code) {
      return this.process?.ready ? { compiled: compileScript(code) } : undefined;
    },
  };
}

describe('a worker that loaded TypeScript', () => {
  let engine: SandboxEngine | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  const unchecked = async (e: SandboxEngine, n: number) => expect(await e.run({ code: `return ${n};`, typecheck: false }, fakeBridge().handler)).toMatchObject({ ok: true, result: n });

  it('sheds it once a type-check process that was not serving then can compile: the kept worker is replaced', async () => {
    const compiler = stubCompiler();
    engine = new SandboxEngine({ workers: 1, warmWorkers: 1, compiler });
    await unchecked(engine, 1);
    expect(engine.stats).toMatchObject({ workerCompiles: 1, compilersShed: 0, workersStarted: 1 });
    // Still no process: the worker is the only compiler, and keeps TypeScript.
    await unchecked(engine, 2);
    expect(engine.stats).toMatchObject({ workerCompiles: 2, compilersShed: 0, workersStarted: 1 });

    compiler.process = { pid: 4242, ready: true };
    await unchecked(engine, 3);
    expect(engine.stats).toMatchObject({ workerCompiles: 2, compilersShed: 1, workersStarted: 2, workersAlive: 1 });
    // The fresh worker runs what comes next, and has no TypeScript to shed.
    await unchecked(engine, 4);
    expect(engine.stats).toMatchObject({ workerCompiles: 2, compilersShed: 1, workersStarted: 2 });
  });

  it('keeps it while the process that was serving when it loaded it serves; sheds it when another takes over', async () => {
    const compiler = stubCompiler();
    engine = new SandboxEngine({ workers: 1, warmWorkers: 1, compiler });
    // Checks queued in the process: the worker compiles.
    compiler.process = { pid: 4242, ready: false };
    await unchecked(engine, 1);
    expect(engine.stats).toMatchObject({ workerCompiles: 1, compilersShed: 0 });

    compiler.process = { pid: 4242, ready: true };
    await unchecked(engine, 2);
    await unchecked(engine, 3);
    expect(engine.stats).toMatchObject({ workerCompiles: 1, compilersShed: 0, workersStarted: 1 });

    // The process was replaced (recycled, or it left and came back).
    compiler.process = { pid: 4343, ready: true };
    await unchecked(engine, 4);
    expect(engine.stats).toMatchObject({ compilersShed: 1, workersStarted: 2 });
  });

  it('a worker beyond the kept ones just leaves, and starts again on demand', async () => {
    const compiler = stubCompiler();
    engine = new SandboxEngine({ workers: 2, warmWorkers: 0, compiler });
    await unchecked(engine, 1);
    expect(engine.stats).toMatchObject({ workerCompiles: 1, workersAlive: 1 });
    compiler.process = { pid: 4242, ready: true };
    await unchecked(engine, 2);
    expect(engine.stats).toMatchObject({ compilersShed: 1, workersAlive: 0, workersStarted: 1 });
  });
});
