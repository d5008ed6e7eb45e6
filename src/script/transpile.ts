/**
 * Turns the agent's TypeScript program (the body of an async function) into the JavaScript the
 * sandbox runs, with a source map back to the agent's lines. Syntax errors come back as
 * diagnostics; such a script is not executed.
 *
 * A script with nothing for TypeScript to change runs as written: when the parse has no syntax
 * error and holds no type syntax, syntax newer than ES2022, decorators or class fields (the
 * compiler's own summary of what its transforms for ES2022 would touch), nor an HTML-like comment,
 * the JavaScript is the wrapped source itself and positions map one line down, column for column. That skips the
 * compiler's emit and its source map, ~70 % of a compile: most of a run's fixed cost in the
 * sandbox worker when the check is off (docs/benchmarks.md, "session 13").
 */
import type * as TS from 'typescript';
import { ts } from './typescript.js';
import { sdkCallsOf } from './calls.js';
import { materialize, type PortableTranspile, type TranspileResult } from './compiled.js';
import type { Diagnostic } from './diagnostics.js';
import { PROGRAM_FILE, startLine } from './names.js';
import { findWrapperBreakout, lineCount, parseProgram, userPositionOf, wrapProgram } from './program.js';

const COMPILER_OPTIONS: TS.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.None,
  sourceMap: true,
  removeComments: false,
};

export function transpileScript(source: string): TranspileResult {
  return materialize(transpileToText(source));
}

export function transpileToText(source: string): PortableTranspile {
  return transpileParsed(source, parseProgram(source));
}

/** The same, reusing the program's parse (`parseProgram(source)`) for the SDK calls and checks. */
export function transpileParsed(source: string, wrapped: TS.SourceFile): PortableTranspile {
  const lines = lineCount(source);
  const at = (offset: number) => userPositionOf(wrapped, offset, lines);

  if (runsAsWritten(wrapped)) {
    const diagnostics = structuralErrors(wrapped, at);
    if (diagnostics.length > 0) return { ok: false, diagnostics };
    // No source map: the JavaScript is the wrapped source (ScriptSourceMap maps it one line down).
    return { ok: true, js: `${wrapped.text}${startLine()}`, lines, calls: sdkCallsOf(wrapped, lines) };
  }

  const out = ts.transpileModule(wrapProgram(source), {
    fileName: PROGRAM_FILE,
    reportDiagnostics: true,
    compilerOptions: COMPILER_OPTIONS,
  });
  const diagnostics: Diagnostic[] = (out.diagnostics ?? []).map((d) => ({
    ...at(d.start ?? 0),
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    severity: 'error',
    code: d.code,
  }));
  if (diagnostics.length === 0) diagnostics.push(...structuralErrors(wrapped, at));
  if (diagnostics.length > 0) return { ok: false, diagnostics };

  const js = out.outputText.replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
  return { ok: true, js: `${js}${startLine()}`, sourceMapText: out.sourceMapText ?? '{}', lines, calls: sdkCallsOf(wrapped, lines) };
}

/**
 * The compiler's summary of a subtree (`Node.transformFlags`, from the parse) and the flags of
 * what its ES2022 transforms rewrite. Both are internal to TypeScript: read by name, and when any
 * is missing (another compiler version) every script takes the full emit.
 */
// JSX is not among them: a `.ts` program is parsed without it.
const EMIT_FLAG_NAMES = ['ContainsTypeScript', 'ContainsESNext', 'ContainsTypeScriptClassSyntax', 'ContainsClassFields', 'ContainsDecorators'] as const;
const EMIT_FLAGS = emitFlags();

function emitFlags(): number | undefined {
  const named = (ts as unknown as { TransformFlags?: Record<string, unknown> }).TransformFlags;
  let flags = 0;
  for (const name of EMIT_FLAG_NAMES) {
    const flag = named?.[name];
    if (typeof flag !== 'number' || flag <= 0) return undefined;
    flags |= flag;
  }
  return flags;
}

/**
 * V8 reads `<!--` and `-->` as comments in a classic script (ECMAScript Annex B) where TypeScript
 * reads operators (`a <!--b` is `a < !--b`): the emit prints them apart, so V8 runs what the
 * parse saw. A script holding either takes the emit.
 */
const HTML_COMMENT = /<!--|-->/;

/** Whether TypeScript's emit would be this parse's own text: no syntax error, nothing to transform. */
function runsAsWritten(wrapped: TS.SourceFile): boolean {
  const { transformFlags, parseDiagnostics } = wrapped as unknown as { transformFlags?: unknown; parseDiagnostics?: unknown };
  return (
    EMIT_FLAGS !== undefined &&
    typeof transformFlags === 'number' &&
    (transformFlags & EMIT_FLAGS) === 0 &&
    Array.isArray(parseDiagnostics) &&
    parseDiagnostics.length === 0 &&
    !HTML_COMMENT.test(wrapped.text)
  );
}

/** Mistakes the parser accepts but the program form cannot run. */
function structuralErrors(wrapped: TS.SourceFile, at: (offset: number) => { line: number; col: number }): Diagnostic[] {
  const breakout = findWrapperBreakout(wrapped);
  if (breakout !== undefined) {
    return [
      {
        ...at(breakout),
        message: "Unbalanced '}': it closes the script body early",
        severity: 'error',
        hint: 'the script is the body of an async function; check that every { has its }',
      },
    ];
  }
  const found: Diagnostic[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node)) {
      found.push({
        ...at(node.getStart(wrapped)),
        message: 'import/export statements are not available in a script',
        severity: 'error',
        hint: 'the sandbox has no modules: use the global `pve` and `console`, and `return` the result',
      });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(wrapped);
  return found;
}
