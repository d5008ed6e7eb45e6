/**
 * `get_schema`'s engine: operation specs (`METHOD /path`, `/path`) resolved against the model, each
 * described as a compact signature with its permission, risk and, under a policy, its verdict; specs
 * that match nothing come back with suggestions instead of an error.
 */
import { HTTP_METHODS, type ApiModel, type HttpMethod, type RiskClass } from '../schema/model.js';
import { parseSpec, resolveSpec, suggest } from './spec.js';
import { permissionText, renderSignature } from './signature.js';
import type { Unserved } from './unserved.js';
import { operationVerdict, type OperationVerdict, type PolicyContext } from './verdict.js';

export interface DescribedOperation {
  method: HttpMethod;
  path: string;
  risk: RiskClass;
  /** Human-readable permission, e.g. `VM.PowerMgmt on /vms/{vmid}`. */
  permission: string;
  /** Compact TypeScript-style signature with one line per parameter and an example call. */
  signature: string;
  /** What the cluster's policy says about it (when described under a policy). */
  verdict?: OperationVerdict;
}

export interface DescribeResult {
  operations: DescribedOperation[];
  notFound: Array<{ spec: string; suggestions: string[] }>;
}

export interface DescribeOptions {
  /** Parameters to show in full even on operations with dozens of them (`net[n]`, `net0` and `net` all name the family). */
  params?: string[];
  /** Show each operation's verdict under this cluster's policy. */
  policy?: PolicyContext;
  /** Mark the operations the server behind the cluster does not answer. */
  unserved?: Unserved;
}

/**
 * get_schema: signatures for `"METHOD /path"` specs, or `"/path"` for all its methods. Concrete paths
 * (`/nodes/pve1/qemu/100/config`) resolve to their template. Specs that name nothing come back in
 * `notFound` with the nearest operations.
 */
export function describeOperations(model: ApiModel, specs: readonly string[], opts: DescribeOptions = {}): DescribeResult {
  const result: DescribeResult = { operations: [], notFound: [] };
  const seen = new Set<string>();
  for (const spec of specs) {
    const parsed = parseSpec(spec);
    const ops = parsed ? resolveSpec(model, parsed) : [];
    if (ops.length === 0) {
      result.notFound.push({ spec, suggestions: suggest(model, parsed, spec) });
      continue;
    }
    const ordered = [...ops].sort((a, b) => HTTP_METHODS.indexOf(a.method) - HTTP_METHODS.indexOf(b.method));
    for (const op of ordered) {
      if (seen.has(op.key)) continue;
      seen.add(op.key);
      const verdict = opts.policy ? operationVerdict(op, opts.policy) : undefined;
      result.operations.push({
        method: op.method,
        path: op.path,
        risk: op.risk,
        permission: permissionText(op),
        signature: renderSignature(op, opts.params, verdict, opts.unserved),
        ...(verdict ? { verdict } : {}),
      });
    }
  }
  return result;
}
