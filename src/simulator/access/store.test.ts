import { describe, expect, it } from 'vitest';
import { AccessStore, newUser } from './store.js';
import { BUILTIN_ROLES } from './privileges.js';

function store(): AccessStore {
  const s = new AccessStore(() => 1_700_000_000);
  for (const id of ['u@pve', 'v@pve']) s.users.set(id, newUser(id));
  return s;
}

describe('AccessStore.privileges', () => {
  it('gives root@pam everything and nobody else anything by default', () => {
    const s = store();
    expect(s.hasPriv('root@pam', '/vms/100', 'VM.Allocate')).toBe(true);
    expect(s.privileges('u@pve', '/').size).toBe(0);
  });

  it('inherits propagating entries; the deepest level with entries wins; NoAccess blocks', () => {
    const s = store();
    s.setAcl({ path: '/', type: 'user', ugid: 'u@pve', roleid: 'PVEAuditor', propagate: true });
    s.setAcl({ path: '/vms', type: 'user', ugid: 'u@pve', roleid: 'PVEVMUser', propagate: true });
    expect(s.hasPriv('u@pve', '/nodes/pve1', 'Sys.Audit')).toBe(true);
    expect(s.hasPriv('u@pve', '/vms/100', 'VM.PowerMgmt')).toBe(true);
    // Replaced, not merged: the /vms grant hides the inherited auditor role below /vms.
    expect(s.hasPriv('u@pve', '/vms/100', 'Sys.Audit')).toBe(false);
    s.setAcl({ path: '/vms/100', type: 'user', ugid: 'u@pve', roleid: 'NoAccess', propagate: true });
    expect(s.privileges('u@pve', '/vms/100').size).toBe(0);
    s.setAcl({ path: '/storage', type: 'user', ugid: 'u@pve', roleid: 'PVEDatastoreUser', propagate: false });
    expect(s.hasPriv('u@pve', '/storage', 'Datastore.AllocateSpace')).toBe(true);
    expect(s.hasPriv('u@pve', '/storage/local', 'Datastore.AllocateSpace')).toBe(false);
  });

  it('prefers user entries over group entries at the same level', () => {
    const s = store();
    s.groups.set('g', { groupid: 'g', members: new Set(['u@pve', 'v@pve']) });
    s.users.get('u@pve')?.groups.add('g');
    s.users.get('v@pve')?.groups.add('g');
    s.setAcl({ path: '/vms', type: 'group', ugid: 'g', roleid: 'PVEVMAdmin', propagate: true });
    s.setAcl({ path: '/vms', type: 'user', ugid: 'u@pve', roleid: 'PVEAuditor', propagate: true });
    expect(s.hasPriv('v@pve', '/vms/1', 'VM.Allocate')).toBe(true);
    expect(s.hasPriv('u@pve', '/vms/1', 'VM.Allocate')).toBe(false);
    expect(s.hasPriv('u@pve', '/vms/1', 'VM.Audit')).toBe(true);
  });

  it('adds pool grants for pool members and intersects privsep tokens', () => {
    const s = store();
    s.poolsFor = (path) => (path === '/vms/100' ? ['lab'] : []);
    s.setAcl({ path: '/pool/lab', type: 'user', ugid: 'u@pve', roleid: 'PVEVMAdmin', propagate: true });
    expect(s.hasPriv('u@pve', '/vms/100', 'VM.Allocate')).toBe(true);
    expect(s.hasPriv('u@pve', '/vms/101', 'VM.Allocate')).toBe(false);
    s.users.get('u@pve')?.tokens.set('tk', { expire: 0, privsep: true, secret: 's' });
    expect(s.privileges('u@pve!tk', '/vms/100').size).toBe(0);
    s.setAcl({ path: '/', type: 'token', ugid: 'u@pve!tk', roleid: 'Administrator', propagate: true });
    expect([...s.privileges('u@pve!tk', '/vms/100')].sort()).toEqual([...BUILTIN_ROLES.PVEVMAdmin].sort());
    expect(s.privileges('u@pve!missing', '/').size).toBe(0);
  });
});
