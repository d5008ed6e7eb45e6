import { describe, expect, it } from 'vitest';
import { pathDecision } from '../../policy/decide.js';
import { Policy } from '../../policy/policy.js';
import type { Principal } from './principal.js';
import { principalResolver, unmatchedRefusal } from './run-principal.js';

const admin = Policy.fromConfig({ name: 'cluster-admin', preset: 'admin' });
const ops = Policy.fromConfig({ name: 'ops', preset: 'operator' });
const rules = [{ group: 'ops', clusters: ['a'], policy: ops }];
const who = (id: string, groups: string[] = [], via: Principal['via'] = 'oauth'): Principal => ({ id, via, groups, capabilities: new Set(['read', 'write']), scopes: [] });

describe('principal policies fail closed', () => {
  it('gives an unmatched principal the cluster policy restricted to reads by default, never the cluster policy itself', () => {
    const p = principalResolver(rules)(who('eve')).policyFor?.('a', admin);
    expect(p?.name).toBe('cluster-admin+unmatched');
    expect(p?.preset).toBe('read-only');
  });

  it('follows http.unmatched: a named policy, the cluster policy by choice, or refusal', () => {
    expect(principalResolver(rules, { kind: 'policy', policy: ops })(who('eve')).policyFor?.('a', admin)).toBe(ops);
    expect(principalResolver(rules, { kind: 'cluster' })(who('eve')).policyFor?.('a', admin)).toBe(admin);
    const refused = principalResolver(rules, { kind: 'refuse' })(who('eve')).policyFor?.('a', admin);
    expect(refused?.name).toBe('unmatched-refused');
    // Reads too: a refused principal gets nothing from the cluster.
    if (!refused) throw new Error('no policy');
    expect(pathDecision(refused, { method: 'GET', template: '/version', concretePath: '/version', risk: 'read' }).allowed).toBe(false);
    expect(pathDecision(refused, { method: 'GET', template: '/nodes/{node}/qemu', concretePath: '/nodes/pve1/qemu', risk: 'read' }).allowed).toBe(false);
  });

  it('refuses a session only to an OAuth principal no rule matches on any cluster', () => {
    const admit = unmatchedRefusal(rules, { kind: 'refuse' }, ['a', 'b']);
    expect(admit(who('eve'))).toMatch(/matches no http.principals rule/);
    expect(admit(who('olga', ['ops']))).toBeUndefined();
    expect(admit(who('bearer', [], 'bearer'))).toBeUndefined();
    expect(unmatchedRefusal(rules, { kind: 'read-only' }, ['a'])(who('eve'))).toBeUndefined();
    // Matched on cluster a only: on b the fallback applies.
    expect(principalResolver(rules, { kind: 'refuse' })(who('olga', ['ops'])).policyFor?.('b', admin)?.name).toBe('unmatched-refused');
  });

  it('keeps the static bearer (the single user) on the cluster policy', () => {
    expect(principalResolver(rules)(who('bearer', [], 'bearer')).policyFor?.('a', admin)).toBe(admin);
  });
});
