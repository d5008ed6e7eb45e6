/**
 * What the sandbox engine and the type-check service need to know of a type-checker, free of
 * TypeScript imports: the server holds these, while the checker itself (typecheck.ts) runs in the
 * type-check process.
 */
import { createHash } from 'node:crypto';
import type { ApiModel } from '../schema/model.js';
import type { PortableTranspile, ScriptCompile, SecretScan } from './compiled.js';
import type { Diagnostic } from './diagnostics.js';

export interface DeclarationFile {
  fileName: string;
  text: string;
}

export interface CheckOptions {
  /** Time allowed for the semantic (type) phase; past it, only syntax and path checks apply. */
  budgetMs?: number;
}

export interface CheckResult {
  /** False when a blocking mistake was found: the script must not run. */
  ok: boolean;
  errors: Diagnostic[];
  warnings: Diagnostic[];
  /** The semantic phase ran out of time; its findings are missing (a warning says so). */
  timedOut: boolean;
  ms: number;
}

/**
 * Anything that type-checks a script: the in-process `ScriptChecker` (sync) or the client of the
 * type-check process (async). The sandbox engine awaits either.
 */
export interface TypeChecker {
  check(source: string, options?: CheckOptions): CheckResult | Promise<CheckResult>;
  /**
   * Checks and also transpiles the script for the sandbox, where the checker lives in another
   * process: the server then runs no TypeScript per run (its compiler allocations and JIT work
   * were most of the server's memory growth under load). `transpiled` is missing when the check
   * was skipped; the caller transpiles itself then.
   */
  checkAndTranspile?(source: string, options?: CheckOptions): Promise<CheckAnswer>;
}

export interface CheckAnswer {
  result: CheckResult;
  transpiled?: PortableTranspile;
  /** The secret literals, found from the same parse (with `transpiled`). */
  secrets?: SecretScan;
}

/** A compile in the type-check process: its answer, or the compile overran its deadline. */
export type ReadyCompile = { compiled: ScriptCompile } | { timedOut: true };

/**
 * Compiles a run that skips the check where TypeScript is already loaded (the type-check process),
 * so the sandbox worker need not load it (+65 MB). Undefined when it cannot take the compile now
 * (cold, busy, lost, or it answered something else): the worker compiles then.
 */
export interface ReadyCompiler {
  compileIfReady(code: string, timeoutMs: number): Promise<ReadyCompile | undefined>;
  /**
   * The process serving now, if any: a sandbox worker that loaded TypeScript while none could
   * compile for it sheds it once another one can (`SandboxEngine`).
   */
  servingProcess(): CompilerProcess | undefined;
}

export interface CompilerProcess {
  pid: number;
  /** Nothing waits in its queue: `compileIfReady` would take a compile now. */
  ready: boolean;
}

/**
 * The answer when the check itself failed (checker crashed, timed out, overloaded): that proves
 * nothing about the script, so it runs, with a warning that its check is missing.
 */
export function skippedCheck(reason: string, ms: number, timedOut = false): CheckResult {
  return {
    ok: true,
    errors: [],
    warnings: [{ line: 1, col: 1, severity: 'warning', message: `type-check failed and was skipped: ${reason}` }],
    timedOut,
    ms,
  };
}

export const DEFAULT_CHECK_BUDGET_MS = 1_000;

/** Stable hash of a declaration set, so checkers can be cached and swapped per schema. */
export function declarationsHash(files: readonly DeclarationFile[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.fileName.localeCompare(b.fileName))) {
    h.update(f.fileName).update('\0').update(f.text).update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

/** A checker's identity: its declaration set, plus the schema when it checks literal paths. */
export function checkerKey(files: readonly DeclarationFile[], model?: Pick<ApiModel, 'hash'>): string {
  return declarationsHash(files) + (model ? `:${model.hash}` : '');
}
