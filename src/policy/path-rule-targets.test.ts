import { describe, expect, it } from 'vitest';
import { describeProtection, formatTargetRule, pinCovered, readPathRule } from './path-rule-targets.js';
import { Policy } from './policy.js';
import { PolicyConfigError } from './policy-config.js';

const compiled = (source: string) => {
  const r = readPathRule(source);
  if (r.kind !== 'compiled') throw new Error(`${source}: ${JSON.stringify(r)}`);
  return r.target;
};

describe('deny path rules that pin a whole target compile into target rules', () => {
  it.each([
    ['* /nodes/*/qemu/100/**', { action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/*/lxc/200/**', { action: 'deny', vmids: [200], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/pve3/qemu/100/**', { action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/*/{qemu,lxc}/{100,101}/**', { action: 'deny', vmids: [100, 101], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/*/*/100/**', { action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['GET,POST,PUT,DELETE /nodes/*/qemu/100/**', { action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['POST,PUT,DELETE /nodes/*/qemu/100/**', { action: 'deny', vmids: [100] }],
    ['GET /nodes/*/qemu/100/**', { action: 'deny', vmids: [100], risk: ['read'] }],
    ['* /nodes/pve3/**', { action: 'deny', nodes: ['pve3'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['POST,PUT,DELETE /nodes/pve{1,2}/**', { action: 'deny', nodes: ['pve1', 'pve2'] }],
    ['* /pools/prod/**', { action: 'deny', pools: ['prod'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /pools/prod', { action: 'deny', pools: ['prod'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/*/storage/local-lvm/**', { action: 'deny', storages: ['local-lvm'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['* /nodes/pve1/storage/nas/**', { action: 'deny', storages: ['nas'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['GET /nodes/*/storage/local/**', { action: 'deny', storages: ['local'], risk: ['read'] }],
    ['* /storage/ceph', { action: 'deny', storages: ['ceph'], risk: ['read', 'write', 'destructive', 'privileged'] }],
    ['POST,PUT,DELETE /storage/ceph/**', { action: 'deny', storages: ['ceph'] }],
  ])('%s', (source, target) => {
    expect(compiled(source)).toEqual(target);
  });

  it('says what it protects', () => {
    expect(formatTargetRule(compiled('* /nodes/*/qemu/100/**'))).toBe("{action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged']}");
    expect(describeProtection({ kind: 'vmids', values: ['100'] }, ['read', 'write', 'destructive', 'privileged'])).toBe('VMID 100 from every call, by any path');
    expect(describeProtection({ kind: 'pools', values: ['prod'] }, undefined)).toBe('pool prod (its guests included) from every write, destructive, privileged call, by any path');
    expect(describeProtection({ kind: 'storages', values: ['a', 'b'] }, ['read'])).toBe('storages a, b (on every node) from every read, by any path');
  });
});

describe('rules that name no concrete target stay path rules', () => {
  it.each([
    'DELETE /nodes/*/qemu/*',
    'POST /nodes/*/{qemu,lxc}/*/status/{stop,reset}',
    'POST /nodes/{node}/qemu/{vmid}/status/stop',
    '* /nodes/*/qemu/**',
    '* /cluster/ha/**',
    'GET /nodes/*/tasks/**',
    '* /node/*/qemu/100/**',
    '* /**/qemu/100/**',
    '* /nodes/*/storage/100/**',
    '* /nodes/*/qemu/local/**',
    '* /nodes/*/*/local/**',
  ])('%s', (source) => {
    expect(readPathRule(source)).toEqual({ kind: 'path-only' });
  });

  it.each([
    ['* /nodes/pve*/**', 'nodes', 'pve*'],
    ['* /nodes/*/qemu/10*/**', 'vmids', '10*'],
    ['* /pools/prod*/**', 'pools', 'prod*'],
    ['* /nodes/*/storage/local*/**', 'storages', 'local*'],
  ])('%s names targets by a glob: no pin', (source, what, segment) => {
    expect(readPathRule(source)).toEqual({ kind: 'unpinned', what, segment });
  });
});

describe('rules that pin part of a target have no equivalent', () => {
  it.each([
    ['DELETE /nodes/*/lxc/200', { kind: 'vmids', values: ['200'] }, { action: 'deny', vmids: [200], risk: ['destructive'] }, / itself .*for DELETE only/],
    ['POST /nodes/*/qemu/100/status/stop', { kind: 'vmids', values: ['100'] }, { action: 'deny', vmids: [100] }, /under '\/status\/stop' only.*for POST only/],
    ['* /nodes/*/qemu/100/snapshot/**', { kind: 'vmids', values: ['100'] }, { action: 'deny', vmids: [100], risk: ['read', 'write', 'destructive', 'privileged'] }, /under '\/snapshot\/\*\*' only/],
    ['POST /nodes/*/qemu/101/**', { kind: 'vmids', values: ['101'] }, { action: 'deny', vmids: [101] }, /for POST only/],
    ['GET,DELETE /nodes/*/qemu/101/**', { kind: 'vmids', values: ['101'] }, { action: 'deny', vmids: [101], risk: ['read', 'destructive'] }, /for GET,DELETE only/],
    ['* /nodes/pve3', { kind: 'nodes', values: ['pve3'] }, { action: 'deny', nodes: ['pve3'], risk: ['read', 'write', 'destructive', 'privileged'] }, /node pve3 itself/],
    ['* /nodes/pve3/qemu/*/**', { kind: 'nodes', values: ['pve3'] }, { action: 'deny', nodes: ['pve3'], risk: ['read', 'write', 'destructive', 'privileged'] }, /under '\/qemu\/\*\/\*\*' only/],
    ['DELETE /nodes/*/storage/nas/content/**', { kind: 'storages', values: ['nas'] }, { action: 'deny', storages: ['nas'], risk: ['destructive'] }, /storage nas under/],
    ['PUT /pools/prod', { kind: 'pools', values: ['prod'] }, { action: 'deny', pools: ['prod'] }, /for PUT only/],
  ])('%s', (source, pin, suggestion, why) => {
    const r = readPathRule(source);
    expect(r).toMatchObject({ kind: 'partial', pin, suggestion });
    expect(r.kind === 'partial' && r.why).toMatch(why);
    expect(r.kind === 'partial' && r.why).toMatch(/other paths still reach/);
  });

  it('refuses the configuration, naming the target rule to write', () => {
    try {
      Policy.fromConfig({ preset: 'admin', deny: ['* /nodes/*/qemu/100/**', 'DELETE /nodes/*/lxc/200'] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyConfigError);
      const problems = (err as PolicyConfigError).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^policy\.deny\.1: 'DELETE \/nodes\/\*\/lxc\/200': it names VMID 200 itself/);
      expect(problems[0]).toContain("targets: [{action: 'deny', vmids: [200], risk: ['destructive']}]");
    }
  });

  it('accepts it as a rule for its own path once a target rule names the target', () => {
    for (const targets of [[{ action: 'deny', vmids: [200], risk: ['destructive'] }], [{ action: 'approval', vmids: ['150-250'] }]]) {
      const p = Policy.fromConfig({ preset: 'admin', deny: ['DELETE /nodes/*/lxc/200'], targets });
      expect(p.targetRules.map((r) => r.from)).toEqual(['targets']);
    }
    expect(() => Policy.fromConfig({ preset: 'admin', deny: ['* /nodes/pve3/qemu/*/**'], targets: [{ action: 'deny', nodes: ['pve2'] }] })).toThrow(/node pve3/);
    expect(() => Policy.fromConfig({ preset: 'admin', deny: ['* /nodes/pve3/qemu/*/**'], targets: [{ action: 'deny', nodes: ['pve3'], risk: ['privileged'] }] })).not.toThrow();
  });

  it('covers a list only when every pinned value is named', () => {
    expect(pinCovered({ kind: 'vmids', values: ['100', '101'] }, [{ vmids: [[100, 100]] }])).toBe(false);
    expect(pinCovered({ kind: 'vmids', values: ['100', '101'] }, [{ vmids: [[100, 100]] }, { vmids: [[101, 105]] }])).toBe(true);
    expect(pinCovered({ kind: 'storages', values: ['nas'] }, [{ nodes: ['nas'] }])).toBe(false);
  });
});

describe('the policy carries the compiled rules after its own', () => {
  it('labels them by the deny rule they come from', () => {
    const p = Policy.fromConfig({ preset: 'admin', deny: ['GET /nodes/*/tasks/**', '* /nodes/*/qemu/100/**', 'POST,PUT,DELETE /pools/prod/**'], targets: [{ action: 'approval', tags: ['windows'] }] });
    expect(p.targetRules.map((r) => r.label)).toEqual([
      'targets[0] (approval tags windows)',
      "deny[1] '* /nodes/*/qemu/100/**' (as target rule: deny vmids 100 for read, write, destructive, privileged)",
      "deny[2] 'POST,PUT,DELETE /pools/prod/**' (as target rule: deny pools prod)",
    ]);
    const [, vm, pool] = p.targetRules;
    expect(vm).toMatchObject({ from: 'deny', index: 1, action: 'deny', vmids: [[100, 100]] });
    expect([...(vm?.risk ?? [])]).toEqual(['read', 'write', 'destructive', 'privileged']);
    expect([...(pool?.risk ?? [])]).toEqual(['write', 'destructive', 'privileged']);
  });
});
