/**
 * `RemoteScriptChecker` is what a cluster's runs hold to check scripts against its SDK: a handle
 * on one declaration set in the shared type-check process, shaped like the in-process checker.
 */
import type { CheckAnswer, CheckOptions, CheckResult, TypeChecker } from './checker.js';
import type { DeclarationSet } from './typecheck-protocol.js';

/** The part of `TypeCheckService` a checker needs. */
export interface CheckQueue {
  check(set: DeclarationSet, code: string, options?: CheckOptions, transpile?: boolean): Promise<CheckAnswer>;
}

/** One declaration set's checker, backed by the shared `TypeCheckService`. */
export class RemoteScriptChecker implements TypeChecker {
  constructor(
    private readonly owner: CheckQueue,
    private readonly set: DeclarationSet,
  ) {}

  /** The set's key, as `ScriptChecker.hash` for the same declarations and schema. */
  get hash(): string {
    return this.set.id;
  }

  async check(source: string, options: CheckOptions = {}): Promise<CheckResult> {
    return (await this.owner.check(this.set, source, options)).result;
  }

  checkAndTranspile(source: string, options: CheckOptions = {}): Promise<CheckAnswer> {
    return this.owner.check(this.set, source, options, true);
  }
}
