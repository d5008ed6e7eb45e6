import { describe, expect, it } from 'vitest';
import { compileOpPattern, matchesOp, PatternError } from './glob.js';
import { pathDecision } from './decide.js';
import { Policy } from './policy.js';
import { PolicyConfigError } from './policy-config.js';

const start = { method: 'POST' as const, template: '/nodes/{node}/qemu/{vmid}/status/start', concretePath: '/nodes/pve1/qemu/101/status/start', risk: 'write' as const };
const stop = { ...start, template: '/nodes/{node}/qemu/{vmid}/status/stop', concretePath: '/nodes/pve1/qemu/101/status/stop', risk: 'destructive' as const };
const read = { method: 'GET' as const, template: '/nodes/{node}/qemu', concretePath: '/nodes/pve1/qemu', risk: 'read' as const };
const storageCreate = { method: 'POST' as const, template: '/storage', concretePath: '/storage', risk: 'write' as const };
const exec = { method: 'POST' as const, template: '/nodes/{node}/qemu/{vmid}/agent/exec', concretePath: '/nodes/pve1/qemu/101/agent/exec', risk: 'privileged' as const };

describe('operation patterns', () => {
  it('match concrete paths and templates, with * per segment and ** across segments', () => {
    const p = compileOpPattern('POST /nodes/*/qemu/*/status/*');
    expect(matchesOp(p, 'POST', ['/nodes/pve1/qemu/101/status/start'])).toBe(true);
    expect(matchesOp(p, 'POST', ['/nodes/{node}/qemu/{vmid}/status/start'])).toBe(true);
    expect(matchesOp(p, 'GET', ['/nodes/pve1/qemu/101/status/start'])).toBe(false);
    expect(matchesOp(p, 'POST', ['/nodes/pve1/qemu/101/status/start/extra'])).toBe(false);
    const deep = compileOpPattern('* /nodes/**');
    expect(matchesOp(deep, 'DELETE', ['/nodes/pve1/qemu/101'])).toBe(true);
    expect(matchesOp(deep, 'GET', ['/nodes'])).toBe(true);
    expect(matchesOp(deep, 'GET', ['/nodesx'])).toBe(false);
  });

  it('support alternatives and literal placeholders', () => {
    const alt = compileOpPattern('POST,PUT /nodes/*/{qemu,lxc}/*/config');
    expect(matchesOp(alt, 'PUT', ['/nodes/a/lxc/200/config'])).toBe(true);
    expect(matchesOp(alt, 'PUT', ['/nodes/a/openvz/200/config'])).toBe(false);
    const literal = compileOpPattern('POST /nodes/{node}/qemu/{vmid}/agent/exec');
    expect(matchesOp(literal, 'POST', ['/nodes/pve1/qemu/101/agent/exec'])).toBe(false);
    expect(matchesOp(literal, 'POST', ['/nodes/{node}/qemu/{vmid}/agent/exec'])).toBe(true);
  });

  it('reject malformed patterns with a hint', () => {
    expect(() => compileOpPattern('/nodes')).toThrow(PatternError);
    expect(() => compileOpPattern('PATCH /nodes')).toThrow(/unknown method 'PATCH'/);
    expect(() => compileOpPattern('GET /nodes//qemu')).toThrow(/empty path segment/);
    expect(() => compileOpPattern('GET /nodes/a**')).toThrow(/whole segment/);
  });
});

describe('Policy', () => {
  it('defaults to read-only: reads pass, writes are refused naming the preset', () => {
    const p = Policy.fromConfig(undefined);
    expect(p.name).toBe('read-only');
    expect(pathDecision(p, read)).toMatchObject({ allowed: true });
    const d = pathDecision(p, start);
    expect(d.allowed).toBe(false);
    if (!d.allowed) expect(d.message).toMatch(/preset 'read-only'.*allows reads only/);
  });

  it('operator allows guest power and config but not other writes', () => {
    const p = Policy.fromConfig({ preset: 'operator' });
    expect(pathDecision(p, start).allowed).toBe(true);
    expect(pathDecision(p, stop).allowed).toBe(true);
    expect(pathDecision(p, { method: 'PUT', template: '/nodes/{node}/lxc/{vmid}/config', risk: 'write' }).allowed).toBe(true);
    expect(pathDecision(p, storageCreate).allowed).toBe(false);
    expect(p.approvalClasses.has('destructive')).toBe(true);
    expect(p.approvalClasses.has('write')).toBe(false);
  });

  it('admin allows everything except privileged operations', () => {
    const p = Policy.fromConfig({ preset: 'admin' });
    expect(pathDecision(p, storageCreate).allowed).toBe(true);
    const d = pathDecision(p, exec);
    expect(d).toMatchObject({ allowed: false, rule: 'privileged' });
    if (!d.allowed) expect(d.message).toContain("policy.privileged: ['POST /nodes/{node}/qemu/{vmid}/agent/exec']");
  });

  it('enables privileged operations one by one, and an allow rule does not enable them', () => {
    expect(pathDecision(Policy.fromConfig({ preset: 'admin', allow: ['* /**'] }), exec).allowed).toBe(false);
    const p = Policy.fromConfig({ preset: 'read-only', privileged: ['POST /nodes/{node}/qemu/{vmid}/agent/exec'] });
    expect(pathDecision(p, exec)).toMatchObject({ allowed: true, rule: "privileged[0] 'POST /nodes/{node}/qemu/{vmid}/agent/exec'" });
    expect(() => Policy.fromConfig({ privileged: ['POST /nodes/**'] })).toThrow(/one by one/);
  });

  it('deny wins over allow, preset and privileged enablement, and names the rule', () => {
    const p = Policy.fromConfig({
      preset: 'admin',
      allow: ['POST /nodes/*/qemu/101/status/*'],
      privileged: ['POST /nodes/*/qemu/*/agent/exec'],
      deny: ['POST /nodes/*/qemu/101/**'],
      // The deny rule pins VMID 101 for POST only: a target rule must say how 101 is protected from other paths.
      targets: [{ action: 'approval', vmids: [101] }],
    });
    for (const op of [start, stop, exec]) {
      const d = pathDecision(p, op);
      expect(d).toMatchObject({ allowed: false, rule: "deny[0] 'POST /nodes/*/qemu/101/**'" });
    }
    expect(pathDecision(p, { ...start, concretePath: '/nodes/pve1/qemu/102/status/start' }).allowed).toBe(true);
  });

  it('explicit allow rules extend a preset', () => {
    const p = Policy.fromConfig({ allow: ['POST /storage'] });
    expect(pathDecision(p, storageCreate)).toMatchObject({ allowed: true, rule: "allow[0] 'POST /storage'" });
  });

  it('approval classes can be configured, reads cannot need approval', () => {
    expect(Policy.fromConfig({ preset: 'admin', approval: { require: ['write'] } }).approvalClasses.has('destructive')).toBe(false);
    expect(() => Policy.fromConfig({ approval: { require: ['read'] } })).toThrow(/reads never need approval/);
  });

  it('config errors name the key and the fix', () => {
    try {
      Policy.fromConfig({ preset: 'root', scopes: { vmids: ['100-50', 'x'] }, allow: ['GET nodes'], budgets: {} });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyConfigError);
      const msg = (err as Error).message;
      expect(msg).toContain('policy.preset: preset must be one of read-only, operator, admin');
      expect(msg).toContain('policy.scopes.vmids.0');
      expect(msg).toContain('policy.scopes.vmids.1');
      expect(msg).toContain('policy.allow.0');
      expect(msg).toMatch(/unknown key\(s\) budgets/);
    }
  });

  it('compiles scopes', () => {
    const p = Policy.fromConfig({ scopes: { vmids: [101, '200-299'], tags: ['Prod'], nodes: ['pve1'] } });
    expect(p.scope.vmids).toEqual([
      [101, 101],
      [200, 299],
    ]);
    expect([...(p.scope.tags ?? [])]).toEqual(['prod']);
    expect(p.hasGuestScope).toBe(true);
    expect(Policy.fromConfig({ scopes: { nodes: ['pve1'] } }).hasGuestScope).toBe(false);
  });
});
