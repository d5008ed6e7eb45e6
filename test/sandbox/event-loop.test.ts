/**
 * The server's thread never parses a script: the sandbox engine sends each compile to the
 * type-check process or a sandbox worker, a script's shape limits come back as that script's
 * syntax error with the limit and the line, and a compile that overruns its deadline is the
 * script's too. The e2e twin (test/e2e/event-loop.test.ts) measures another client meanwhile.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxEngine } from '../../src/sandbox/engine.js';
import { REPO_ROOT } from '../e2e/helpers/harness.js';
import { fakeBridge } from './fake-bridge.js';

const deep = `const token = 'x';\nreturn ${'['.repeat(2_000)}${']'.repeat(2_000)};`;
const longExpression = `const key = 1;\nreturn ${Array.from({ length: 24_000 }, () => 'key').join('+')};`;
/** Legal (within the shape limits) but seconds of compiler work: typed, so TypeScript emits it (untyped it runs as written, only parsed). */
const slow = ['const a: number = 1;', ...Array.from({ length: 48 }, (_, i) => `const key${i} = ${Array.from({ length: 990 }, () => 'a').join('+')};`)].join('\n');

describe('compiles leave the server thread', () => {
  let engine: SandboxEngine;
  beforeAll(() => {
    engine = new SandboxEngine({ workers: 1, compileTimeoutMs: 300 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it("reports nesting and expression depth as the script's syntax error, with the limit and the line", async () => {
    const bridge = fakeBridge();
    for (const [code, limit] of [
      [deep, 'nests brackets more than 256 deep'],
      [longExpression, 'nested more than 1000 operators and brackets deep'],
    ] as const) {
      const outcome = await engine.run({ code, typecheck: false }, bridge.handler);
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatchObject({ kind: 'syntax', line: 2 });
      expect(outcome.error?.message).toContain(limit);
      expect(outcome.error?.message).not.toContain('internal error');
    }
    // A script within the limits still runs in the same worker.
    expect(await engine.run({ code: 'return [[1]].length;', typecheck: false }, bridge.handler)).toMatchObject({ ok: true, result: 1 });
  });

  it('refuses a script whose compile overruns its deadline, kills that worker, and runs the next', async () => {
    const bridge = fakeBridge();
    // The worker's first compile (it loads TypeScript) has an allowance on top of the deadline.
    await engine.run({ code: 'return 1;', typecheck: false }, bridge.handler);
    const outcome = await engine.run({ code: slow, typecheck: false }, bridge.handler);
    expect(outcome.ok).toBe(false);
    expect(outcome.error?.kind).toBe('invalid');
    expect(outcome.error?.message).toContain('compiling the script took more than 300 ms');
    expect(await engine.run({ code: 'return 2;', typecheck: false }, bridge.handler)).toMatchObject({ ok: true, result: 2 });
  });
});

describe('the server process never loads TypeScript', () => {
  it('starts, answers get_schema and search_api, and runs with and without the type check (and a script too deep to parse) without loading it', () => {
    const probe = spawnSync(process.execPath, [join(REPO_ROOT, 'test/sandbox/fixtures/run-path-probe.mjs'), join(REPO_ROOT, 'dist')], { encoding: 'utf8', timeout: 120_000 });
    expect(probe.status, probe.stderr).toBe(0);
    const report = JSON.parse(probe.stdout.trim().split('\n').at(-1) as string) as { runs: unknown[]; described: boolean; searched: boolean; loadedOnRunPath: boolean; detectorSeesIt: boolean };
    expect(report).toMatchObject({ described: true, searched: true });
    expect(report.runs).toEqual([
      { ok: true, result: 1, hidden: true },
      { ok: true, result: 1, hidden: true },
      { ok: false, kind: 'syntax', hidden: true },
    ]);
    expect(report.loadedOnRunPath).toBe(false);
    // The probe's own check sees TypeScript once something does load it.
    expect(report.detectorSeesIt).toBe(true);
  }, 120_000);
});
