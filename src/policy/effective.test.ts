import { describe, expect, it } from 'vitest';
import { budgetLine, compactPolicyLine, effectivePolicy } from './effective.js';
import { Policy } from './policy.js';

describe('effectivePolicy', () => {
  it('states what the preset allows, asks approval for and refuses, with the per-run budgets and their numbers', () => {
    const e = effectivePolicy('pve', Policy.fromConfig({ preset: 'operator' }));
    expect(e.summary).toBe('Allows reads, guest power, snapshots, backups and guest config; asks approval for destructive and privileged calls; refuses every other write and privileged operations.');
    expect(e.canChange).toBe(true);
    expect(e.budgetPerRun).toEqual({ read: 500, write: 20, destructive: 5, privileged: 2, calls: 1000, guests: 10, taskWaitMs: 900_000 });
    expect(budgetLine(e.budgetPerRun)).toBe('read 500, write 20, destructive 5, privileged 2, calls 1000, guests 10, task wait 15 min');
  });

  it('a read-only preset with nothing added cannot change anything; an allow rule makes it able to', () => {
    expect(effectivePolicy('pve', Policy.fromConfig({ preset: 'read-only' }))).toMatchObject({ canChange: false, summary: 'Allows reads only; refuses every change.' });
    const allowed = effectivePolicy('pve', Policy.fromConfig({ preset: 'read-only', allow: ['POST /nodes/*/qemu/*/snapshot'] }));
    expect(allowed.canChange).toBe(true);
    expect(allowed.summary).toMatch(/^Allows reads plus 1 allow rule; asks approval for destructive and privileged calls; refuses every other change/);
  });

  it('lists target rules, the deny path rules compiled into them (with where they came from), scopes, privileged entries and budget overrides', () => {
    const e = effectivePolicy(
      'prod',
      Policy.fromConfig({
        preset: 'admin',
        deny: ['* /nodes/*/qemu/100/**'],
        targets: [{ action: 'approval', tags: ['Prod'], comment: 'production' }],
        scopes: { nodes: ['pve1'], vmids: ['100-199'] },
        privileged: ['POST /nodes/*/vzdump +script'],
        approval: { require: ['destructive'] },
        budget: { guests: 3, taskWaitMs: 90_000 },
      }),
    );
    expect(e.targets).toEqual([
      { rule: 'targets[0]', action: 'approval', protects: 'tags prod', risk: ['write', 'destructive', 'privileged'], comment: 'production' },
      { rule: 'deny[0]', action: 'deny', protects: 'vmids 100', risk: ['read', 'write', 'destructive', 'privileged'] },
    ]);
    expect(e.scopes).toEqual({ nodes: ['pve1'], vmids: ['100-199'] });
    expect(e.approval).toEqual(['destructive']);
    expect(e.summary).toBe(
      'Allows reads, writes and destructive calls plus 1 privileged operation enabled; asks approval for destructive calls and changes to the targets its approval rules name; ' +
        'refuses other privileged operations, what its deny and target rules name and writes outside its scopes.',
    );
    const line = compactPolicyLine(e, { budget: true });
    expect(line).toContain('scopes: nodes pve1; vmids 100-199');
    expect(line).toContain('targets: approval for tags prod, deny vmids 100');
    expect(line).toContain('privileged enabled: POST /nodes/*/vzdump +script');
    expect(line).toContain('per run: read 500, write 20, destructive 5, privileged 2, calls 1000, guests 3, task wait 90 s');
    expect(compactPolicyLine(e, { budget: false })).not.toContain('per run');
  });
});
