/** Operations a cluster's schema lists but its server does not answer, and how search_api and get_schema mark them. */
import type { OperationKey } from '../schema/model.js';

/**
 * Operations a cluster's schema lists that the server behind it does not answer — the demo's
 * simulator serving an official schema answers them 501 — and the words search_api and get_schema
 * mark them with, so an agent picks another operation instead of a call that cannot work.
 */
export interface Unserved {
  operations: ReadonlySet<OperationKey>;
  /** Short, it lands on search lines: `not in simulator`. */
  mark: string;
}

/** get_schema's line for an unserved operation. */
export function unservedLine(unserved: Unserved): string {
  return `// ${unserved.mark}: calling it answers 501; use another operation`;
}
