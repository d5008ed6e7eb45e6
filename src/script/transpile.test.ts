import { describe, it, expect } from 'vitest';
import vm from 'node:vm';
import { SCRIPT_URL, START_FUNCTION } from './names.js';
import { transpileScript, type TranspiledScript } from './transpile.js';

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
});
