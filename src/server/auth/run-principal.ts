/**
 * From an authenticated HTTP principal to what a run needs: its identity for the audit, and the
 * policy it runs under on each cluster — the first `http.principals` rule that names the user
 * or one of its groups (and the cluster); without a rule, `http.unmatched` (fail closed: each
 * cluster's policy restricted to reads unless the operator chose otherwise); without the write
 * scope, that policy restricted to reads.
 *
 * The static bearer is the one user of a single-user server: it has no rule to miss, so without
 * one it runs under the cluster's policy, like stdio.
 */
import type { PrincipalPolicyRule, UnmatchedPrincipals } from '../../app/config/http-settings.js';
import type { RunPrincipal } from '../../app/product.js';
import { Policy } from '../../policy/policy.js';
import { auditIdentity, type Principal } from './principal.js';

export type PrincipalResolver = (principal: Principal) => RunPrincipal;

const READ_ONLY: UnmatchedPrincipals = { kind: 'read-only' };

/** The first rule for this principal on this cluster. */
function ruleFor(rules: readonly PrincipalPolicyRule[], principal: Principal, cluster: string): PrincipalPolicyRule | undefined {
  return rules.find((r) => (!r.clusters || r.clusters.includes(cluster)) && (r.user !== undefined ? r.user === principal.id : r.group !== undefined && principal.groups.includes(r.group)));
}

export function principalResolver(rules: readonly PrincipalPolicyRule[], unmatched: UnmatchedPrincipals = READ_ONLY): PrincipalResolver {
  const restricted = new Map<string, WeakMap<Policy, Policy>>();
  /** The policy's reads only: its deny rules, targets, scopes and budget, nothing beyond the read-only preset. */
  const restrict = (p: Policy, why: string): Policy => {
    let byPolicy = restricted.get(why);
    if (!byPolicy) restricted.set(why, (byPolicy = new WeakMap()));
    let r = byPolicy.get(p);
    if (!r) {
      r = new Policy({ ...p.config, name: `${p.name}+${why}`, preset: 'read-only', allow: [], privileged: [] });
      byPolicy.set(p, r);
    }
    return r;
  };
  let refused: Policy | undefined;
  /** What a principal without a rule gets on a cluster whose policy is `configured`. */
  const fallback = (configured: Policy): Policy => {
    switch (unmatched.kind) {
      case 'read-only':
        return restrict(configured, 'unmatched');
      case 'refuse':
        return (refused ??= Policy.fromConfig({ name: 'unmatched-refused', preset: 'read-only', deny: ['* /**'] }));
      case 'cluster':
        return configured;
      case 'policy':
        return unmatched.policy;
    }
  };
  return (principal) => ({
    id: principal.id,
    audit: auditIdentity(principal),
    // OAuth mode serves POST /approvals; the static bearer's server does not (404).
    approvesOverHttp: principal.via === 'oauth',
    policyFor(cluster, configured) {
      const rule = ruleFor(rules, principal, cluster);
      const base = rule ? rule.policy : principal.via === 'bearer' ? configured : fallback(configured);
      return principal.capabilities.has('write') ? base : restrict(base, 'read-scope');
    },
  });
}

/**
 * Why an OAuth principal may not open a session at all: `http.unmatched` is `refuse` and no rule
 * matches it on any cluster. Undefined: admitted.
 */
export function unmatchedRefusal(rules: readonly PrincipalPolicyRule[], unmatched: UnmatchedPrincipals, clusters: readonly string[]): (principal: Principal) => string | undefined {
  return (principal) => {
    if (unmatched.kind !== 'refuse' || principal.via !== 'oauth') return undefined;
    if (clusters.some((c) => ruleFor(rules, principal, c) !== undefined)) return undefined;
    return `principal '${principal.id}' matches no http.principals rule and this server refuses such principals (http.unmatched: refuse): ask the operator to add a rule for the user or one of its groups`;
  };
}

/** The principal the HTTP layer attached to a request (`authInfo.extra.principal`), if any. */
export function principalOf(authInfo: { extra?: Record<string, unknown> } | undefined): Principal | undefined {
  const p = authInfo?.extra?.principal as Principal | undefined;
  return p && typeof p.id === 'string' && p.capabilities instanceof Set ? p : undefined;
}
