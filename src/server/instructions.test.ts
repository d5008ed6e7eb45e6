/**
 * The instructions' token allowance (o200k_base, the token benchmark's tokenizer): they now carry
 * each cluster's effective policy and the per-run budgets. Before: 135 tokens for one read-only
 * cluster, 158 for two. Allowance: at most 120 tokens more per cluster, whatever its rules.
 */
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { Product, RunPrincipal } from '../app/product.js';
import { Policy } from '../policy/policy.js';
import { serverInstructions } from './mcp.js';

const BEFORE = { one: 135, two: 158 };
const PER_CLUSTER = 120;

function product(defaultCluster: string, policies: Record<string, unknown>, down: string[] = [], runbooks?: { dir: string }): Product {
  const compiled = new Map(Object.entries(policies).map(([name, raw]) => [name, Policy.fromConfig(raw)]));
  const fake = {
    config: runbooks ? { runbooks } : {},
    defaultCluster,
    configuredClusters: [...compiled.keys()],
    unavailableClusters: () => down.map((name) => ({ name })),
    policyFor: (name: string, principal?: RunPrincipal) => {
      const configured = compiled.get(name) as Policy;
      return principal?.policyFor ? principal.policyFor(name, configured) : configured;
    },
  };
  return fake as unknown as Product;
}

const tokens = (text: string): number => encode(text).length;

describe('serverInstructions', () => {
  it('states a read-only cluster and the per-run budgets within the allowance', () => {
    const text = serverInstructions(product('pve', { pve: { preset: 'read-only' } }));
    expect(text).toContain("- pve (default): policy 'read-only'. Allows reads only; refuses every change. pve://pve/policy");
    expect(text).toContain('Budget per run: read 500, write 20, destructive 5, privileged 2, calls 1000, guests 10, task wait 15 min.');
    expect(tokens(text)).toBeLessThanOrEqual(BEFORE.one + PER_CLUSTER);
  });

  it('two clusters with scopes, target rules, privileged entries and their own budgets stay within the allowance', () => {
    const text = serverInstructions(
      product(
        'prod',
        {
          prod: {
            name: 'prod-ops',
            preset: 'operator',
            deny: ['* /nodes/*/qemu/100/**'],
            targets: [{ action: 'approval', tags: ['prod'] }],
            scopes: { nodes: ['pve1', 'pve2'] },
            privileged: ['POST /nodes/*/vzdump +script'],
            budget: { guests: 5 },
          },
          lab: { preset: 'admin' },
        },
        ['lab'],
      ),
    );
    expect(text).toContain('- lab (unavailable now, retried)');
    expect(text).toContain('targets: approval for tags prod, deny vmids 100');
    expect(text).toContain('per run: read 500, write 20, destructive 5, privileged 2, calls 1000, guests 5, task wait 15 min');
    expect(text).not.toContain('Budget per run:');
    expect(tokens(text)).toBeLessThanOrEqual(BEFORE.two + 2 * PER_CLUSTER);
  });

  it('names runbooks, and how to run one, only where the operator keeps them', () => {
    expect(serverInstructions(product('pve', { pve: { preset: 'operator' } }))).not.toContain('runbook');
    const text = serverInstructions(product('pve', { pve: { preset: 'operator' } }, [], { dir: '/srv/runbooks' }));
    expect(text).toContain('run one with run_script {runbook, args}');
    expect(tokens(text)).toBeLessThanOrEqual(BEFORE.one + PER_CLUSTER);
  });

  it("is the principal's: its policies, named", () => {
    const admin: RunPrincipal = { id: 'alice', audit: {}, policyFor: () => Policy.fromConfig({ name: 'all-admin', preset: 'admin' }) };
    const text = serverInstructions(product('pve', { pve: { preset: 'read-only' } }), admin);
    expect(text).toContain('under the policies of alice');
    expect(text).toContain("- pve (default): policy 'all-admin' (admin). Allows reads, writes and destructive calls");
  });
});
