/**
 * The API explorer behind the console's `/console/explore` pages: search by intent, an
 * operation's signature, permission, risk and verdict under the signed-in principal's policy, the
 * parameters that raise its risk, an example, and a try that goes through the same pipeline,
 * policy and audit as run_script — always as a dry-run, so reads run live and writes are planned.
 */
import type { Product, RunPrincipal } from '../../app/product.js';
import type { DescribeResult } from '../../describe/index.js';
import type { SearchHit } from '../../search/hit.js';
import { runScriptAnswer, type RunScriptOutput } from '../tools/run-script.js';
import type { ConsoleUser } from './sessions.js';

export interface ExplorerBackend {
  search(query: string, user: ConsoleUser): Promise<SearchHit[]>;
  describe(spec: string, user: ConsoleUser): DescribeResult;
  /** The script as a dry-run of the user's principal: its answer as run_script gives it. */
  tryScript(code: string, user: ConsoleUser): Promise<RunScriptOutput>;
}

/** The explorer over the server's product; `principalOf` maps the signed-in person to its runs' principal (policy, audit). */
export function productExplorer(product: Product, principalOf: (user: ConsoleUser) => RunPrincipal | undefined): ExplorerBackend {
  const of = (user: ConsoleUser): { principal?: RunPrincipal } => {
    const principal = principalOf(user);
    return principal ? { principal } : {};
  };
  return {
    search: async (query, user) => product.search(query, { limit: 15, ...of(user) }),
    describe: (spec, user) => product.describe([spec], of(user)),
    tryScript: async (code, user) =>
      runScriptAnswer(await product.runScript({ code, dryRun: true }, { ...of(user), deadline: { startedAt: performance.now(), limitMs: product.config.sandbox.callDeadlineMs } })),
  };
}

/** The example call a signature ends with, as a script body that returns its answer. */
export function exampleScript(signature: string): string {
  const m = /\/\/ example: (.+)$/m.exec(signature);
  return m?.[1] ? `return ${m[1].trim()};` : '';
}
