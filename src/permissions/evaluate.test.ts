import { describe, it, expect } from 'vitest';
import { evaluatePermission, describePermission, type PermissionEnv } from './index.js';

/** A tiny ACL world: privileges granted per exact path. */
function env(userid: string, grants: Record<string, string[]>, params: Record<string, unknown> = {}, extra: Partial<PermissionEnv> = {}): PermissionEnv {
  return {
    userid,
    params,
    hasPriv: (path, priv) => (grants[path] ?? []).includes(priv),
    ...extra,
  };
}

describe('evaluatePermission', () => {
  const start = ['perm', '/vms/{vmid}', ['VM.PowerMgmt']];

  it('substitutes path placeholders from params', () => {
    expect(evaluatePermission(start, env('alice@pve', { '/vms/100': ['VM.PowerMgmt'] }, { vmid: 100 }))).toEqual({ ok: true });
    const res = evaluatePermission(start, env('alice@pve', { '/vms/100': ['VM.PowerMgmt'] }, { vmid: 101 }));
    expect(res).toEqual({ ok: false, message: 'Permission check failed (/vms/101, VM.PowerMgmt)', missing: [{ path: '/vms/101', privs: ['VM.PowerMgmt'] }] });
  });

  it('requires all privileges unless any is set, naming the first missing one', () => {
    const both = ['perm', '/', ['Sys.Audit', 'Sys.Modify']];
    const e = env('bob@pve', { '/': ['Sys.Audit'] });
    const res = evaluatePermission(both, e);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.message).toBe('Permission check failed (/, Sys.Modify)');
    expect(evaluatePermission(['perm', '/', ['Sys.Modify', 'Sys.Audit'], 'any', 1], e)).toEqual({ ok: true });
    const none = evaluatePermission(['perm', '/', ['Sys.Modify', 'Sys.PowerMgmt'], 'any', 1], e);
    if (!none.ok) expect(none.message).toBe('Permission check failed (/, Sys.Modify|Sys.PowerMgmt)');
    else expect.unreachable();
  });

  it('evaluates and/or with require_param like a clone check', () => {
    const clone = ['and', ['perm', '/vms/{vmid}', ['VM.Clone']], ['or', ['perm', '/vms/{newid}', ['VM.Allocate']], ['perm', '/pool/{pool}', ['VM.Allocate'], 'require_param', 'pool']]];
    const grants = { '/vms/100': ['VM.Clone'], '/pool/lab': ['VM.Allocate'] };
    expect(evaluatePermission(clone, env('c@pve', grants, { vmid: 100, newid: 200, pool: 'lab' }))).toEqual({ ok: true });
    const noPool = evaluatePermission(clone, env('c@pve', grants, { vmid: 100, newid: 200 }));
    expect(noPool.ok).toBe(false);
    if (!noPool.ok) {
      expect(noPool.message).toBe('Permission check failed');
      expect(noPool.missing).toContainEqual({ path: '/vms/200', privs: ['VM.Allocate'] });
    }
    const noClone = evaluatePermission(clone, env('c@pve', grants, { vmid: 101, newid: 200, pool: 'lab' }));
    if (!noClone.ok) expect(noClone.message).toBe('Permission check failed (/vms/101, VM.Clone)');
    else expect.unreachable();
  });

  it('handles the object form: world, all, missing block, root bypass', () => {
    const nobody = env('eve@pve', {});
    expect(evaluatePermission({ user: 'world' }, nobody)).toEqual({ ok: true });
    expect(evaluatePermission({ user: 'all' }, nobody)).toEqual({ ok: true });
    const rootOnly = evaluatePermission(undefined, nobody);
    if (!rootOnly.ok) expect(rootOnly.message).toBe('Permission check failed (user != root@pam)');
    else expect.unreachable();
    expect(evaluatePermission(undefined, env('root@pam', {}))).toEqual({ ok: true });
    expect(evaluatePermission({ check: start }, env('root@pam', {}, { vmid: 5 }))).toEqual({ ok: true });
    // A root token is another principal: no bypass.
    expect(evaluatePermission({ check: start }, env('root@pam!t', {}, { vmid: 100 })).ok).toBe(false);
  });

  it('userid-param self and Realm.AllocateUser', () => {
    const self = ['or', ['userid-param', 'self'], ['userid-group', ['User.Modify']]];
    expect(evaluatePermission(self, env('a@pve', {}, { userid: 'a@pve' }))).toEqual({ ok: true });
    expect(evaluatePermission(self, env('a@pve', {}, { userid: 'b@pve' })).ok).toBe(false);
    const realm = ['userid-param', 'Realm.AllocateUser'];
    expect(evaluatePermission(realm, env('a@pve', { '/access/realm/pve': ['Realm.AllocateUser'] }, { userid: 'x@pve' }))).toEqual({ ok: true });
    const r = evaluatePermission(realm, env('a@pve', {}, { userid: 'x@pam' }));
    if (!r.ok) expect(r.message).toBe('Permission check failed (/access/realm/pam, Realm.AllocateUser)');
    else expect.unreachable();
  });

  it("userid-group via /access/groups or the target user's groups", () => {
    const check = ['userid-group', ['User.Modify']];
    const groupsOf = (u: string) => (u === 'x@pve' ? ['ops'] : []);
    expect(evaluatePermission(check, env('a@pve', { '/access/groups': ['User.Modify'] }, { userid: 'y@pve' }))).toEqual({ ok: true });
    expect(evaluatePermission(check, env('a@pve', { '/access/groups/ops': ['User.Modify'] }, { userid: 'x@pve' }, { groupsOf }))).toEqual({ ok: true });
    expect(evaluatePermission(check, env('a@pve', { '/access/groups/ops': ['User.Modify'] }, { userid: 'y@pve' }, { groupsOf })).ok).toBe(false);
    const create = ['userid-group', ['User.Modify'], 'groups_param', 'create'];
    const noGroups = evaluatePermission(create, env('a@pve', { '/access/groups/ops': ['User.Modify'] }, { userid: 'n@pve' }));
    if (!noGroups.ok) expect(noGroups.message).toBe('Permission check failed (/access/groups, User.Modify)');
    else expect.unreachable();
    expect(evaluatePermission(create, env('a@pve', { '/access/groups/ops': ['User.Modify'] }, { userid: 'n@pve', groups: 'ops' }))).toEqual({ ok: true });
  });

  it('perm-modify accepts the path-specific allocate privilege', () => {
    const check = ['perm-modify', '{path}'];
    expect(evaluatePermission(check, env('a@pve', { '/vms/100': ['VM.Allocate'] }, { path: '/vms/100' }))).toEqual({ ok: true });
    const res = evaluatePermission(check, env('a@pve', {}, { path: '/storage/local' }));
    if (!res.ok) expect(res.message).toBe('Permission check failed (/storage/local, Permissions.Modify|Datastore.Allocate)');
    else expect.unreachable();
  });
});

describe('describePermission', () => {
  it('renders checks in plain words', () => {
    expect(describePermission({ check: ['perm', '/vms/{vmid}', ['VM.PowerMgmt']] })).toBe('VM.PowerMgmt on /vms/{vmid}');
    expect(describePermission(['perm', '/', ['Sys.Audit', 'Sys.Modify'], 'any', 1])).toBe('any of Sys.Audit, Sys.Modify on /');
    expect(describePermission({ user: 'all' })).toBe('any authenticated user');
    expect(describePermission({ user: 'world' })).toBe('no authentication required');
    expect(describePermission(undefined)).toBe('root@pam only');
    expect(
      describePermission(['and', ['perm', '/vms/{vmid}', ['VM.Clone']], ['or', ['perm', '/vms/{newid}', ['VM.Allocate']], ['perm', '/pool/{pool}', ['VM.Allocate'], 'require_param', 'pool']]]),
    ).toBe("VM.Clone on /vms/{vmid} and (VM.Allocate on /vms/{newid} or VM.Allocate on /pool/{pool} (when 'pool' is given))");
  });
});
