/**
 * The executor port: what the run pipeline needs from whatever runs scripts. The pipeline
 * compiles a script once (size, syntax and type check, before anything is read from a cluster)
 * and then executes that one compiled script in each phase of the run (a dry-run probe, the
 * approved run) against the phase's bridge handler. The sandbox engine implements it and is given
 * once (src/app/product.ts); tests give a stand-in that drives the handler directly.
 */
import type { BridgeHandler } from '../bridge/protocol.js';
import type { ArgSpecs, ArgValues } from '../script/args.js';
import type { SdkCall } from '../script/calls.js';
import type { TypeChecker } from '../script/checker.js';
import type { SecretScan } from '../script/compiled.js';

/** What a run's outcome has to say for the pipeline to decide (the sandbox's `RunOutcome` has more). */
export interface OutcomeLike {
  ok: boolean;
  error?: unknown;
  /** How long the execution waited for a worker; absent when it never got one (the call deadline splits its time on it). */
  stats?: { queueMs?: number };
}

/**
 * `secrets`: the secret literals the compile found where it parsed the script (the server parses
 * none); missing when no compile read the source, and then the audit withholds it.
 */
export type CompileAnswer<S, O> =
  /** Ready to execute, in as many phases as the run needs; `calls` are what the preflight reads. */
  | { ok: true; script: S; calls: SdkCall[]; secrets?: SecretScan; form?: 'file'; args?: ArgSpecs }
  /** Not executable (too large, a syntax or type error, a shape limit): the outcome that says so. */
  | { ok: false; outcome: O; secrets?: SecretScan };

/** Whose run it is and how it is checked: the same for every phase of a run. */
export interface RunOwner {
  /** For the fair share of workers; the local user's when absent. */
  principal?: string;
}

export interface CompileInput extends RunOwner {
  code: string;
  /** Aborting stops the compile (a type check already with the type-check process is let finish). */
  signal?: AbortSignal;
  /** Type-check against this cluster's SDK; false: no check. */
  typecheck: boolean;
  checker?: TypeChecker;
}

export interface ExecuteOptions extends RunOwner {
  /** The run's argument values, checked against the script's declarations. */
  args?: ArgValues;
  /** Each console line as it is produced; absent for a phase whose lines must not be relayed. */
  onLog?: (line: string) => void;
  signal?: AbortSignal;
  /**
   * Asked once a worker is granted, right before the script is sent to it: true when the call's
   * deadline has passed (by the clock; its timer may not have fired yet under load). The run then
   * does not start: it fails with kind `deadline` and nothing is sent.
   */
  pastDeadline?: () => boolean;
}

export interface Executor<S, O extends OutcomeLike> {
  compile(input: CompileInput): Promise<CompileAnswer<S, O>>;
  /** Runs the compiled script once against `handler`; resolves (never rejects) with its outcome. */
  execute(script: S, handler: BridgeHandler, options: ExecuteOptions): Promise<O>;
}
