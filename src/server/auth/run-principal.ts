/**
 * From an authenticated HTTP principal to what a run needs: its identity for the audit, and the
 * policy it runs under on each cluster — the first `http.principals` rule that names the user
 * or one of its groups (and the cluster), else the cluster's own policy; without the write
 * scope, that policy restricted to reads.
 */
import type { PrincipalPolicyRule } from '../../app/config.js';
import type { RunPrincipal } from '../../app/product.js';
import { Policy } from '../../policy/policy.js';
import { auditIdentity, type Principal } from './principal.js';

export type PrincipalResolver = (principal: Principal) => RunPrincipal;

export function principalResolver(rules: readonly PrincipalPolicyRule[]): PrincipalResolver {
  const readOnly = new WeakMap<Policy, Policy>();
  /** The policy's reads only: its deny rules, targets, scopes and budget, nothing beyond the read-only preset. */
  const restrict = (p: Policy): Policy => {
    let r = readOnly.get(p);
    if (!r) {
      r = new Policy({ ...p.config, name: `${p.name}+read-scope`, preset: 'read-only', allow: [], privileged: [] });
      readOnly.set(p, r);
    }
    return r;
  };
  return (principal) => ({
    id: principal.id,
    audit: auditIdentity(principal),
    policyFor(cluster, configured) {
      const rule = rules.find((r) => (!r.clusters || r.clusters.includes(cluster)) && (r.user !== undefined ? r.user === principal.id : r.group !== undefined && principal.groups.includes(r.group)));
      const base = rule?.policy ?? configured;
      return principal.capabilities.has('write') ? base : restrict(base);
    },
  });
}

/** The principal the HTTP layer attached to a request (`authInfo.extra.principal`), if any. */
export function principalOf(authInfo: { extra?: Record<string, unknown> } | undefined): Principal | undefined {
  const p = authInfo?.extra?.principal as Principal | undefined;
  return p && typeof p.id === 'string' && p.capabilities instanceof Set ? p : undefined;
}
