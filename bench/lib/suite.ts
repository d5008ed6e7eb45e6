import type { Table } from './table.js';

export interface SuiteContext {
  /** Fewer repetitions: a smoke run, not figures to publish. */
  quick: boolean;
}

/** A benchmark suite: runs its measurements and returns them as tables for the runner to print. */
export type Suite = (context: SuiteContext) => Promise<Table[]>;
