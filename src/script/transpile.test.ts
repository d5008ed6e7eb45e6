import { describe, it, expect } from 'vitest';
import vm from 'node:vm';
import { SCRIPT_URL, START_FUNCTION } from './names.js';
import { wrapProgram } from './program.js';
import { transpileScript, transpileToText } from './transpile.js';
import { type TranspiledScript } from './compiled.js';

function compile(source: string): TranspiledScript {
  const out = transpileScript(source);
  if (!out.ok) throw new Error(`unexpected diagnostics: ${JSON.stringify(out.diagnostics)}`);
  return out.script;
}

/** Runs the transpiled program in a node:vm context the way the prelude would, returning its settlement. */
async function runInVm(script: TranspiledScript, globals: Record<string, unknown> = {}): Promise<{ ok: boolean; value: unknown }> {
  let settle!: (r: { ok: boolean; value: unknown }) => void;
  const settled = new Promise<{ ok: boolean; value: unknown }>((r) => (settle = r));
  const context = vm.createContext({
    ...globals,
    [START_FUNCTION]: (fn: () => Promise<unknown>) =>
      fn().then(
        (value) => settle({ ok: true, value }),
        (value: unknown) => settle({ ok: false, value }),
      ),
  });
  vm.runInContext(script.js, context, { filename: SCRIPT_URL });
  return settled;
}

describe('transpileScript', () => {
  it('runs the program as the body of an async function: top-level await and return', async () => {
    const script = compile('const x: number = await Promise.resolve(20);\nreturn { answer: x + 22 };');
    await expect(runInVm(script)).resolves.toEqual({ ok: true, value: { answer: 42 } });
  });

  it('reports syntax errors at the user line:col and does not produce code', () => {
    const out = transpileScript('const a = 1;\nconst b = ;\n');
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.diagnostics[0]).toMatchObject({ line: 2, col: 11, message: 'Expression expected.', severity: 'error', code: 1109 });
  });

  it('rejects a stray closing brace that would escape the program body', () => {
    const out = transpileScript('return 1;\n}\nglobalThis.x = 1;\n{');
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.diagnostics[0]?.message).toMatch(/Unbalanced '}'/);
    expect(out.diagnostics[0]?.line).toBe(2);
  });

  it('rejects import and export statements with a hint', () => {
    const out = transpileScript("const a = 1;\nimport fs from 'fs';\n");
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.diagnostics[0]).toMatchObject({ line: 2, col: 1 });
    expect(out.diagnostics[0]?.hint).toMatch(/no modules/);
  });

  it('erases types without shifting lines and maps a thrown error to the user line:col', async () => {
    const source = [
      'interface Vm {',
      '  vmid: number;',
      '}',
      'type Id = number;',
      'const vms: Vm[] = [{ vmid: 1 }];',
      'const id: Id = 2;',
      'if (vms.length < id) {',
      "  throw new Error('too few');",
      '}',
    ].join('\n');
    const script = compile(source);
    const { ok, value } = await runInVm(script, { Error });
    expect(ok).toBe(false);
    const mapped = script.sourceMap.mapStack((value as Error).stack ?? '');
    expect(mapped.position).toEqual({ line: 8, col: 9 });
    expect(mapped.stack.split('\n')[0]).toBe('Error: too few');
    expect(mapped.stack).toContain('at <script> (agent.ts:8:9)');
  });

  it('drops frames that are not the agent script, including host paths', () => {
    const script = compile('\nnull!.x;');
    const stack = [
      "TypeError: Cannot read properties of null (reading 'x')",
      '    at __pveProgram__ (file:///agent.js:2:11)',
      '    at request (pve:prelude:40:3)',
      '    at (<isolated-vm boundary>)',
      '    at Object.run (/home/someone/secret/dist/src/sandbox/worker.js:10:5)',
    ].join('\n');
    const mapped = script.sourceMap.mapStack(stack);
    expect(mapped.stack).not.toMatch(/secret|isolated-vm|prelude/);
    expect(mapped.position?.line).toBe(2);
  });

  describe('a script with nothing for TypeScript to change', () => {
    it('runs as written, with positions mapped one line down and column for column', async () => {
      const source = "const paths = ['/a', '/b'];\nif (paths.length > 1)   throw new Error('two');\nreturn paths;";
      const portable = transpileToText(source);
      expect(portable).toMatchObject({ ok: true, js: `${wrapProgram(source)}${START_FUNCTION}(__pveProgram__);\n` });
      expect(portable.ok && portable.sourceMapText).toBeUndefined();
      const script = compile(source);
      const { ok, value } = await runInVm(script, { Error });
      expect(ok).toBe(false);
      const mapped = script.sourceMap.mapStack((value as Error).stack ?? '');
      expect(mapped.position).toEqual({ line: 2, col: 31 });
      expect(mapped.stack).toContain('at <script> (agent.ts:2:31)');
      // The wrapper's lines are not the agent's.
      expect(script.sourceMap.toUser(1, 1)).toBeUndefined();
      expect(script.sourceMap.toUser(5, 1)).toBeUndefined();
    });

    it('still reports syntax errors as diagnostics, not as code to run', () => {
      const out = transpileToText('const a = [1, 2;\nreturn a;');
      expect(out.ok).toBe(false);
    });

    // Each of these is emitted by TypeScript: run as written, V8 would refuse it or run it otherwise.
    const transformed: Array<[string, string, unknown]> = [
      ['a type annotation', 'const x: number = 41;\nreturn x + 1;', 42],
      ['an assertion', 'const x = [1, 2] as const;\nreturn x.length;', 2],
      ['a non-null assertion', 'const x = [3];\nreturn x[0]!;', 3],
      ['an enum', 'enum E { A = 4 }\nreturn E.A;', 4],
      ['a parameter property', 'class P { constructor(public v: number) {} }\nreturn new P(5).v;', 5],
      ['a class field', 'class F { v = 6 }\nreturn new F().v;', 6],
      ['a decorator', 'const d = (c) => c;\n@d class D { static m() { return 7; } }\nreturn D.m();', 7],
      // V8 would read `<!--b) …` as a comment (and fail on `if (a`); TypeScript reads `a < !--b`.
      ['an HTML-like comment', "let a = 1, b = 2;\nif (a <!--b) { return 'compared'; }\nreturn 'not';", 'not'],
      ['syntax newer than ES2022', 'const r = { [Symbol.dispose]() {} };\n{ using x = r; }\nreturn 8;', 8],
    ];
    for (const [what, source, expected] of transformed) {
      it(`goes through the emit with ${what}`, async () => {
        const portable = transpileToText(source);
        expect(portable.ok && portable.sourceMapText).toEqual(expect.any(String));
        await expect(runInVm(compile(source), { Symbol })).resolves.toEqual({ ok: true, value: expected });
      });
    }
  });
});
