/**
 * Where a script is compiled, and in which order. A checker that compiles too (the type-check
 * process) compiles and checks in one step, and the sandbox worker compiles only when that check
 * was skipped (process lost, busy, closed); without one, `compileAlone` compiles first — syntax and
 * shape stop the run before any check — and the checker checks after. One compile result either
 * way, or the outcome that refuses the script.
 */
import type { ArgSpecs } from '../script/args.js';
import type { SdkCall } from '../script/calls.js';
import { skippedCheck, type CheckAnswer, type CheckOptions, type TypeChecker } from '../script/checker.js';
import { materialize, type PortableTranspile, type ScriptCompile, type SecretScan, type TranspiledScript, type TranspileResult } from '../script/compiled.js';
import { formatDiagnostics, type Diagnostic } from '../script/diagnostics.js';
import type { SandboxLimits } from './limits.js';
import { notExecuted, type RunOutcome } from './outcome.js';

/** A script ready to run: what the compile found, to be executed in one or more phases. */
export interface CompiledScript {
  script: TranspiledScript;
  limits: SandboxLimits;
  /** The type check's warnings (unknown paths and the like): every outcome of the script carries them. */
  warnings: Diagnostic[];
  typecheckMs?: number;
}

/**
 * Compiled, with the SDK calls the source makes (read from the compile's own parse, for the
 * preflight) and its secret literals (for the audit's copy of the source and the run's scrubber);
 * `secrets` is missing when no compile read the source (too large, or the compiler was lost).
 */
export type CompileResult = { ok: true; script: CompiledScript; calls: SdkCall[]; secrets?: SecretScan; form?: 'file'; args?: ArgSpecs } | { ok: false; outcome: RunOutcome; secrets?: SecretScan };

export interface CompileInput {
  code: string;
  limits: SandboxLimits;
  /** No type check without one. */
  checker: TypeChecker | undefined;
  checkOptions: CheckOptions;
  startedAt: number;
  /**
   * Compiles the script without a check, under the compile deadline: in a sandbox worker (queued
   * like a run), or — for a run that skips the check — in the type-check process while it is ready.
   */
  compileAlone(): Promise<ScriptCompile | { outcome: RunOutcome }>;
}

export async function compileScript(input: CompileInput): Promise<CompileResult> {
  const { code, limits, checker, startedAt } = input;
  let compiled: TranspileResult | undefined;
  let secrets: SecretScan | undefined;
  let warnings: Diagnostic[] = [];
  let typecheckMs: number | undefined;
  const syntaxError = (diagnostics: Diagnostic[]) => ({ ok: false as const, outcome: notExecuted(blocked('syntax', diagnostics), startedAt, warnings), ...(secrets ? { secrets } : {}) });
  const compileAlone = async (): Promise<CompileResult | undefined> => {
    const answer = await input.compileAlone();
    if ('outcome' in answer) return { ok: false, outcome: answer.outcome };
    secrets = answer.secrets;
    compiled = materialize(answer.transpiled);
    return compiled.ok ? undefined : syntaxError(compiled.diagnostics);
  };
  // Without the type-check process's compile, syntax and shape stop the run before any check.
  if (!checker?.checkAndTranspile) {
    const refused = await compileAlone();
    if (refused) return refused;
  }
  if (checker) {
    const checkStarted = performance.now();
    const options = input.checkOptions;
    const answer: CheckAnswer = await Promise.resolve()
      .then(async () => (checker.checkAndTranspile ? checker.checkAndTranspile(code, options) : { result: await checker.check(code, options) }))
      // A checker failure proves nothing about the script: run it and say the check is missing.
      .catch((err: unknown) => ({ result: skippedCheck(err instanceof Error ? err.message : String(err), performance.now() - checkStarted) }));
    // Wall time as the run saw it: with the type-check process, waiting in its queue included.
    typecheckMs = performance.now() - checkStarted;
    warnings = answer.result.warnings;
    if (!compiled && answer.transpiled && answer.secrets) {
      secrets = answer.secrets;
      compiled = materializeOrUndefined(answer.transpiled);
    }
    // Syntax and shape errors found by the type-check process land here (it answers them without a type check).
    if (compiled && !compiled.ok) return syntaxError(compiled.diagnostics);
    if (!answer.result.ok) return { ok: false, outcome: notExecuted(blocked('typecheck', answer.result.errors), startedAt, warnings), ...(secrets ? { secrets } : {}) };
    // The check was skipped (process lost, busy, closed): the worker that will run it compiles it.
    if (!compiled) {
      const refused = await compileAlone();
      if (refused) return refused;
    }
  }
  const script = compiled as TranspileResult | undefined;
  if (!script?.ok) return { ok: false, outcome: engineFailure(new Error('the compile produced no script'), startedAt, warnings) };
  return {
    ok: true,
    script: { script: script.script, limits, warnings, ...(typecheckMs !== undefined ? { typecheckMs } : {}) },
    calls: script.script.calls,
    ...(script.script.form ? { form: script.script.form } : {}),
    ...(script.script.args ? { args: script.script.args } : {}),
    ...(secrets ? { secrets } : {}),
  };
}

/** A bug of the engine's own, as an outcome: callers are promised a resolved outcome, never a rejection. */
export function engineFailure(err: unknown, startedAt: number, warnings?: Diagnostic[]): RunOutcome {
  return notExecuted({ kind: 'crashed', message: `internal error in the sandbox engine: ${err instanceof Error ? err.message : String(err)}` }, startedAt, warnings);
}

function blocked(kind: 'syntax' | 'typecheck', diagnostics: Diagnostic[]): { kind: 'syntax' | 'typecheck'; message: string; line?: number; col?: number; diagnostics: Diagnostic[] } {
  const first = diagnostics[0];
  return {
    kind,
    message: `not executed: ${kind === 'syntax' ? 'syntax error' : 'type-check found mistakes'}\n${formatDiagnostics(diagnostics)}`,
    ...(first ? { line: first.line, col: first.col } : {}),
    diagnostics,
  };
}

/** The type-check process's compile, or undefined when its source map is unusable (the worker compiles then). */
function materializeOrUndefined(transpiled: PortableTranspile): TranspileResult | undefined {
  try {
    return materialize(transpiled);
  } catch {
    return undefined;
  }
}
