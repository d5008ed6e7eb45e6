/**
 * The /access operations over HTTPS: users, API tokens, ACLs, roles — as a client manages them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { call, login, startTestSimulator } from './helpers.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startTestSimulator();
});
afterAll(async () => {
  await sim.close();
});

describe('access endpoints', () => {
  it('creates a pve user who can log in, and lists users by visibility', async () => {
    expect((await call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'gina@pve', password: 'gina-pass-1', firstname: 'Gina' } })).status).toBe(200);
    const dup = await call(sim, '/api2/json/access/users', { method: 'POST', body: { userid: 'gina@pve' } });
    expect(dup.status).toBe(500);
    expect(dup.statusText).toBe("create user failed: user 'gina@pve' already exists");
    const gina = await login(sim, 'gina@pve', 'gina-pass-1');
    const own = await call(sim, '/api2/json/access/users', { auth: { ticket: gina.ticket } });
    expect(own.json.data.map((u: { userid: string }) => u.userid)).toEqual(['gina@pve']);
    const all = await call(sim, '/api2/json/access/users?full=1');
    const entry = all.json.data.find((u: { userid: string }) => u.userid === 'gina@pve');
    expect(entry).toMatchObject({ firstname: 'Gina', enable: 1, expire: 0, 'realm-type': 'pve', tokens: [] });
    const forbidden = await call(sim, '/api2/json/access/users', { method: 'POST', auth: { ticket: gina.ticket, csrf: gina.csrf }, body: { userid: 'x@pve' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.statusText).toBe('Permission check failed (/access/realm/pve, Realm.AllocateUser)');
  });

  it('runs a token through its life: create (secret once), use, restrict, delete', async () => {
    sim.access.addUser('hank@pve', { password: 'hank-pass-1' });
    sim.access.grant({ path: '/', roles: ['PVEAuditor'], users: ['hank@pve'] });
    const hank = await login(sim, 'hank@pve', 'hank-pass-1');
    const session = { ticket: hank.ticket, csrf: hank.csrf };
    const created = await call(sim, '/api2/json/access/users/hank@pve/token/ci', { method: 'POST', auth: session, body: { comment: 'ci', privsep: 0 } });
    expect(created.status).toBe(200);
    expect(created.json.data).toEqual({ 'full-tokenid': 'hank@pve!ci', info: { comment: 'ci', privsep: 0 }, value: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const header = `PVEAPIToken=hank@pve!ci=${created.json.data.value}`;
    expect((await call(sim, '/api2/json/nodes/pve1/status', { auth: { tokenHeader: header } })).status).toBe(200);
    const listed = await call(sim, '/api2/json/access/users/hank@pve/token', { auth: session });
    expect(listed.json.data).toEqual([{ tokenid: 'ci', comment: 'ci', expire: 0, privsep: 0 }]);
    const restricted = await call(sim, '/api2/json/access/users/hank@pve/token/ci', { method: 'PUT', auth: session, body: { privsep: 1, delete: 'comment' } });
    expect(restricted.json.data).toEqual({ expire: 0, privsep: 1 });
    expect((await call(sim, '/api2/json/nodes/pve1/status', { auth: { tokenHeader: header } })).status).toBe(403);
    // A token is not its owner: "self" does not cover it.
    expect((await call(sim, '/api2/json/access/users/hank@pve/token', { auth: { tokenHeader: header } })).status).toBe(403);
    expect((await call(sim, '/api2/json/access/users/hank@pve/token/ci', { method: 'DELETE', auth: session })).status).toBe(200);
    expect((await call(sim, '/api2/json/nodes/pve1/status', { auth: { tokenHeader: header } })).status).toBe(401);
    const gone = await call(sim, '/api2/json/access/users/hank@pve/token/ci', { auth: session });
    expect(gone.statusText).toBe("no such token 'ci' for user 'hank@pve'");
  });

  it('grants and revokes ACLs, lists them only where the caller may audit, validates paths and roles', async () => {
    sim.access.addUser('ivy@pve', { password: 'ivy-pass-12' });
    expect((await call(sim, '/api2/json/access/acl', { method: 'PUT', body: { path: '/vms/100', roles: 'PVEVMUser', users: 'ivy@pve' } })).status).toBe(200);
    const ivy = await login(sim, 'ivy@pve', 'ivy-pass-12');
    expect((await call(sim, '/api2/json/access/acl', { auth: { ticket: ivy.ticket } })).json.data).toEqual([]);
    const entries = (await call(sim, '/api2/json/access/acl')).json.data;
    expect(entries).toContainEqual({ path: '/vms/100', type: 'user', ugid: 'ivy@pve', roleid: 'PVEVMUser', propagate: 1 });
    expect((await call(sim, '/api2/json/access/acl', { method: 'PUT', body: { path: '/vms/100', roles: 'PVEVMUser', users: 'ivy@pve', delete: 1 } })).status).toBe(200);
    expect((await call(sim, '/api2/json/access/acl')).json.data).not.toContainEqual(expect.objectContaining({ ugid: 'ivy@pve' }));
    const badPath = await call(sim, '/api2/json/access/acl', { method: 'PUT', body: { path: '/nowhere', roles: 'PVEAuditor', users: 'ivy@pve' } });
    expect(badPath.statusText).toBe("invalid ACL path '/nowhere'");
    const badRole = await call(sim, '/api2/json/access/acl', { method: 'PUT', body: { path: '/vms', roles: 'Nope', users: 'ivy@pve' } });
    expect(badRole.status).toBe(500);
    expect(badRole.statusText).toBe("role 'Nope' does not exist");
    const denied = await call(sim, '/api2/json/access/acl', { method: 'PUT', auth: { ticket: ivy.ticket, csrf: ivy.csrf }, body: { path: '/vms/100', roles: 'Administrator', users: 'ivy@pve' } });
    expect(denied.statusText).toBe('Permission check failed (/vms/100, Permissions.Modify|VM.Allocate)');
  });

  it('lists the built-in roles with their privileges', async () => {
    const roles = (await call(sim, '/api2/json/access/roles')).json.data as Array<{ roleid: string; privs: string; special: number }>;
    const vmUser = roles.find((r) => r.roleid === 'PVEVMUser');
    expect(vmUser?.special).toBe(1);
    expect(vmUser?.privs.split(',')).toEqual(expect.arrayContaining(['VM.Audit', 'VM.Console', 'VM.PowerMgmt']));
    expect(vmUser?.privs.split(',')).not.toContain('VM.Allocate');
    expect(roles.find((r) => r.roleid === 'NoAccess')?.privs).toBe('');
  });
});
