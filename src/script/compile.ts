/**
 * The one compile of a script where TypeScript runs — the type-check process, or the sandbox
 * worker that will run it — never in the server: the shape limits (a linear scan, before any
 * parser), one parse, the transpilation with its SDK calls, and the secret literals, as plain
 * data for the server. It never throws: a script that breaks the compiler anyway (it ran out of
 * stack) is answered as that script's syntax error.
 */
import type { ScriptCompile } from './compiled.js';
import { programSource } from './file-form.js';
import { parseProgram } from './program.js';
import { secretLiteralsOf, secretScan } from './secret-literals.js';
import { shapeError, stringContents } from './shape.js';
import { transpileParsed } from './transpile.js';

export function compileScript(source: string): ScriptCompile {
  const unparsed = (message: string, hint: string, line = 1, col = 1): ScriptCompile => ({
    transpiled: { ok: false, diagnostics: [{ line, col, message, severity: 'error', hint }] },
    secrets: { literals: [], spans: stringContents(source), allStrings: true },
  });
  const shape = shapeError(source);
  if (shape) return unparsed(shape.message, shape.hint ?? '', shape.line, shape.col);
  try {
    // The file form becomes a body here, offsets kept, so everything after reads one form.
    const program = programSource(source);
    if ('diagnostics' in program) return { transpiled: { ok: false, diagnostics: program.diagnostics }, secrets: { literals: [], spans: stringContents(source), allStrings: true } };
    const wrapped = parseProgram(program.body);
    const transpiled = transpileParsed(program.body, wrapped);
    const file = program.form === 'file' && transpiled.ok ? { form: 'file' as const, ...(program.args ? { args: program.args } : {}) } : {};
    return { transpiled: { ...transpiled, ...file }, secrets: secretScan(source, secretLiteralsOf(program.body, wrapped)) };
  } catch (err) {
    // The shape limits keep known shapes out; whatever still exhausts the compiler is the script's.
    if (err instanceof RangeError) return unparsed(`the script is too deeply nested for the compiler (${err.message})`, 'split long expressions and deep nesting into named steps');
    return unparsed(`the compiler failed on this script (${err instanceof Error ? err.message : String(err)})`, 'simplify the script; if it is ordinary code, report this');
  }
}
