/**
 * Scope enforcement: a call may only target nodes and guests inside the policy's scopes.
 *
 * - `nodes`: every node the call names (path node, migration target…) must be listed.
 * - guest scopes (`vmids`, `pools`, `tags`; all configured ones must hold): every guest the call
 *   names must be inside. A guest that does not exist yet (create, clone target) satisfies
 *   `pools`/`tags` only through the call's own `pool`/`tags` parameters.
 * - Under a guest scope, a write that names no guest (or addresses all guests) cannot be
 *   attributed to the scope and is refused, unless an explicit allow rule names it.
 * Calls that name no target at all (cluster-wide reads) are not restricted by scopes.
 */
import type { GuestDirectory } from './guests.js';
import type { OperationRef, Policy } from './policy.js';
import type { CallTargets } from './targets.js';

export type ScopeVerdict = { ok: true } | { ok: false; rule: string; message: string };

const OK: ScopeVerdict = { ok: true };

export async function checkScope(
  policy: Policy,
  op: OperationRef,
  targets: CallTargets,
  params: Record<string, unknown>,
  cluster: string,
  directory: GuestDirectory,
  signal?: AbortSignal,
): Promise<ScopeVerdict> {
  const scope = policy.scope;
  const shown = `${op.method} ${op.concretePath ?? op.template}`;
  if (scope.nodes) {
    const outside = targets.nodes.filter((n) => !scope.nodes?.has(n));
    if (outside.length > 0) {
      return deny('scopes.nodes', `${shown} targets node ${outside.join(', ')}, outside policy '${policy.name}' scopes.nodes [${[...scope.nodes].join(', ')}]`);
    }
  }
  if (!policy.hasGuestScope) return OK;
  if (op.risk !== 'read' && !policy.explicitlyAllowed(op)) {
    if (targets.allGuests) {
      return deny('scopes', `${shown} addresses all guests, but policy '${policy.name}' limits guests by scope; list the VMIDs instead`);
    }
    if (targets.vmids.length === 0) {
      return deny('scopes', `${shown} names no guest, so it cannot be checked against policy '${policy.name}' guest scopes; the operator can add an allow rule for it`);
    }
  }
  for (const vmid of targets.vmids) {
    const verdict = await checkGuest(policy, shown, vmid, params, cluster, directory, signal);
    if (!verdict.ok) return verdict;
  }
  return OK;
}

async function checkGuest(
  policy: Policy,
  shown: string,
  vmid: number,
  params: Record<string, unknown>,
  cluster: string,
  directory: GuestDirectory,
  signal: AbortSignal | undefined,
): Promise<ScopeVerdict> {
  const scope = policy.scope;
  if (scope.vmids && !scope.vmids.some(([lo, hi]) => vmid >= lo && vmid <= hi)) {
    const ranges = scope.vmids.map(([lo, hi]) => (lo === hi ? String(lo) : `${lo}-${hi}`)).join(', ');
    return deny('scopes.vmids', `${shown} targets VMID ${vmid}, outside policy '${policy.name}' scopes.vmids [${ranges}]`);
  }
  if (!scope.pools && !scope.tags) return OK;
  const guest = await directory.lookup(cluster, vmid, signal);
  if (scope.pools) {
    const pool = guest ? guest.pool : typeof params.pool === 'string' ? params.pool : undefined;
    if (pool === undefined || !scope.pools.has(pool)) {
      const where = pool === undefined ? 'is in no pool' : `is in pool '${pool}'`;
      return deny('scopes.pools', `${shown}: VMID ${vmid} ${where}, outside policy '${policy.name}' scopes.pools [${[...scope.pools].join(', ')}]`);
    }
  }
  if (scope.tags) {
    const tags = guest ? guest.tags : tagsOf(params.tags);
    if (!tags.some((t) => scope.tags?.has(t))) {
      return deny('scopes.tags', `${shown}: VMID ${vmid} has tags [${tags.join(', ')}], none in policy '${policy.name}' scopes.tags [${[...scope.tags].join(', ')}]`);
    }
  }
  return OK;
}

function tagsOf(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value.split(/[;,\s]+/).filter(Boolean).map((t) => t.toLowerCase());
}

function deny(rule: string, message: string): ScopeVerdict {
  return { ok: false, rule, message };
}
