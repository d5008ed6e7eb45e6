/**
 * The policy lint of one cluster as `config check` and `serve` run it: the policy against the
 * cluster's schema, and against its inventory (`GET /cluster/resources`) when the cluster answers.
 */
import type { ClusterConfig } from '../client/config.js';
import type { PveClient } from '../client/client.js';
import { inventoryFromResources, lintPolicy, type Inventory, type LintFinding } from '../policy/lint.js';
import type { Policy } from '../policy/policy.js';
import type { ApiModel, RiskClass } from '../schema/model.js';

export interface ClusterLint {
  findings: LintFinding[];
  /** Why the inventory could not be read (then only the schema was checked). */
  inventoryError?: string;
}

/** Where a policy's rules live in the config: `policies.<name>` (a named policy carries its name), else the preset. */
export function policyKey(policy: Policy): string {
  return policy.config.name !== undefined ? `policies.${policy.config.name}` : `preset ${policy.preset}`;
}

export async function lintCluster(
  cluster: Pick<ClusterConfig, 'name' | 'tokens'>,
  policy: Policy,
  /** A function: read after the inventory, so `serve`'s lint at start does not parse a cached schema before the first answer. */
  model: ApiModel | (() => ApiModel),
  client: PveClient,
  options: { timeoutMs?: number } = {},
): Promise<ClusterLint> {
  let inventory: Inventory | undefined;
  let inventoryError: string | undefined;
  try {
    inventory = inventoryFromResources(await client.request('GET', '/cluster/resources', undefined, { timeoutMs: options.timeoutMs ?? 15_000 }));
  } catch (err) {
    inventoryError = err instanceof Error ? err.message : String(err);
  }
  const tokenClasses = Object.keys(cluster.tokens ?? {}) as RiskClass[];
  const findings = lintPolicy(policy.config, typeof model === 'function' ? model() : model, {
    key: policyKey(policy),
    ...(inventory ? { inventory } : {}),
    ...(tokenClasses.length > 0 ? { tokenClasses: { key: `clusters.${cluster.name}.tokens`, classes: tokenClasses } } : {}),
  });
  return { findings, ...(inventoryError !== undefined ? { inventoryError } : {}) };
}
